// BoxedInstants (src/replay/run/boxed-instants.ts): idle reads take a regular sync's instant from a
// direct-mapped cache of boxed numbers; whatever the order of the indices asked (entries shared by
// indices 1,024 apart, indices asked again after their entry was taken), each is the clock's.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BoxedInstants } from '../../src/replay/run/boxed-instants.js';
import type { SyncClock } from '../../src/replay/run/key-track.js';
import { seeded } from '../support/fc-seed.js';

const clockOf = (K: number, syncMs: number, phase: number): SyncClock => {
  const base = Float64Array.from({ length: K }, (_, p) => phase + p * 0.37);
  return {
    K,
    base,
    D: syncMs,
    gatewayOf: (i) => i % K,
    syncAt: (i) => base[i % K] + Math.floor(i / K) * syncMs,
  };
};

describe('BoxedInstants', () => {
  it('gives clock.syncAt(i) for indices sharing an entry, asked in turn', () => {
    const clock = clockOf(4, 1000, 12.5);
    const b = new BoxedInstants(clock);
    for (const i of [3, 1027, 3, 2051, 1027, 0, 1024, 0]) expect(b.at(i)).toBe(clock.syncAt(i));
  });

  it('gives clock.syncAt(i) for any sequence of indices', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 32 }),
        fc.array(fc.integer({ min: 0, max: 50_000 }), { maxLength: 200 }),
        (K, idx) => {
          const clock = clockOf(K, 1000, 0.25);
          const b = new BoxedInstants(clock);
          for (const i of idx) expect(b.at(i)).toBe(clock.syncAt(i));
          for (const i of idx.reverse()) expect(b.at(i)).toBe(clock.syncAt(i));
        },
      ),
      seeded(),
    );
  });
});
