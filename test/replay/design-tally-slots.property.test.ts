import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DesignTally } from '../../src/replay/run/key-stats.js';

const W = 1000;

/** The sliding window a tally keeps, as a plain list: admits in (t − W, t]. */
class PlainWindow {
  times: number[] = [];
  live(t: number): number {
    this.times = this.times.filter((x) => t - x < W);
    return this.times.length;
  }
  admit(t: number): number {
    this.live(t);
    this.times.push(t);
    return this.times.length;
  }
}

describe('tallies whose first logs share a block (DesignTally)', () => {
  it('each counts its own window: neighbours, growth out of the slot and resets back to it', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 6 }),
        // per step: which tally, the time step, admit or look, reset
        fc.array(
          fc.record({
            who: fc.nat(),
            // bursts that grow a log out of its slot, and gaps that expire it
            dt: fc.oneof(fc.integer({ min: 0, max: 10 }), fc.integer({ min: 0, max: 600 })),
            op: fc.constantFrom('admit', 'admit', 'admit', 'look', 'reset'),
          }),
          { minLength: 20, maxLength: 400 },
        ),
        (n, steps) => {
          // made one after another: neighbours in one block
          const tallies = Array.from({ length: n }, () => new DesignTally());
          const plain = tallies.map(() => new PlainWindow());
          let t = 0;
          for (const s of steps) {
            t += s.dt;
            const i = s.who % n;
            if (s.op === 'admit') expect(tallies[i].admit(t, W)).toBe(plain[i].admit(t));
            else if (s.op === 'look') expect(tallies[i].liveAt(t, W)).toBe(plain[i].live(t));
            else {
              tallies[i].reset();
              plain[i] = new PlainWindow();
            }
          }
          for (let i = 0; i < n; i++) expect(tallies[i].liveAt(t, W)).toBe(plain[i].live(t));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('a tally grown past the kept size and reset counts from its first slot again', () => {
    const a = new DesignTally();
    const b = new DesignTally();
    for (let k = 0; k < 100; k++) expect(a.admit(k, W)).toBe(k + 1);
    for (let k = 0; k < 100; k++) expect(a.admit(1000 + k, W)).toBe(100);
    b.admit(0, W);
    a.reset();
    expect(a.liveAt(100, W)).toBe(0);
    for (let k = 0; k < 8; k++) expect(a.admit(200 + k, W)).toBe(k + 1);
    expect(b.liveAt(100, W)).toBe(1);
  });
});
