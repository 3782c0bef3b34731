import { describe, expect, it } from 'vitest';
import { storeOps } from '../../src/advise/rank.js';

// advise counted K/Δ syncs for every design, so adaptive-early (which also syncs early under a flood)
// was listed at 8 store ops/s/key when its flood run measured 9.25 (K = 8, Δ = 1 s, 1,000×, 100/1m).
describe('storeOps of a design that syncs early', () => {
  it('counts the flood run’s measured syncs, not K/Δ alone', () => {
    const fleet = { gateways: 8, attack: 1000, limit: 100, windowS: 60 };
    // K/Δ = 8/s; the flood run measured 13.5 store operations a second, none on the request path
    const early = storeOps({ design: 'adaptive-early', syncS: 1 }, fleet, {
      roundTripsPerRequest: 0,
      storeOpsPerSec: 13.5,
    });
    expect(early).toEqual({ syncsPerSec: 13.5, requestPathPerSec: 0 });
    // never fewer than its regular syncs
    expect(
      storeOps({ design: 'adaptive-early', syncS: 1 }, fleet, { roundTripsPerRequest: 0, storeOpsPerSec: 3 })
        .syncsPerSec,
    ).toBe(8);
    // a design without early syncs keeps K/Δ whatever was measured
    expect(
      storeOps({ design: 'adaptive', syncS: 1 }, fleet, { roundTripsPerRequest: 0, storeOpsPerSec: 13.5 })
        .syncsPerSec,
    ).toBe(8);
  });
});
