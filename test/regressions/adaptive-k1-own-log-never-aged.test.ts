/**
 * adaptive with one gateway skipped its share's bookkeeping at every sync, the aging of its own admits
 * with it, and is idle only once that log is empty: every key it ever admitted stayed held (syncing
 * every Δ, its log growing by every admit) where shared-counter lets it go. In the replay (K = 1) the
 * log grew by every admitted line. Aged at every sync, the key goes idle as at K = 2.
 */
import { describe, expect, it } from 'vitest';
import { makePolicy } from '../../src/config.js';
import { AdaptiveKey } from '../../src/designs/adaptive.js';
import { ALLOW } from '../../src/designs/key-limiter.js';
import type { SyncReply } from '../../src/store/contract.js';

const DELTA = 1000;
const W = 10 * DELTA;

function sync(lim: AdaptiveKey, now: number, count: number, expiries: number[]): void {
  lim.syncEntry('k', now);
  const reply: SyncReply = { count, expiries, horizon: now + DELTA, granted: 0, grantExpiresAt: 0 };
  lim.applySync(reply, now);
}

describe('adaptive at K = 1: a key whose admits left the window is idle', () => {
  it('goes idle at the first sync after its last admit expires', () => {
    const p = {
      policy: makePolicy(10, W),
      gateways: 1,
      syncMs: DELTA,
      leaseTtlMs: 3 * DELTA,
      horizonMs: DELTA,
    };
    const lim = new AdaptiveKey(p, 0);
    expect(lim.decide(100, 1)).toBe(ALLOW);
    sync(lim, 200, 1, [100 + W]);
    expect(lim.isIdle(100 + W - 1)).toBe(false);
    sync(lim, 100 + W - 1, 1, [100 + W]);
    expect(lim.isIdle(100 + W - 1)).toBe(false);
    sync(lim, 100 + W, 0, []);
    expect(lim.isIdle(100 + W)).toBe(true);
  });
});
