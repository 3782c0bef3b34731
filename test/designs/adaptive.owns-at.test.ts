/**
 * AdaptiveKey.ownsAt: whether an own admit still counts at t. The replay passes adaptive-early's null
 * syncs on request up to an instant at which it holds (ReadSteps.passes: such a sync cannot find the
 * key idle then, and drops nothing); an admit has left at its expiry (OwnLog.dropExpired, isIdle), so
 * at that instant it must say no, or a sync that drops the key would be passed.
 */
import { describe, expect, it } from 'vitest';
import { makePolicy } from '../../src/config.js';
import { AdaptiveEarlyKey } from '../../src/designs/adaptive-early.js';
import { ALLOW, type FleetParams } from '../../src/designs/key-limiter.js';

const DELTA = 1000;
const W = 10_000;

function params(): FleetParams {
  return {
    policy: makePolicy(30, W),
    gateways: 4,
    syncMs: DELTA,
    leaseTtlMs: 3 * DELTA,
    horizonMs: 4 * DELTA,
    readsOnRequest: true,
  };
}

describe('adaptive: ownsAt (the replay passes null syncs up to it)', () => {
  it('is no with no own admit', () => {
    expect(new AdaptiveEarlyKey(params(), 0).ownsAt(0)).toBe(false);
  });

  it('is yes until the newest own admit’s expiry, and no from it on, as isIdle finds', () => {
    const lim = new AdaptiveEarlyKey(params(), 0);
    expect(lim.decide(500, 1)).toBe(ALLOW);
    expect(lim.decide(800, 1)).toBe(ALLOW);
    expect(lim.ownsAt(500 + W)).toBe(true);
    expect(lim.ownsAt(800 + W - 1)).toBe(true);
    expect(lim.isIdle(800 + W - 1)).toBe(false);
    expect(lim.ownsAt(800 + W)).toBe(false);
  });
});
