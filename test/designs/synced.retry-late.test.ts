/**
 * SyncedKey.retryAt past its next sync when its own pushed admits are among those a reply counts past
 * its horizon (`late`; issue 32: Stryker found `pastOthers`, `unknownLows`, `toldExpiries` and
 * `lateExpiries` tested only without them). One shared-counter key, L = 5 per 10 s, K = 2, Δ = 1 s:
 * its own admit(s) at 50 are pushed at 100 and counted by a reply of 5 with horizon 4 100, so they
 * leave at 10 050, which only this gateway knows; the others' admits the reply counts leave no
 * earlier than its horizon (or the last instant told) and by 10 100 (the window of the reply's
 * instant). Each value is exact: [the instant, or Infinity and the instant before which it is not].
 */
import { describe, expect, it } from 'vitest';
import { makePolicy } from '../../src/config.js';
import { SharedCounterKey } from '../../src/designs/synced.js';
import type { SyncReply } from '../../src/store/contract.js';

const W = 10_000;
const INF = Number.POSITIVE_INFINITY;
const N = Number.NaN;

class Probe extends SharedCounterKey {
  answer(now: number, cost: number, syncAt: number): [number, number] {
    const at = this.retryAt(now, cost, syncAt);
    const memo = (this as unknown as { retry: { memo: { notBefore: number } } }).retry.memo;
    return [at, at < INF ? N : memo.notBefore];
  }
}

interface Own {
  /** Own admits at 50, each of this cost (one run). */
  admits: number;
  cost: number;
  readsOnRequest: boolean;
}

function late(reply: Partial<SyncReply>, own: Own): Probe {
  const lim = new Probe({
    policy: makePolicy(5, W),
    gateways: 2,
    syncMs: 1000,
    leaseTtlMs: 3000,
    horizonMs: 4000,
    readsOnRequest: own.readsOnRequest,
  });
  lim.syncEntry('k', 0);
  lim.applySync({ count: 0, expiries: [], horizon: 4000, granted: 0, grantExpiresAt: 0 }, 0);
  for (let i = 0; i < own.admits; i++) lim.decide(50, own.cost);
  lim.syncEntry('k', 100);
  lim.applySync({ count: 5, expiries: [], horizon: 4100, granted: 0, grantExpiresAt: 0, ...reply }, 100);
  return lim;
}

const ONE: Own = { admits: 1, cost: 1, readsOnRequest: false };

// [name, reply, own, cost, [at, notBefore] with the next sync at 1 100, and at 9 500]
const CASES: [string, Partial<SyncReply>, Own, number, [number, number], [number, number]][] = [
  // the others' one leaves at 6 000, its own at 10 050; the other three between 10 050 and 10 100
  ['past: another’s, then its own', { pastHorizonAt: [6000, 10_050] }, ONE, 1, [6000, N], [9500, N]],
  ['past: another’s, then its own', { pastHorizonAt: [6000, 10_050] }, ONE, 2, [10_050, N], [10_050, N]],
  ['past: another’s, then its own', { pastHorizonAt: [6000, 10_050] }, ONE, 3, [INF, 10_050], [INF, 10_050]],
  // its own first, then another's
  ['past: its own, then another’s', { pastHorizonAt: [10_050, 10_060] }, ONE, 1, [10_050, N], [10_050, N]],
  ['past: its own, then another’s', { pastHorizonAt: [10_050, 10_060] }, ONE, 2, [10_060, N], [10_060, N]],
  [
    'past: its own, then another’s',
    { pastHorizonAt: [10_050, 10_060] },
    ONE,
    3,
    [INF, 10_060],
    [INF, 10_060],
  ],
  // both its own (two admits, or one of cost 2): the other three from 10 050
  [
    'past: both its own',
    { pastHorizonAt: [10_050, 10_050] },
    { ...ONE, admits: 2 },
    2,
    [10_050, N],
    [10_050, N],
  ],
  [
    'past: both its own',
    { pastHorizonAt: [10_050, 10_050] },
    { ...ONE, admits: 2 },
    3,
    [INF, 10_050],
    [INF, 10_050],
  ],
  [
    'past: both its own, one run',
    { pastHorizonAt: [10_050, 10_050] },
    { ...ONE, cost: 2 },
    2,
    [10_050, N],
    [10_050, N],
  ],
  [
    'past: both its own, one run',
    { pastHorizonAt: [10_050, 10_050] },
    { ...ONE, cost: 2 },
    3,
    [INF, 10_050],
    [INF, 10_050],
  ],
  // a reply that tells two later than its own oldest does not agree with it: nothing more is known
  ['past, disagreeing', { pastHorizonAt: [10_060, 10_070] }, ONE, 1, [INF, 4100], [INF, 9500]],
  // more told than the others' admits it counts: nothing more is known (its own admit at 50 and one
  // other counted; 3 of 5 fit now)
  ['past, more than unknown', { count: 2, pastHorizonAt: [6000, 7000] }, ONE, 3, [200, N], [200, N]],
  ['past, more than unknown', { count: 2, pastHorizonAt: [6000, 7000] }, ONE, 4, [INF, 4100], [INF, 9500]],
  // the oldest told past the read: the oldest expiry alone is exact
  [
    'oldest, past beyond the read',
    { oldestExpiry: 6000, pastHorizonAt: [Number.NEGATIVE_INFINITY, 7000] },
    ONE,
    1,
    [6000, N],
    [9500, N],
  ],
  [
    'oldest, past beyond the read',
    { oldestExpiry: 6000, pastHorizonAt: [Number.NEGATIVE_INFINITY, 7000] },
    ONE,
    2,
    [INF, 6000],
    [INF, 9500],
  ],
  // the count stays at 5 until 6 000 and at 4 until 8 000, its own admit (10 050) among those staying:
  // one of the others' leaves at 6 000, three at 8 000
  ['below', { belowLimitAt: [6000, 8000] }, ONE, 1, [INF, 6000], [INF, 9500]],
  ['below', { belowLimitAt: [6000, 8000] }, ONE, 2, [INF, 8000], [INF, 9500]],
  [
    'below, its own of cost 2',
    { belowLimitAt: [6000, 8000] },
    { ...ONE, cost: 2 },
    4,
    [INF, 10_050],
    [INF, 10_050],
  ],
  ['below at its own', { belowLimitAt: [10_050, 10_050] }, ONE, 1, [10_050, N], [10_050, N]],
  ['below at its own', { belowLimitAt: [10_050, 10_050] }, ONE, 2, [INF, 10_050], [INF, 10_050]],
];

describe('SyncedKey.retryAt with its own admits counted past the horizon', () => {
  for (const [name, reply, own, cost, early, lateSync] of CASES) {
    it(`${name}, cost ${cost}: ${early.join(' / ')}, ${lateSync.join(' / ')}`, () => {
      expect(late(reply, own).answer(200, cost, 1100)).toEqual(early);
      expect(late(reply, own).answer(200, cost, 9500)).toEqual(lateSync);
    });
  }
});

describe('SyncedKey.retryAt with reads on request: its late admit in the view’s list', () => {
  // the view lists 2 000 (the reply's) and 10 050 (its own, past the horizon): one of the others
  // leaves at 2 000, the other three between 4 100 and 10 100
  const onReq: Own = { ...ONE, readsOnRequest: true };
  it('the reply’s expiry is walked as listed, its own as late', () => {
    const lim = late({ expiries: [2000], oldestExpiry: 2000 }, onReq);
    expect(lim.answer(200, 1, 1100)).toEqual([2000, N]);
    expect(late({ expiries: [2000] }, onReq).answer(200, 2, 1100)).toEqual([INF, 4100]);
  });

  it('its own of cost 2 leaves at 10 050 with the others: 4 of 5 then', () => {
    const lim = late({ expiries: [2000] }, { ...onReq, cost: 2 });
    expect(lim.answer(200, 4, 1100)).toEqual([INF, 10_050]);
    expect(late({ expiries: [2000] }, { ...onReq, cost: 2 }).answer(200, 4, 9500)).toEqual([INF, 10_050]);
  });
});

/** A key synced at 0 (nothing counted), with own admits at `own` pushed at 100 and `reply` at 100. */
function pushed(own: number[], reply: Partial<SyncReply>, readsOnRequest = false): Probe {
  const lim = late({ count: 0 }, { admits: 0, cost: 1, readsOnRequest });
  for (const t of own) lim.decide(t, 1);
  lim.syncEntry('k', 100);
  lim.applySync({ count: 5, expiries: [], horizon: 4100, granted: 0, grantExpiresAt: 0, ...reply }, 100);
  return lim;
}

describe('SyncedKey.retryAt: its late admits at the edges', () => {
  it('two runs of its own told past the horizon (10 050, 10 060): the other three no earlier', () => {
    const lim = () => pushed([50, 60], { pastHorizonAt: [10_050, 10_060] });
    expect(lim().answer(200, 1, 1100)).toEqual([10_050, N]);
    expect(lim().answer(200, 2, 1100)).toEqual([10_060, N]);
    expect(lim().answer(200, 3, 1100)).toEqual([INF, 10_060]);
  });

  it('below at another’s (6 000) and at its own (10 050): its own stays till then, one other leaves at 6 000', () => {
    const lim = () => pushed([50], { belowLimitAt: [6000, 10_050] });
    expect(lim().answer(200, 1, 1100)).toEqual([INF, 6000]);
    expect(lim().answer(200, 1, 9500)).toEqual([INF, 9500]);
    expect(lim().answer(200, 2, 1100)).toEqual([INF, 10_050]);
  });

  it('its own admit expiring at the reply’s horizon is its own late one, not a listed one', () => {
    for (const onRequest of [false, true]) {
      const lim = () => pushed([50], { expiries: [2000], horizon: 10_050 }, onRequest);
      expect(lim().answer(200, 1, 1100)).toEqual([2000, N]);
      expect(lim().answer(200, 2, 1100)).toEqual([10_050, N]);
      expect(lim().answer(200, 3, 1100)).toEqual([INF, 10_050]);
    }
  });

  it('with reads on request, the reply’s counts of its listed expiries', () => {
    const lim = () => pushed([50], { expiries: [2000], expiryCounts: [2] }, true);
    expect(lim().answer(200, 2, 1100)).toEqual([2000, N]);
    expect(lim().answer(200, 3, 1100)).toEqual([INF, 4100]);
  });

  it('a push across a later horizon: the admit the reply lists is not late', () => {
    // own admits at 50 and 3 000, pushed at 3 100 and counted past that reply's horizon (4 100); the
    // reply at 4 000 lists 10 050 (before its horizon, 12 000) and counts 3 000's (13 000) unlisted
    const lim = () => {
      const l = late({ count: 0 }, { admits: 0, cost: 1, readsOnRequest: false });
      l.decide(50, 1);
      l.decide(3000, 1);
      l.syncEntry('k', 3100);
      l.applySync({ count: 2, expiries: [], horizon: 4100, granted: 0, grantExpiresAt: 0 }, 3100);
      l.syncEntry('k', 4000);
      l.applySync({ count: 5, expiries: [10_050], horizon: 12_000, granted: 0, grantExpiresAt: 0 }, 4000);
      return l;
    };
    expect(lim().answer(4100, 1, 5000)).toEqual([10_050, N]);
    expect(lim().answer(4100, 2, 5000)).toEqual([INF, 12_000]);
  });
});
