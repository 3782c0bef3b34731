import { describe, expect, it } from 'vitest';
import { makePolicy } from '../../src/config.js';
import { ALLOW, DENY, type FleetParams } from '../../src/designs/key-limiter.js';
import { SplitKey } from '../../src/designs/split.js';

/**
 * split: each gateway admits while its own count stays below L/K, a real number. Found by Stryker
 * (issue 32): the property test compares it with its older copy, at a tenth of its runs under Stryker,
 * and Retry-After's cache was reached by no test that asks twice.
 */
function fleet(limit: number, gateways: number): { gateways: number } & FleetParams {
  return { policy: makePolicy(limit, 1000), gateways, syncMs: 100, leaseTtlMs: 300, horizonMs: 400 };
}

describe('split key', () => {
  it('admits while its own count stays below L/K, a real number, whatever the cost', () => {
    const k = new SplitKey(fleet(100, 32));
    // 100/32 = 3.125: up to 4 admits
    const verdicts = [0, 1, 2, 3, 4].map((t) => k.decide(t, 1));
    expect(verdicts).toEqual([ALLOW, ALLOW, ALLOW, ALLOW, DENY]);
    const c = new SplitKey(fleet(10, 2));
    expect(c.decide(0, 3)).toBe(ALLOW);
    expect(c.decide(1, 3)).toBe(DENY); // 3 + 3 − 1 is not below 5
    expect(c.decide(2, 2)).toBe(ALLOW);
    expect(c.decide(3, 1)).toBe(DENY);
    expect(c.noteRejected(1, 3)).toBeUndefined();
    expect(c.syncEntry('k', 3)).toBeNull();
    expect(c.unsyncedAdmits()).toBe(0);
    // it never calls the store on the request path: no log or ask steps at all
    expect('onLogReply' in c || 'onAskReply' in c || 'askSize' in c).toBe(false);
  });

  it('remaining, reset, Retry-After and idleness follow its own admits ageing out', () => {
    const k = new SplitKey(fleet(10, 2));
    k.decide(0, 3);
    k.decide(10, 2);
    expect(k.remaining(20)).toBe(0);
    expect(k.resetAt(20)).toBe(1000);
    expect(k.nextChangeAt(20)).toBe(1000);
    expect(k.retryAt(20, 1, 100)).toBe(1000);
    expect(k.retryAt(20, 3, 100)).toBe(1000);
    expect(k.retryAt(20, 4, 100)).toBe(1010);
    expect(k.remaining(1000)).toBe(3);
    expect(k.resetAt(1000)).toBe(1010);
    expect(k.retryAt(1000, 1, 1100)).toBe(1000);
    expect(k.isIdle(1009)).toBe(false);
    expect(k.isIdle(1010)).toBe(true);
    expect(k.resetAt(1010)).toBe(Number.POSITIVE_INFINITY);
  });

  it('a clock that went back makes its admit the oldest', () => {
    const k = new SplitKey(fleet(10, 2));
    k.decide(500, 1);
    k.decide(400, 1);
    expect(k.resetAt(450)).toBe(1400);
    expect(k.remaining(1400)).toBe(4);
  });

  it('Retry-After asked again sees every change since it was last asked', () => {
    const f = fleet(10, 2); // a share of 5
    const k = new SplitKey(f);
    for (const t of [0, 1, 2]) k.decide(t, 1);
    // room for 1 now, and later at the same count; for 3 once one admit left
    expect(k.retryAt(20, 1, 100)).toBe(20);
    expect(k.retryAt(25, 1, 100)).toBe(25);
    expect(k.retryAt(22, 1, 100)).toBe(22); // a clock that went back
    expect(k.retryAt(30, 3, 100)).toBe(1000);
    // another admit: two must leave
    k.decide(31, 1);
    expect(k.retryAt(32, 3, 100)).toBe(1001);
    expect(k.retryAt(32, 2, 100)).toBe(1000);
    // gateways 'auto': K fell, the share grew
    f.gateways = 1;
    expect(k.retryAt(33, 2, 100)).toBe(33);
    f.gateways = 2;
    k.decide(34, 1); // full: 5
    expect(k.retryAt(40, 2, 100)).toBe(1001);
    // at 1000 the oldest left and a new admit took its place: the same count, another oldest
    expect(k.decide(1000, 1)).toBe(ALLOW);
    expect(k.retryAt(1000, 2, 1100)).toBe(1002);
  });
});
