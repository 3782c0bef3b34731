// The lease designs' parked syncs (src/replay/run/lease-steps.ts) against the walk itself (ReplayFleet
// `walk: true`, every sync a store call, in time order): K up to 8 with limits of 1–5, so a key is held
// at more gateways than the store has slots for (parks that rely on the store staying full, stopped by
// another holder's release or an admit's expiry), and gaps up to several windows, so parks outlast
// runs and sweeps pass keys whose holders are all parked. The same decision on every request, and the
// same key-syncs and store calls.
import fc from 'fast-check';
import { describe, it } from 'vitest';
import { FC_SEED, seeded } from '../support/fc-seed.js';
import { expectChunkedAsWalk } from './support.js';

// fixed unless FC_SEED asks for another (a failure names it)
const SEED = process.env.FC_SEED ? FC_SEED : 5011;

// bursts (grants run out, the store fills), quiet stretches within W, and gaps of several W
const gap = fc.oneof(
  { weight: 3, arbitrary: fc.constant(0) },
  { weight: 5, arbitrary: fc.integer({ min: 0, max: 800 }) },
  { weight: 2, arbitrary: fc.integer({ min: 800, max: 20_000 }) },
);

const parkCase = fc
  .record({
    design: fc.constantFrom('leases' as const, 'leases-ask' as const),
    K: fc.integer({ min: 2, max: 8 }),
    limit: fc.integer({ min: 1, max: 5 }),
    windowMs: fc.constantFrom(2000, 5000),
    syncMs: fc.constantFrom(250, 1000),
    keys: fc.integer({ min: 1, max: 4 }),
    chunk: fc.integer({ min: 20, max: 1000 }),
  })
  .chain((c) =>
    fc
      .array(fc.tuple(gap, fc.integer({ min: 0, max: c.keys - 1 }), fc.integer({ min: 0, max: c.K - 1 })), {
        minLength: 20,
        maxLength: 120,
      })
      .map((steps) => ({ ...c, steps })),
  );

describe('replay: the lease designs parked decide and count as the walk', () => {
  it('keys held at more gateways than the store has slots, quiet for windows at a time', () => {
    fc.assert(
      fc.property(parkCase, (c) => {
        expectChunkedAsWalk(c, 3);
      }),
      { ...seeded({ numRuns: 400 }), seed: SEED },
    );
  }, 120_000);
});
