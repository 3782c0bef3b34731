import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { KeyStats } from '../../src/replay/run/key-stats.js';
import { LiveKeys } from '../../src/replay/run/live-keys.js';

/** Arrivals of keys from a few alphabets (small: colliding probes; large: the table grows), and sweeps. */
const opsArb = fc
  .integer({ min: 4, max: 3000 })
  .chain((n) =>
    fc.array(
      fc.oneof(
        { weight: 20, arbitrary: fc.integer({ min: 0, max: n }).map((i) => `k${i}`) },
        { weight: 1, arbitrary: fc.integer({ min: 1, max: 50 }) },
      ),
      { maxLength: 3000, size: 'max' },
    ),
  );

describe('LiveKeys (the engine’s live keys by name)', () => {
  it('finds what a Map would, and lists and retires the keys in a Map’s order', () => {
    fc.assert(
      fc.property(opsArb, (ops) => {
        const live = new LiveKeys();
        const map = new Map<string, KeyStats>();
        let t = 0;
        for (const op of ops) {
          t++;
          if (typeof op === 'string') {
            let st = live.get(op);
            expect(st).toBe(map.get(op));
            if (st === undefined) {
              st = new KeyStats(op, 1, t);
              live.add(st);
              map.set(op, st);
            }
            st.lastSeen = t;
          } else {
            // a sweep retiring the keys idle for `op` arrivals
            const want: string[] = [];
            map.forEach((st, key) => {
              if (t - st.lastSeen >= op) {
                map.delete(key);
                want.push(key);
              }
            });
            const got: string[] = [];
            live.sweep(
              (st) => t - st.lastSeen >= op,
              (st) => got.push(st.key),
              // as the engine's sweep: a key entered within `op` of t is not done, nor any after it
              (entered) => t - entered < op,
            );
            expect(got).toEqual(want);
          }
          expect(live.size).toBe(map.size);
        }
        expect(live.values().map((st) => st.key)).toEqual([...map.keys()]);
        for (const [key, st] of map) expect(live.get(key)).toBe(st);
      }),
      { numRuns: 40 },
    );
  });

  it('a key entered before the one listed before it is still asked (its young bound is not trusted)', () => {
    const live = new LiveKeys();
    for (const [key, t] of [
      ['a', 5],
      ['b', 3],
      ['c', 6],
    ] as const) {
      expect(live.get(key)).toBeUndefined();
      live.add(new KeyStats(key, 1, t));
    }
    const got: string[] = [];
    live.sweep(
      (st) => 10 - st.lastSeen >= 6,
      (st) => got.push(st.key),
      (entered) => 10 - entered < 6,
    );
    expect(got).toEqual(['b']);
    expect(live.values().map((st) => st.key)).toEqual(['a', 'c']);
  });

  it('adds only where a get just missed', () => {
    const live = new LiveKeys();
    expect(() => live.add(new KeyStats('a', 1, 0))).toThrow(/no miss/);
  });
});
