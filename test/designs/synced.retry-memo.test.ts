/**
 * SyncedKey's cached answers (issue 32: Stryker found their reuse conditions tested by nothing):
 * nextChangeAt walks the listed expiries as time passes, and retryAt's answer is reused only while
 * nothing it was computed on has changed (the instant, the cost, the sync it waits for, a sync taken
 * or applied, an admit).
 */
import { describe, expect, it } from 'vitest';
import { makePolicy } from '../../src/config.js';
import { ALLOW, type FleetParams } from '../../src/designs/key-limiter.js';
import { AssumeOthersKey, SharedCounterKey, type SyncedKey } from '../../src/designs/synced.js';
import type { SyncReply } from '../../src/store/contract.js';

const W = 10_000;

function params(limit: number, gateways: number): FleetParams {
  return { policy: makePolicy(limit, W), gateways, syncMs: 1000, leaseTtlMs: 3000, horizonMs: 4000 };
}

function apply(lim: SyncedKey, now: number, count: number, expiries: number[]): void {
  lim.syncEntry('k', now);
  const reply: SyncReply = { count, expiries, horizon: now + 4000, granted: 0, grantExpiresAt: 0 };
  lim.applySync(reply, now);
}

describe('SyncedKey: nextChangeAt', () => {
  it('is the next listed expiry, walked past as time passes without a decide', () => {
    const lim = new SharedCounterKey(params(10, 2));
    apply(lim, 0, 3, [500, 700]);
    expect(lim.nextChangeAt(100)).toBe(500);
    expect(lim.nextChangeAt(499)).toBe(500);
    expect(lim.nextChangeAt(500)).toBe(700);
    expect(lim.nextChangeAt(600)).toBe(700);
    // past the listed ones nothing changes until a sync
    expect(lim.nextChangeAt(700)).toBe(Number.POSITIVE_INFINITY);
  });
});

describe('SyncedKey: retryAt’s answer, reused and not', () => {
  // assume-others at K = 2, L = 10: 4 own admits since the sync count 8; after the next sync once
  function fourOwn(): AssumeOthersKey {
    const lim = new AssumeOthersKey(params(10, 2));
    apply(lim, 0, 0, []);
    for (let i = 0; i < 4; i++) lim.decide(100, 1);
    return lim;
  }

  it('waits for the sync it is given: another sync instant, another answer', () => {
    const lim = fourOwn();
    expect(lim.retryAt(200, 3, 1000)).toBe(1000);
    expect(lim.retryAt(200, 3, 2000)).toBe(2000);
    expect(lim.retryAt(200, 2, 2000)).toBe(200);
  });

  it('an admit since, or a sync applied, gives a new answer at the same instant', () => {
    const lim = fourOwn();
    // after the sync 4 + 6 fit in 10
    expect(lim.retryAt(200, 6, 1000)).toBe(1000);
    expect(lim.decide(200, 1)).toBe(ALLOW);
    // 5 + 6 do not: it waits for admits to leave the window
    const later = lim.retryAt(200, 6, 1000);
    expect(later).toBeGreaterThan(1000);
    // a reply that counts nothing (the key was reset at the store): 0 + 6 fit now
    lim.syncEntry('k', 300);
    lim.applySync({ count: 0, expiries: [], horizon: 4300, granted: 0, grantExpiresAt: 0 }, 300);
    expect(lim.retryAt(300, 6, 1000)).toBe(300);
    // a sync with nothing pending before or after it
    const full = new SharedCounterKey(params(3, 2));
    apply(full, 0, 3, [1500, 2500, 3500]);
    expect(full.retryAt(100, 1, 1000)).toBe(1500);
    apply(full, 200, 0, []);
    expect(full.retryAt(200, 1, 1000)).toBe(200);
  });

  it('once its instant has come, the answer is now', () => {
    const lim = new SharedCounterKey(params(3, 2));
    apply(lim, 0, 3, [500, 700, 900]);
    expect(lim.retryAt(100, 1, 1000)).toBe(500);
    expect(lim.retryAt(500, 1, 1000)).toBe(500);
    expect(lim.retryAt(600, 2, 1000)).toBe(700);
    expect(lim.retryAt(800, 2, 1000)).toBe(800);
  });
});
