import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { OwnLog } from '../../src/designs/own-log.js';
import { RunLog } from '../../src/window/run-log.js';

/** Steps on both logs: insert (times mostly rising, some going back), drop what expired, take back. */
type Step = { op: 'insert' | 'drop' | 'remove'; dt: number; n: number };

const step: fc.Arbitrary<Step> = fc.record({
  op: fc.constantFrom<Step['op']>('insert', 'insert', 'insert', 'drop', 'remove'),
  dt: fc.integer({ min: -3, max: 6 }),
  n: fc.integer({ min: 0, max: 3 }),
});

describe('OwnLog: adaptive’s own admits, as RunLog counts them', () => {
  it('keeps the same size as a RunLog through inserts (in order or not), expiries and refunds', () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 200 }), fc.constantFrom('sliding', 'fixed'), (steps, kind) => {
        const own = new OwnLog();
        const ref = new RunLog();
        const W = 10;
        let t = 100;
        for (const s of steps) {
          t += s.dt;
          if (s.op === 'insert') {
            own.insert(t, s.n + 1);
            ref.insert(t, s.n + 1);
          } else if (s.op === 'drop') {
            own.dropExpired(t, W, kind as 'sliding' | 'fixed');
            ref.dropExpired(t, W, kind as 'sliding' | 'fixed');
          } else expect(own.remove(t - s.n, s.n + 1)).toBe(ref.remove(t - s.n, s.n + 1));
          expect(own.size).toBe(ref.size);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('slides dead runs out and keeps counting the live ones after', () => {
    const own = new OwnLog();
    for (let t = 0; t < 40; t++) {
      own.insert(t, 1);
      own.dropExpired(t, 5, 'sliding');
      expect(own.size).toBe(Math.min(t + 1, 5));
    }
    own.insert(39, 2);
    expect(own.remove(39, 3)).toBe(3);
    expect(own.size).toBe(4);
    own.insert(37, 1);
    own.dropExpired(42, 5, 'sliding');
    expect(own.size).toBe(1);
  });
});
