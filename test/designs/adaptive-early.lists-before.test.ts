/**
 * AdaptiveEarlyKey.listsBefore: whether the view its last full read wrote lists every admit that leaves
 * before t, so the replay may apply an idle read at once although a push may come before the gateway's
 * next sync (src/replay/run/read-steps.ts). A reply lists the expiries strictly before its horizon
 * (TimeLog.expiriesBefore), and an admit expiring at t has left by t: at t = horizon one expiring there
 * has left a newer read's view but not this one's, so the answer there must be no.
 */
import { describe, expect, it } from 'vitest';
import { makePolicy } from '../../src/config.js';
import { AdaptiveEarlyKey } from '../../src/designs/adaptive-early.js';
import type { FleetParams } from '../../src/designs/key-limiter.js';

const DELTA = 1000;
const HORIZON = 4 * DELTA;

function params(): FleetParams {
  return {
    policy: makePolicy(30, 60_000),
    gateways: 4,
    syncMs: DELTA,
    leaseTtlMs: 3 * DELTA,
    horizonMs: HORIZON,
  };
}

describe('adaptive-early: listsBefore (the replay’s idle reads)', () => {
  it('is no before any full read', () => {
    expect(new AdaptiveEarlyKey(params(), 0).listsBefore(0)).toBe(false);
  });

  it('is yes before the last full read’s horizon, and no from it on', () => {
    const lim = new AdaptiveEarlyKey(params(), 0);
    const now = 5000;
    lim.syncEntry('k', now);
    lim.applySync({ count: 3, expiries: [], horizon: now + HORIZON, granted: 0, grantExpiresAt: 0 }, now);
    expect(lim.listsBefore(now + HORIZON - 1)).toBe(true);
    expect(lim.listsBefore(now + HORIZON)).toBe(false);
    // the next full read moves it
    const later = now + DELTA;
    lim.syncEntry('k', later);
    lim.applySync({ count: 3, expiries: [], horizon: later + HORIZON, granted: 0, grantExpiresAt: 0 }, later);
    expect(lim.listsBefore(now + HORIZON)).toBe(true);
    expect(lim.listsBefore(later + HORIZON)).toBe(false);
  });
});
