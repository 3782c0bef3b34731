/**
 * The replay limiters' tests' fleet (test/replay/replay-limiter.test.ts, retry-after-fields.test.ts):
 * a key of L = 8 per W = 10 s at a few gateways syncing every 100 ms, the synced designs, and a seeded
 * draw to drive them.
 */
import { type DesignId, makePolicy } from '../../src/config.js';
import type { FleetParams } from '../../src/designs/key-limiter.js';

export const W = 10_000;
export const DELTA = 100;
export const SYNCED: DesignId[] = [
  'shared-counter',
  'assume-others',
  'track-share',
  'adaptive',
  'adaptive-early',
];

export function params(readsOnRequest: boolean, gateways = 3): FleetParams {
  return {
    policy: makePolicy(8, W),
    gateways,
    syncMs: DELTA,
    leaseTtlMs: 3 * DELTA,
    horizonMs: 4 * DELTA,
    readsOnRequest,
  };
}

/** A seeded xorshift draw in [0, 1). */
export function draws(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x / 2 ** 32;
  };
}
