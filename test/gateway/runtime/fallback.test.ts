import { describe, expect, it } from 'vitest';
import type { Policy } from '../../../src/config.js';
import { Fallback } from '../../../src/gateway/runtime/fallback.js';

/**
 * One key's outage admits (fail modes local and open) on their own: what they count, what a sync
 * takes and when the key may leave. Found by Stryker (docs/testing.md): take had no unit test, so
 * sending aged-out outage admits went unseen.
 */
const policy: Policy = { limit: 10, windowMs: 100, windowKind: 'sliding' };

describe('Fallback', () => {
  it('records up to the cap of live admits, counts and resets by the oldest', () => {
    const fb = new Fallback(policy);
    expect(fb.resetAt(0)).toBe(Number.POSITIVE_INFINITY);
    expect(fb.record(10, 3, 5)).toBe(3);
    expect(fb.record(20, 3, 5)).toBe(2);
    expect(fb.live(20)).toBe(5);
    expect(fb.resetAt(20)).toBe(110);
    expect(fb.unconfirmed).toBe(5);
    // at 110 the three of 10 aged out: room for three more
    expect(fb.record(110, 4, 5)).toBe(3);
    expect(fb.live(110)).toBe(5);
  });

  it('a sync takes the unpushed admits that still count; confirm ends them; idle once nothing counts', () => {
    const fb = new Fallback(policy);
    fb.record(10, 2, 10);
    fb.record(60, 1, 10);
    // at 110 the two of 10 no longer count: the store would drop them, so they are not sent
    expect(fb.take(110)).toEqual({ t: [60], n: [1] });
    expect(fb.unconfirmed).toBe(1);
    expect(() => fb.take(111)).toThrow(/already in an unanswered sync/);
    expect(fb.isIdle(150)).toBe(false); // still in flight
    fb.confirm();
    expect(fb.unconfirmed).toBe(0);
    expect(fb.isIdle(159)).toBe(false); // 60 counts until 160
    expect(fb.isIdle(160)).toBe(true);
    // nothing left to take, and a take of nothing leaves nothing in flight
    expect(fb.take(160)).toEqual({ t: [], n: [] });
    expect(fb.unconfirmed).toBe(0);
    expect(fb.isIdle(160)).toBe(true);
  });

  it('unpushed admits that aged out are dropped once the key is idle', () => {
    const fb = new Fallback(policy);
    fb.record(0, 2, 10);
    expect(fb.unconfirmed).toBe(2);
    expect(fb.isIdle(100)).toBe(true);
    expect(fb.unconfirmed).toBe(0);
  });

  it('admits at one instant are one run; at another instant a run of their own (Stryker survivors)', () => {
    const fb = new Fallback(policy);
    fb.record(10, 2, 10);
    fb.record(10, 1, 10);
    fb.record(20, 1, 10);
    // merged into the run before only at the same instant: a later admit merged into an earlier run
    // would leave the store's window early
    expect(fb.take(20)).toEqual({ t: [10, 20], n: [3, 1] });
  });

  it('an admit refused at the cap leaves no run behind (no zero-count push)', () => {
    const fb = new Fallback(policy);
    expect(fb.record(10, 3, 3)).toBe(3);
    expect(fb.record(20, 2, 3)).toBe(0);
    expect(fb.take(20)).toEqual({ t: [10], n: [3] });
  });

  it('not idle while an admit counts: its unpushed admits stay for the next sync', () => {
    const fb = new Fallback(policy);
    fb.record(10, 2, 10);
    expect(fb.isIdle(50)).toBe(false);
    expect(fb.unconfirmed).toBe(2);
    expect(fb.take(50)).toEqual({ t: [10], n: [2] });
  });

  it('with nothing recorded: never a reset, and nothing to take', () => {
    const fb = new Fallback(policy);
    expect(fb.resetAt(500)).toBe(Number.POSITIVE_INFINITY);
    fb.record(10, 1, 10);
    expect(fb.resetAt(200)).toBe(Number.POSITIVE_INFINITY);
  });
});
