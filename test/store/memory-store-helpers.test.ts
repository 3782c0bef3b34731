import { describe, expect, it } from 'vitest';
import type { Policy } from '../../src/config.js';
import { boundedSweep } from '../support/bounded-sweep.js';

/**
 * MemoryStore beyond the store contract: the simulator's one-policy helpers (headExpiry,
 * latestExpiry, freeSlots, renewLease, outstandingOf), and records leaving once nothing in them
 * counts (the lazy sweep). Found by Stryker (docs/testing.md): these had no unit test of their own.
 */
const policy: Policy = { limit: 5, windowMs: 100, windowKind: 'sliding' };

describe('MemoryStore helpers', () => {
  it('headExpiry, latestExpiry and freeSlots read the only policy’s key', () => {
    const s = boundedSweep();
    expect(s.headExpiry('k')).toBe(Number.POSITIVE_INFINITY);
    expect(s.latestExpiry('k')).toBe(Number.NEGATIVE_INFINITY);
    expect(s.freeSlots('k', 0)).toBe(Number.POSITIVE_INFINITY);
    s.logAdmit({ key: 'k', policy, cost: 2 }, 10);
    s.logAdmit({ key: 'k', policy, cost: 1 }, 30);
    expect(s.headExpiry('k')).toBe(110);
    expect(s.latestExpiry('k')).toBe(130);
    expect(s.freeSlots('k', 40)).toBe(2);
    expect(s.ask({ gatewayId: 'g', key: 'k', policy, leaseTtlMs: 50, ask: 1 }, 40).granted).toBe(1);
    expect(s.freeSlots('k', 41)).toBe(1);
    expect(s.outstandingOf('k', policy, 41)).toBe(1);
    expect(s.outstandingOf('other', policy, 41)).toBe(0);
    // a second policy: the helpers that take none refuse to guess
    s.logAdmit({ key: 'k', policy: { ...policy, name: 'b' }, cost: 1 }, 42);
    expect(() => s.headExpiry('k')).toThrow(/2 policies/);
  });

  it('latestExpiryInto writes what latestExpiry returns: none, a grant alone, admits, a fixed window', () => {
    const s = boundedSweep();
    const out = { from: 0 };
    const same = (key: string) => {
      s.latestExpiryInto(key, out);
      expect(out.from).toBe(s.latestExpiry(key));
      return out.from;
    };
    expect(same('k')).toBe(Number.NEGATIVE_INFINITY);
    s.ask({ gatewayId: 'g', key: 'k', policy, leaseTtlMs: 50, ask: 2 }, 0);
    expect(same('k')).toBe(Number.NEGATIVE_INFINITY);
    s.logAdmit({ key: 'k', policy, cost: 1 }, 30);
    s.logAdmit({ key: 'k', policy, cost: 1 }, 20);
    expect(same('k')).toBe(130);
    const f = boundedSweep();
    f.logAdmit({ key: 'f', policy: { ...policy, windowKind: 'fixed' }, cost: 1 }, 130);
    f.latestExpiryInto('f', out);
    expect(out.from).toBe(200);
    expect(out.from).toBe(f.latestExpiry('f'));
  });

  it('a key holding only a grant has no latest admit, and renewing a grant it does not hold does nothing', () => {
    const s = boundedSweep();
    s.ask({ gatewayId: 'g', key: 'k', policy, leaseTtlMs: 50, ask: 2 }, 0);
    expect(s.latestExpiry('k')).toBe(Number.NEGATIVE_INFINITY);
    s.logAdmit({ key: 'j', policy, cost: 1 }, 0);
    s.renewLease('j', 'g', 500); // j has admits, no grant
    expect(s.freeSlots('j', 10)).toBe(4);
  });

  it('a call voided before it landed is refused on an empty key with no oldest expiry', () => {
    const s = boundedSweep();
    s.voidLogAdmits('g', policy, [{ key: 'k', seq: 3, cost: 1 }], 0);
    expect(s.logAdmit({ key: 'k', policy, cost: 1, call: { gatewayId: 'g', seq: 3 } }, 10)).toEqual({
      allowed: false,
      count: 0,
      oldestExpiry: Number.POSITIVE_INFINITY,
      now: 10,
    });
  });

  it('renewLease moves a grant’s lapse later, never earlier; the store counts it until then', () => {
    const s = boundedSweep();
    expect(s.ask({ gatewayId: 'g', key: 'k', policy, leaseTtlMs: 50, ask: 5 }, 0)).toMatchObject({
      granted: 5,
      grantExpiresAt: 50,
    });
    s.renewLease('k', 'g', 40); // earlier: ignored
    s.renewLease('k', 'other', 500); // no grant: ignored
    s.renewLease('nokey', 'g', 500);
    // the earlier renewal left the lapse the gateway was told: a refused ask reports it
    expect(s.ask({ gatewayId: 'g', key: 'k', policy, leaseTtlMs: 50, ask: 1 }, 10)).toMatchObject({
      granted: 0,
      grantExpiresAt: 50,
    });
    // counted until an admit at its lapse (50) would age out: 150
    expect(s.logAdmit({ key: 'k', policy, cost: 1 }, 149).allowed).toBe(false);
    expect(s.logAdmit({ key: 'k', policy, cost: 1 }, 150).allowed).toBe(true);
    const r = boundedSweep();
    r.ask({ gatewayId: 'g', key: 'k', policy, leaseTtlMs: 50, ask: 5 }, 0);
    r.renewLease('k', 'g', 80);
    expect(r.logAdmit({ key: 'k', policy, cost: 1 }, 150).allowed).toBe(false);
    expect(r.logAdmit({ key: 'k', policy, cost: 1 }, 180).allowed).toBe(true);
  });

  it('a cost over the limit is refused with the key’s count and oldest expiry, adding nothing', () => {
    const s = boundedSweep();
    // a cost of exactly L fits an empty key
    expect(s.logAdmit({ key: 'full', policy, cost: 5 }, 0)).toEqual({
      allowed: true,
      count: 5,
      oldestExpiry: 100,
      now: 0,
    });
    s.logAdmit({ key: 'k', policy, cost: 3 }, 10);
    expect(s.logAdmit({ key: 'k', policy, cost: 6 }, 20)).toEqual({
      allowed: false,
      count: 3,
      oldestExpiry: 110,
      now: 20,
    });
    // what aged out is not counted in the refusal
    expect(s.logAdmit({ key: 'k', policy, cost: 6 }, 110)).toEqual({
      allowed: false,
      count: 0,
      oldestExpiry: Number.POSITIVE_INFINITY,
      now: 110,
    });
    // a refused key gets no record (k's empty one waits for the sweep)
    expect(s.logAdmit({ key: 'new', policy, cost: 6 }, 20).count).toBe(0);
    expect(s.keyCount).toBe(2);
  });

  it('keys leave the store once nothing in them counts: admits, grants and voids', () => {
    const s = boundedSweep();
    s.logAdmit({ key: 'a', policy, cost: 1 }, 0);
    s.ask({ gatewayId: 'g', key: 'b', policy, leaseTtlMs: 300, ask: 1 }, 0);
    s.voidLogAdmits('g', policy, [{ key: 'c', seq: 1, cost: 1 }], 0);
    s.logAdmit({ key: 'd', policy: { ...policy, name: 'other' }, cost: 1 }, 0);
    expect(s.keyCount).toBe(4);
    // at 100 the admits of a and d aged out; b's grant counts until 400, c's void until 100
    s.logAdmit({ key: 'x', policy, cost: 1 }, 100);
    expect(s.keyCount).toBe(2);
    expect(s.countOf('a', policy, 100)).toBe(0);
    s.logAdmit({ key: 'x', policy, cost: 1 }, 400);
    expect(s.keyCount).toBe(1);
    expect(s.outstandingOf('b', policy, 400)).toBe(0);
  });

  it('a key swept while it still counts something leaves once the rest ages out', () => {
    const s = boundedSweep();
    s.logAdmit({ key: 'a', policy, cost: 1 }, 0);
    s.logAdmit({ key: 'a', policy, cost: 1 }, 50);
    // at 100 the sweep finds a's admit at 50 still counting; at 150 nothing is left
    s.logAdmit({ key: 'x', policy, cost: 1 }, 100);
    expect(s.keyCount).toBe(2);
    s.logAdmit({ key: 'y', policy, cost: 1 }, 150);
    expect(s.keyCount).toBe(2); // x and y
  });

  it('a key dropped and made again is not swept at the old record’s deadline', () => {
    const s = boundedSweep();
    const lease = (seq: number, ask: number) =>
      s.sync(
        {
          gatewayId: 'g',
          seq,
          policy,
          leaseTtlMs: 50,
          horizonMs: 0,
          entries: [{ key: 'k', admits: [], read: false, release: true, ask }],
        },
        10 * (seq - 1),
      );
    lease(1, 2); // counted until 150: the sweep will look at k then
    lease(2, 0); // handed back: k holds nothing and is dropped
    expect(s.keyCount).toBe(0);
    s.logAdmit({ key: 'k', policy, cost: 1 }, 100);
    s.logAdmit({ key: 'other', policy, cost: 1 }, 160); // the old record's turn in the sweep
    expect(s.countOf('k', policy, 170)).toBe(1);
  });
});
