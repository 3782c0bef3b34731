import { describe, expect, it } from 'vitest';
import { makePolicy } from '../../src/config.js';
import { CentralLogKey } from '../../src/designs/central-log.js';
import { type FleetParams, NEED_STORE } from '../../src/designs/key-limiter.js';

/**
 * central-log's gateway side: every request asks the store; the gateway keeps the last reply for
 * headers, Retry-After and idleness. Found by Stryker (issue 32): the designs' tests reached these
 * answers only through the simulator's totals.
 */
const p: FleetParams = {
  policy: makePolicy(3, 1000),
  gateways: 2,
  syncMs: 100,
  leaseTtlMs: 300,
  horizonMs: 400,
};

function keyAfter(count: number, oldestExpiry: number): CentralLogKey {
  const k = new CentralLogKey(p);
  k.onLogReply({ allowed: count > 0, count, oldestExpiry, now: 0 }, 0, 1);
  return k;
}

describe('central-log key', () => {
  it('asks the store for every request and answers with its verdict', () => {
    const k = new CentralLogKey(p);
    expect(k.decide(0, 1)).toBe(NEED_STORE);
    expect(k.onLogReply({ allowed: true, count: 1, oldestExpiry: 1000, now: 0 }, 0, 1)).toBe(true);
    expect(k.onLogReply({ allowed: false, count: 3, oldestExpiry: 1000, now: 5 }, 5, 1)).toBe(false);
    // it logs at the store and never asks (each design's capabilities: test/designs/key-steps.test.ts)
    expect('onAskReply' in k).toBe(false);
    expect(k.syncEntry('k', 0)).toBeNull();
    expect(k.unsyncedAdmits()).toBe(0);
  });

  it('Retry-After: now if the count leaves room, the oldest admit’s expiry if one leaving is enough, else Infinity', () => {
    const full = keyAfter(3, 1000);
    expect(full.retryAt(500, 1, 600)).toBe(1000);
    expect(full.retryAt(500, 2, 600)).toBe(Number.POSITIVE_INFINITY);
    // once the oldest has left, one more fits
    expect(full.retryAt(1000, 1, 1100)).toBe(1000);
    expect(full.retryAt(1000, 2, 1100)).toBe(Number.POSITIVE_INFINITY);
    // asked later, the answer is then, never the instant already past
    expect(full.retryAt(1005, 1, 1100)).toBe(1005);
    expect(keyAfter(1, 1000).retryAt(500, 2, 600)).toBe(500);
    expect(keyAfter(1, 1000).retryAt(500, 3, 600)).toBe(1000);
  });

  it('remaining, reset and idleness follow the last reply and its oldest admit leaving', () => {
    const k = keyAfter(3, 1000);
    expect(k.remaining(999)).toBe(0);
    expect(k.remaining(1000)).toBe(1);
    expect(keyAfter(1, 1000).remaining(0)).toBe(2);
    expect(k.resetAt(0)).toBe(1000);
    expect(k.nextChangeAt(0)).toBe(1000);
    expect(k.isIdle(999)).toBe(false);
    expect(k.isIdle(1000)).toBe(true);
    expect(keyAfter(0, Number.POSITIVE_INFINITY).isIdle(0)).toBe(true);
    expect(new CentralLogKey(p).isIdle(0)).toBe(true);
  });
});
