/**
 * Reads follow requests (issue 35) list a gateway's own admits the store counts past a reply's
 * horizon in its view (`listLate`), so that each leaves at its own expiry. A reply that counts fewer
 * than those and its own list (the key was reset at the store after the push, or the store lost its
 * admits) does not hold them all; listed anyway, each left the view's count when it expired, taking
 * it below 0: one gateway admitted L + 1 in a window, showed `remaining` L + 1, and the key was never
 * idle nor read again (found by issue 32's mutation tests of src/designs/synced.ts).
 */
import { describe, expect, it } from 'vitest';
import { makePolicy } from '../../src/config.js';
import { ALLOW, type FleetParams } from '../../src/designs/key-limiter.js';
import { SharedCounterKey, TrackShareKey } from '../../src/designs/synced.js';

const W = 10_000;
const L = 5;

function params(): FleetParams {
  return {
    policy: makePolicy(L, W),
    gateways: 2,
    syncMs: 100,
    leaseTtlMs: 300,
    horizonMs: 100,
    readsOnRequest: true,
  };
}

describe('a reply that counts fewer than its own late admits (reads on request)', () => {
  for (const make of [
    (p: FleetParams) => new SharedCounterKey(p),
    (p: FleetParams) => new TrackShareKey(p),
  ]) {
    it(`${make(params()).design}: the view never counts below 0, and admits at most L`, () => {
      const lim = make(params());
      lim.syncEntry('k', 0);
      lim.applySync({ count: 0, expiries: [], horizon: 100, granted: 0, grantExpiresAt: 0 }, 0);
      expect(lim.decide(100, 1)).toBe(ALLOW);
      // pushed at 200; the store was reset meanwhile: its count holds nothing
      lim.syncEntry('k', 200);
      lim.applySync({ count: 0, expiries: [], horizon: 300, granted: 0, grantExpiresAt: 0 }, 200);
      expect(lim.known(300)).toBe(0);
      // its admit at 100 would have left at 100 + W
      expect(lim.known(100 + W)).toBe(0);
      expect(lim.remaining(100 + W)).toBe(L);
      expect(lim.isIdle(100 + W)).toBe(true);
      let admitted = 0;
      for (let i = 0; i < L + 2; i++) if (lim.decide(100 + W, 1) === ALLOW) admitted++;
      // shared-counter takes all L; track-share weighs its own by 1/share (2 before a share is measured)
      expect(admitted).toBe(lim.design === 'shared-counter' ? L : 3);
    });
  }
});
