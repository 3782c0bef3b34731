/**
 * SyncedKey.retryAt past its next sync when the store counts admits it does not list (issue 32:
 * Stryker left `firstAdmit`'s walk of those admits, known only as a count, at 47.5 %). One
 * shared-counter key, L = 5 per 10 s, K = 2, Δ = 1 s; a reply at 0 (horizon 4 000) counts admits and
 * lists none of them, with or without SyncReply.oldestExpiry, belowLimitAt and pastHorizonAt. Every
 * value is exact: the instant an admit of `cost` is possible (`at`), or Infinity and the instant
 * before which it is not (`notBefore`, RetryMemo). The unknown admits leave no earlier than the
 * horizon (or the last instant told) and no later than 10 000 (the window of the reply's instant).
 */
import { describe, expect, it } from 'vitest';
import { makePolicy } from '../../src/config.js';
import { AdaptiveKey } from '../../src/designs/adaptive.js';
import type { FleetParams } from '../../src/designs/key-limiter.js';
import { SharedCounterKey } from '../../src/designs/synced.js';
import type { SyncReply } from '../../src/store/contract.js';

const W = 10_000;
const INF = Number.POSITIVE_INFINITY;

type Reply = Partial<SyncReply> & { count: number };

/** The memo's answer: the instant, and where it is Infinity its lower bound. */
class Probe extends SharedCounterKey {
  answer(now: number, cost: number, syncAt: number): [number, number] {
    const at = this.retryAt(now, cost, syncAt);
    const memo = (this as unknown as { retry: { memo: { notBefore: number } } }).retry.memo;
    return [at, at < INF ? Number.NaN : memo.notBefore];
  }
}

function probe(reply: Reply, opts: { horizonMs?: number; own?: number[] } = {}): Probe {
  const p: FleetParams = {
    policy: makePolicy(5, W),
    gateways: 2,
    syncMs: 1000,
    leaseTtlMs: 3000,
    horizonMs: opts.horizonMs ?? 4000,
  };
  const lim = new Probe(p);
  lim.syncEntry('k', 0);
  lim.applySync({ expiries: [], horizon: 4000, granted: 0, grantExpiresAt: 0, ...reply }, 0);
  for (const t of opts.own ?? []) lim.decide(t, 1);
  return lim;
}

const N = Number.NaN;

// [reply, cost, syncAt, at, notBefore, horizonMs (4 000)]
const FULL: [string, Reply, number, number, number, number, number?][] = [
  // nothing told: every unknown admit may leave at the horizon, or at 10 000: it cannot know
  ['count alone', { count: 5 }, 1, 1000, INF, 4000],
  ['count alone', { count: 5 }, 3, 9000, INF, 9000],
  // at or past 10 000 (the window of the reply's instant) every one has left
  ['count alone', { count: 5 }, 1, 10_000, 10_000, N],
  ['count alone', { count: 5 }, 3, 11_000, 11_000, N],
  // the oldest leaves exactly at oldestExpiry: one admit is certain then, two are not
  ['oldest', { count: 5, oldestExpiry: 6000 }, 1, 1000, 6000, N],
  ['oldest', { count: 5, oldestExpiry: 6000 }, 1, 6500, 6500, N],
  ['oldest', { count: 5, oldestExpiry: 6000 }, 2, 1000, INF, 6000],
  ['oldest', { count: 5, oldestExpiry: 6000 }, 2, 6000, INF, 6000],
  ['oldest', { count: 5, oldestExpiry: 6000 }, 2, 9000, INF, 9000],
  ['oldest', { count: 5, oldestExpiry: 6000 }, 2, 10_000, 10_000, N],
  // an oldest expiry before the horizon: that one has left by the horizon, which is the answer
  ['oldest before horizon', { count: 5, oldestExpiry: 3000 }, 1, 1000, 4000, N],
  ['oldest before horizon', { count: 5, oldestExpiry: 3000 }, 2, 1000, INF, 4000],
  // the count stays at 5 until 6 000 and at 4 until 8 000
  ['below', { count: 5, belowLimitAt: [6000, 8000] }, 1, 1000, INF, 6000],
  ['below', { count: 5, belowLimitAt: [6000, 8000] }, 2, 1000, INF, 8000],
  ['below', { count: 5, belowLimitAt: [6000, 8000] }, 2, 6500, INF, 8000],
  ['below', { count: 5, belowLimitAt: [6000, 8000] }, 2, 9000, INF, 9000],
  ['below past the read', { count: 5, belowLimitAt: [Number.NEGATIVE_INFINITY, 8000] }, 1, 1000, INF, 4000],
  ['below with the oldest', { count: 5, oldestExpiry: 5000, belowLimitAt: [6000, 8000] }, 1, 1000, INF, 6000],
  ['below with the oldest', { count: 5, oldestExpiry: 7000, belowLimitAt: [6000, 8000] }, 2, 1000, INF, 8000],
  // the two oldest unlisted (others') leave at 6 000 and 7 000, the other three no earlier than 7 000
  ['past', { count: 5, pastHorizonAt: [6000, 7000] }, 1, 1000, 6000, N],
  ['past', { count: 5, pastHorizonAt: [6000, 7000] }, 1, 6500, 6500, N],
  ['past', { count: 5, pastHorizonAt: [6000, 7000] }, 2, 1000, 7000, N],
  ['past', { count: 5, pastHorizonAt: [6000, 7000] }, 2, 6500, 7000, N],
  ['past', { count: 5, pastHorizonAt: [6000, 7000] }, 2, 7000, 7000, N],
  ['past', { count: 5, pastHorizonAt: [6000, 7000] }, 3, 1000, INF, 7000],
  ['past', { count: 5, pastHorizonAt: [6000, 7000] }, 3, 9000, INF, 9000],
  ['past', { count: 5, pastHorizonAt: [6000, 7000] }, 3, 10_000, 10_000, N],
  ['past, one told', { count: 5, pastHorizonAt: [6000, INF] }, 1, 1000, 6000, N],
  ['past, one told', { count: 5, pastHorizonAt: [6000, INF] }, 2, 1000, INF, 6000],
  ['past beyond the read', { count: 5, pastHorizonAt: [Number.NEGATIVE_INFINITY, 7000] }, 1, 1000, INF, 4000],
  ['past, same instant', { count: 5, pastHorizonAt: [6000, 6000] }, 2, 1000, 6000, N],
  ['past, same instant', { count: 5, pastHorizonAt: [6000, 6000] }, 3, 1000, INF, 6000],
  [
    'past and below',
    { count: 5, oldestExpiry: 6000, pastHorizonAt: [6000, 7000], belowLimitAt: [6000, 8000] },
    2,
    1000,
    7000,
    N,
  ],
  [
    'past and below',
    { count: 5, oldestExpiry: 6000, pastHorizonAt: [6000, 7000], belowLimitAt: [6000, 8000] },
    3,
    1000,
    INF,
    8000,
  ],
  // one listed (2 000) leaves first; then the two told past the horizon
  [
    'listed and past',
    { count: 5, expiries: [2000], oldestExpiry: 2000, pastHorizonAt: [6000, 7000] },
    1,
    6500,
    2000,
    N,
  ],
  [
    'listed and past',
    { count: 5, expiries: [2000], oldestExpiry: 2000, pastHorizonAt: [6000, 7000] },
    2,
    1000,
    6000,
    N,
  ],
  [
    'listed and past',
    { count: 5, expiries: [2000], oldestExpiry: 2000, pastHorizonAt: [6000, 7000] },
    3,
    1000,
    7000,
    N,
  ],
  [
    'listed and past',
    { count: 5, expiries: [2000], oldestExpiry: 2000, pastHorizonAt: [6000, 7000] },
    4,
    1000,
    INF,
    7000,
  ],
  // a horizon of 500 ms: an admit leaving at or past the next reply's horizon (its sync + 500) is not
  // walked past (it may still be counted then), however sure its instant
  ['oldest, short horizon', { count: 5, oldestExpiry: 6000 }, 1, 5500, INF, 6000, 500],
  ['oldest, short horizon', { count: 5, oldestExpiry: 6000 }, 1, 5600, 6000, N, 500],
  ['oldest, short horizon', { count: 5, oldestExpiry: 6000 }, 1, 6000, 6000, N, 500],
  ['past, short horizon', { count: 5, pastHorizonAt: [6000, 7000] }, 2, 6500, INF, 7000, 500],
  ['past, short horizon', { count: 5, pastHorizonAt: [6000, 7000] }, 2, 6600, 7000, N, 500],
  // the count stays at 5 until 10 000: all five leave then, which a reply at 9 800 would tell
  ['below at the window', { count: 5, belowLimitAt: [10_000, 10_000] }, 1, 9800, 10_000, N, 500],
  ['below at the window', { count: 5, belowLimitAt: [10_000, 10_000] }, 1, 9500, INF, 10_000, 500],
  ['below at the window', { count: 5, belowLimitAt: [10_000, 10_000] }, 1, 1000, INF, 10_000, 500],
  ['below at the window', { count: 5, belowLimitAt: [10_000, 10_000] }, 1, 1000, 10_000, N],
  // a listed admit gone by the sync counts nothing
  ['listed', { count: 5, expiries: [2000], oldestExpiry: 2000 }, 2, 3000, INF, 4000],
];

describe('SyncedKey.retryAt: admits the store counts and does not list, no own admit', () => {
  for (const [name, reply, cost, syncAt, at, notBefore, horizonMs] of FULL) {
    it(`${name}, cost ${cost}, next sync ${syncAt}: ${at} (not before ${notBefore})`, () => {
      expect(probe(reply, { horizonMs }).answer(100, cost, syncAt)).toEqual([at, notBefore]);
    });
  }
});

// with one own admit at 50 (leaving at 10 050): 3 + 1 of L = 5 count
const OWN: [string, Reply, number, number, number, number, number][] = [
  ['past', { count: 3, pastHorizonAt: [6000, 7000] }, 4000, 1, 1000, 100, N],
  ['past', { count: 3, pastHorizonAt: [6000, 7000] }, 4000, 2, 1000, 6000, N],
  ['past', { count: 3, pastHorizonAt: [6000, 7000] }, 4000, 3, 1000, 7000, N],
  ['past', { count: 3, pastHorizonAt: [6000, 7000] }, 4000, 3, 9800, 9800, N],
  // its own admit leaves at 10 050, the others' by 10 000
  ['past', { count: 3, pastHorizonAt: [6000, 7000] }, 4000, 2, 11_000, 10_050, N],
  ['past', { count: 3, pastHorizonAt: [6000, 7000] }, 4000, 2, 10_050, 10_050, N],
  ['oldest', { count: 3, oldestExpiry: 6000 }, 4000, 2, 1000, 6000, N],
  ['oldest', { count: 3, oldestExpiry: 6000 }, 4000, 3, 1000, INF, 6000],
  ['oldest', { count: 3, oldestExpiry: 6000 }, 4000, 3, 9800, INF, 9800],
  ['oldest', { count: 3, oldestExpiry: 6000 }, 4000, 3, 10_050, 10_050, N],
  ['count alone', { count: 3 }, 4000, 2, 1000, INF, 4000],
  ['count alone', { count: 3 }, 4000, 2, 10_050, 10_050, N],
  ['count alone', { count: 3 }, 4000, 3, 11_000, 11_000, N],
  // a horizon of 500 ms, shorter than Δ: its own admit (10 050) is not listed by a reply before
  // 10 050 − 500, so it may still be counted then: from a sync at 1 000 it cannot know
  ['past, short horizon', { count: 3, pastHorizonAt: [6000, 7000] }, 500, 2, 1000, INF, 6000],
  ['past, short horizon', { count: 3, pastHorizonAt: [6000, 7000] }, 500, 2, 6500, 6500, N],
  ['past, short horizon', { count: 3, pastHorizonAt: [6000, 7000] }, 500, 3, 1000, INF, 7000],
  ['past, short horizon', { count: 3, pastHorizonAt: [6000, 7000] }, 500, 3, 9800, 9800, N],
  ['oldest, short horizon', { count: 3, oldestExpiry: 6000 }, 500, 2, 1000, INF, 6000],
  ['oldest, short horizon', { count: 3, oldestExpiry: 6000 }, 500, 2, 9800, 9800, N],
  // at 8 000 the others' two told have left, one unknown may count until 10 000, its own until
  // 10 050 (not seen by a reply at 8 000 + 500): 2 of L may still count, no room for 4
  ['past, short horizon', { count: 3, pastHorizonAt: [6000, 7000] }, 500, 4, 8000, INF, 8000],
  // at 9 550 its own admit (10 050) is at the next reply's horizon: not walked past
  ['past, short horizon', { count: 3, pastHorizonAt: [6000, 7000] }, 500, 5, 9550, INF, 10_050],
  ['past, short horizon', { count: 3, pastHorizonAt: [6000, 7000] }, 500, 5, 9600, 10_050, N],
  // all five of L: the others' four have left by 10 000 (the oldest at 6 000), its own at 10 050
  ['oldest, all five', { count: 4, oldestExpiry: 6000 }, 4000, 5, 1000, 10_050, N],
  ['oldest, all five', { count: 4, oldestExpiry: 6000 }, 4000, 5, 10_000, 10_050, N],
  // a horizon of Δ: the next reply lists its own admit
  ['past, horizon Δ', { count: 3, pastHorizonAt: [6000, 7000] }, 1000, 2, 1000, 6000, N],
  // the store's count all listed (2 000, 3 000): nothing unknown; its own admit (10 050) leaves
  // when a reply can see it, else it counts on
  ['listed', { count: 2, expiries: [2000, 3000] }, 4000, 3, 1000, 2000, N],
  ['listed', { count: 2, expiries: [2000, 3000] }, 4000, 4, 1000, 3000, N],
  ['listed', { count: 2, expiries: [2000, 3000] }, 4000, 5, 1000, 10_050, N],
  ['listed, short horizon', { count: 2, expiries: [2000, 3000] }, 500, 4, 1000, 3000, N],
  [
    'listed, short horizon',
    { count: 2, expiries: [2000, 3000] },
    500,
    5,
    1000,
    INF,
    Number.NEGATIVE_INFINITY,
  ],
];

describe('SyncedKey.retryAt: admits the store counts and does not list, with an own admit since', () => {
  for (const [name, reply, horizonMs, cost, syncAt, at, notBefore] of OWN) {
    it(`${name}, horizon ${horizonMs}, cost ${cost}, next sync ${syncAt}: ${at} (not before ${notBefore})`, () => {
      expect(probe(reply, { horizonMs, own: [50] }).answer(100, cost, syncAt)).toEqual([at, notBefore]);
    });
  }
});

describe('SyncedKey.retryAt: a key never synced, and its own admits the store counts past the horizon', () => {
  it('never synced: what the others admitted is unknown, no bound', () => {
    const p: FleetParams = {
      policy: makePolicy(5, W),
      gateways: 2,
      syncMs: 1000,
      leaseTtlMs: 3000,
      horizonMs: 4000,
    };
    const lim = new Probe(p);
    for (let i = 0; i < 5; i++) lim.decide(50, 1);
    expect(lim.answer(100, 1, 1000)).toEqual([INF, Number.NEGATIVE_INFINITY]);
  });

  // its own admit at 50 pushed at 100, counted by a reply of 5 with horizon 4 100: it is the late one
  // (10 050); the oldest told leaves exactly then only when it is not its own
  function late(oldestExpiry: number): Probe {
    const p: FleetParams = {
      policy: makePolicy(5, W),
      gateways: 2,
      syncMs: 1000,
      leaseTtlMs: 3000,
      horizonMs: 4000,
    };
    const lim = new Probe(p);
    lim.syncEntry('k', 0);
    lim.applySync({ count: 0, expiries: [], horizon: 4000, granted: 0, grantExpiresAt: 0 }, 0);
    lim.decide(50, 1);
    lim.syncEntry('k', 100);
    lim.applySync(
      { count: 5, expiries: [], horizon: 4100, granted: 0, grantExpiresAt: 0, oldestExpiry },
      100,
    );
    return lim;
  }
  for (const [oldest, cost, at, notBefore] of [
    [6000, 1, 6000, N],
    [6000, 2, INF, 6000],
    // the oldest is its own: one leaves at 10 050, no other is sure to then
    [10_050, 1, 10_050, N],
    [10_050, 2, INF, 10_050],
    [10_060, 1, 10_050, N],
    [10_060, 2, INF, 10_060],
  ]) {
    it(`oldest ${oldest}, cost ${cost}: ${at} (not before ${notBefore})`, () => {
      expect(late(oldest).answer(200, cost, 1100)).toEqual([at, notBefore]);
    });
  }
});

describe('SyncedKey.retryAt of an adaptive key: the cap before its next sync and after it', () => {
  // K = 8, L = 100: ten admits of its own at 50 are all the reply at 100 counts (past its horizon),
  // so its share is 1 and decide has no cap; right after a sync the share is not known yet and the
  // cap is 4 × 1/8 of the headroom (45 with its ten counting, 50 with none)
  function tenOwn(): AdaptiveKey {
    const p: FleetParams = {
      policy: makePolicy(100, W),
      gateways: 8,
      syncMs: 1000,
      leaseTtlMs: 3000,
      horizonMs: 4000,
    };
    const lim = new AdaptiveKey(p, 0);
    lim.syncEntry('k', 0);
    lim.applySync({ count: 0, expiries: [], horizon: 4000, granted: 0, grantExpiresAt: 0 }, 0);
    for (let i = 0; i < 10; i++) lim.decide(50, 1);
    lim.syncEntry('k', 100);
    lim.applySync({ count: 10, expiries: [], horizon: 4100, granted: 0, grantExpiresAt: 0 }, 100);
    return lim;
  }

  it('before the sync its share of 1 leaves 60 of 90 uncapped: now', () => {
    expect(tenOwn().retryAt(200, 60, 1100)).toBe(200);
  });

  it('95 fits only past its own ten (10 050), where the cap after a sync (50) refuses it: never', () => {
    expect(tenOwn().retryAt(200, 95, 1100)).toBe(INF);
  });
});
