/**
 * leases and leases-ask, one key with chosen replies, beyond leases.test.ts (issue 32: Stryker on
 * src/designs/leases.ts left Retry-After's rules, refunds, the grant's lapse across grants and the idle
 * run with irregular sync instants untested). L = 50 per W = 10 s, Δ = 1 s, lease TTL 3 s.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { makePolicy } from '../../src/config.js';
import { ALLOW, type FleetParams, NEED_STORE } from '../../src/designs/key-limiter.js';
import { LeaseKey } from '../../src/designs/leases.js';
import type { SyncReply } from '../../src/store/contract.js';
import { seeded } from '../support/fc-seed.js';

const DELTA = 1000;
const W = 10 * DELTA;
const TTL = 3 * DELTA;
const p: FleetParams = {
  policy: makePolicy(50, W),
  gateways: 2,
  syncMs: DELTA,
  leaseTtlMs: TTL,
  horizonMs: DELTA,
};
const INF = Number.POSITIVE_INFINITY;

interface View {
  count: number;
  oldestExpiry: number;
  free: number;
}

function reply(granted: number, now: number, view?: View, expiresAt = now + TTL): SyncReply {
  return { count: 0, expiries: [], horizon: now, granted, grantExpiresAt: expiresAt, ...view };
}

/** A key synced at 0, granted `granted` slots (lapsing at TTL), the store's view `view` if given. */
function synced(ask: boolean, granted: number, view?: View): LeaseKey {
  const k = new LeaseKey(p, ask, 0);
  k.syncEntry('k', 0);
  k.applySync(reply(granted, 0, view), 0);
  return k;
}

/** leases-ask refused by the store at `now` (an ask granting nothing): no ask until the next sync. */
function refuse(k: LeaseKey, now: number, view?: View): void {
  expect(k.decide(now, 50)).toBe(NEED_STORE);
  k.askSize(50);
  expect(k.onAskReply({ granted: 0, grantExpiresAt: now, now, ...view }, now, 50)).toBe(false);
}

describe('Retry-After (retryAt) from the store’s last view', () => {
  it('now while the slots held cover the cost, whatever a leases key would ask', () => {
    const k = synced(false, 2, { count: 0, oldestExpiry: INF, free: 0 });
    expect(k.retryAt(100, 2, DELTA)).toBe(100);
    expect(k.retryAt(100, 3, DELTA)).toBe(INF);
  });

  it('unknown without a view of the store or a next sync', () => {
    // no view: not even its own admit's expiry (the store's other admits are unknown)
    const k = synced(true, 1);
    expect(k.decide(100, 1)).toBe(ALLOW);
    expect(k.retryAt(200, 1, DELTA)).toBe(INF);
    const v = synced(true, 0, { count: 5, oldestExpiry: 7000, free: 0 });
    expect(v.retryAt(100, 1, DELTA)).toBe(7000);
    expect(v.retryAt(100, 1, INF)).toBe(INF);
    // a view of an empty store with a slot free: now
    const empty = synced(true, 0, { count: 0, oldestExpiry: INF, free: 1 });
    expect(empty.retryAt(100, 1, DELTA)).toBe(100);
  });

  it('leases-ask: now when the store has the slots free, else when its oldest admit leaves; one slot short at most', () => {
    const k = synced(true, 0, { count: 5, oldestExpiry: 7000, free: 1 });
    expect(k.retryAt(100, 1, DELTA)).toBe(100);
    expect(k.retryAt(100, 2, DELTA)).toBe(7000);
    expect(k.retryAt(100, 3, DELTA)).toBe(INF);
    // a slot held counts toward the cost
    const held = synced(true, 1, { count: 5, oldestExpiry: 7000, free: 0 });
    expect(held.retryAt(100, 2, DELTA)).toBe(7000);
    expect(held.retryAt(100, 3, DELTA)).toBe(INF);
    const none = synced(true, 0, { count: 5, oldestExpiry: 7000, free: 0 });
    expect(none.retryAt(100, 2, DELTA)).toBe(INF);
  });

  it('leases-ask refused: not before its next sync', () => {
    const k = synced(true, 0, { count: 5, oldestExpiry: 7000, free: 1 });
    refuse(k, 100, { count: 5, oldestExpiry: 7000, free: 1 });
    expect(k.retryAt(100, 1, DELTA)).toBe(DELTA);
    expect(k.retryAt(100, 2, DELTA)).toBe(7000);
    // a next sync far off: still that sync
    expect(k.retryAt(100, 1, 3 * DELTA)).toBe(3 * DELTA);
  });

  it('once the store’s oldest admit has left, it counts as free; the next leaves at an instant not told', () => {
    const k = synced(true, 0, { count: 3, oldestExpiry: 500, free: 0 });
    expect(k.retryAt(600, 1, DELTA)).toBe(600);
    expect(k.retryAt(600, 2, DELTA)).toBe(INF);
    // with an own admit not yet counted, one slot short: its expiry's sync, unless an untold admit of
    // the store may free the slot first (count > 1)
    const one = synced(true, 1, { count: 1, oldestExpiry: 500, free: 0 });
    expect(one.decide(100, 1)).toBe(ALLOW);
    expect(one.retryAt(600, 2, DELTA)).toBe(100 + W + 9 * 100);
    const three = synced(true, 1, { count: 3, oldestExpiry: 500, free: 0 });
    expect(three.decide(100, 1)).toBe(ALLOW);
    expect(three.retryAt(600, 2, DELTA)).toBe(INF);
    // refused until a sync that comes after the own admit has left: that sync is the soonest either way
    const late = synced(true, 1, { count: 3, oldestExpiry: 500, free: 0 });
    expect(late.decide(100, 1)).toBe(ALLOW);
    refuse(late, 200, { count: 3, oldestExpiry: 500, free: 0 });
    expect(late.retryAt(10_050, 2, 11_000)).toBe(11_000);
  });

  it('the own admit that leaves first: the oldest of a sync in flight and those since', () => {
    const k = synced(true, 1, { count: 1, oldestExpiry: 20_000, free: 0 });
    expect(k.decide(100, 1)).toBe(ALLOW);
    k.syncEntry('k', 500);
    expect(k.decide(600, 1)).toBe(NEED_STORE);
    k.askSize(1);
    expect(k.onAskReply({ granted: 1, grantExpiresAt: 3600, now: 600 }, 600, 1)).toBe(true);
    // in flight: 100, pending: 600
    expect(k.resetAt(700)).toBe(100 + W);
    // one slot short: the sync after 100 + W (syncs at 1500 + jΔ), before the store's oldest leaves
    expect(k.retryAt(700, 1, 1500)).toBe(10_500);
  });

  it('leases: the first sync from then whose ask covers the cost', () => {
    // no arrivals: it asks 1, so a cost of 2 never fits
    const quiet = synced(false, 0, { count: 0, oldestExpiry: INF, free: 5 });
    expect(quiet.retryAt(100, 1, DELTA)).toBe(DELTA);
    expect(quiet.retryAt(100, 1, 3 * DELTA)).toBe(3 * DELTA);
    expect(quiet.retryAt(100, 2, DELTA)).toBe(INF);
    const held = synced(false, 2, { count: 0, oldestExpiry: INF, free: 0 });
    expect(held.retryAt(100, 2, DELTA)).toBe(100);
    // only a sync brings slots: no change of its own before one
    expect(held.nextChangeAt(100)).toBe(INF);
  });

  /**
   * leases' Retry-After for a key with `before[i]` arrivals in the intervals before, `now_` in the
   * current one, a store one slot short until its oldest admit leaves at `oldest` after the last sync,
   * checked against the asks of the syncs run one by one from then.
   */
  function checkLeasesRetry(before: number[], now_: number, cost: number, oldest: number): void {
    // syncs at 1000, 2000, …
    const build = () => {
      const k = new LeaseKey(p, false, 0);
      let t = 0;
      for (const a of before) {
        t += DELTA;
        for (let i = 0; i < a; i++) k.noteRejected(1, t - 1);
        k.syncEntry('k', t);
        k.applySync(reply(0, t, { count: 1, oldestExpiry: t + oldest, free: cost - 1 }), t);
      }
      for (let i = 0; i < now_; i++) k.noteRejected(1, t + 1);
      return { k, t };
    };
    const { k, t } = build();
    const syncAt = t + DELTA;
    const at = k.retryAt(t + 1, cost, syncAt);
    // the reference: run the syncs and see which asks for the cost, from the store's oldest on
    const ref = build().k;
    let expected = INF;
    for (let s = syncAt; s <= syncAt + 40 * DELTA; s += DELTA) {
      const ask = ref.syncEntry('k', s).ask ?? 0;
      ref.applySync(reply(0, s), s);
      if (s >= t + oldest && ask >= cost) {
        expected = s;
        break;
      }
      if (s >= t + oldest) break;
    }
    expect(at, JSON.stringify({ before, now_, cost, oldest })).toBe(expected);
  }

  it('leases: the sync found agrees with what the key asks there (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.nat({ max: 40 }), { minLength: 1, maxLength: 6 }),
        fc.nat({ max: 40 }),
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 0, max: 30_000 }),
        checkLeasesRetry,
      ),
      seeded({ numRuns: 300 }),
    );
  });

  it('leases: the same on a grid of means, costs and the store’s oldest admit', () => {
    for (const before of [[3], [20], [40, 0], [5, 30, 0, 0], [12, 12, 12]])
      for (const now_ of [0, 1, 4, 17])
        for (let cost = 1; cost <= 12; cost++)
          for (const oldest of [0, 1500, 4000, 9000, 20_000]) checkLeasesRetry(before, now_, cost, oldest);
  });

  it('leases-ask: its own admit’s sync is no later for a mean that would not cover the cost', () => {
    const k = synced(true, 2, { count: 1, oldestExpiry: 500, free: 0 });
    expect(k.decide(100, 1)).toBe(ALLOW);
    // one held, one freed by the oldest admit: one slot short of 3 until the own admit leaves
    expect(k.retryAt(600, 3, DELTA)).toBe(100 + W + 9 * 100);
  });
});

describe('takeBack', () => {
  it('gone once expired; local while pending (its slot back while the grant lives); wait while in flight; else the store', () => {
    const k = synced(false, 3);
    expect(k.decide(100, 2)).toBe(ALLOW);
    expect(k.takeBack(100, 2, 100 + W)).toBe('gone');
    expect(k.takeBack(100, 1, 200)).toBe('local');
    expect(k.slots(200)).toBe(2);
    expect(k.unsyncedAdmits()).toBe(1);
    // the grant lapsed: the admit goes, its slot does not come back
    expect(k.takeBack(100, 1, TTL)).toBe('local');
    expect(k.slots(TTL)).toBe(0);
    expect(k.unsyncedAdmits()).toBe(0);
    expect(k.takeBack(100, 1, 300)).toBe('store');
    const f = synced(false, 2);
    expect(f.decide(100, 1)).toBe(ALLOW);
    expect(f.decide(200, 1)).toBe(ALLOW);
    f.syncEntry('k', 500);
    expect(f.takeBack(200, 1, 600)).toBe('wait');
    expect(f.takeBack(150, 1, 600)).toBe('store');
    f.applySync(reply(0, 700), 700);
    expect(f.takeBack(200, 1, 800)).toBe('store');
  });
});

describe('grants: what they add and when they lapse', () => {
  it('a reply granting nothing moves no lapse (sync or ask)', () => {
    const k = synced(true, 2);
    expect(k.decide(10, 3)).toBe(NEED_STORE);
    k.askSize(3);
    expect(k.onAskReply({ granted: 0, grantExpiresAt: 9000, now: 10 }, 10, 3)).toBe(false);
    expect(k.slots(TTL - 1)).toBe(2);
    expect(k.slots(TTL)).toBe(0);
    const s = synced(true, 0);
    expect(s.decide(10, 1)).toBe(NEED_STORE);
    s.askSize(2);
    expect(s.onAskReply({ granted: 2, grantExpiresAt: 2000, now: 10 }, 10, 1)).toBe(true);
    s.syncEntry('k', 500);
    // the ask was built before the sync: handed back; a later ask's slot is kept
    expect(s.decide(600, 1)).toBe(NEED_STORE);
    s.askSize(1);
    expect(s.onAskReply({ granted: 1, grantExpiresAt: 2600, now: 600 }, 600, 1)).toBe(true);
    expect(s.decide(600, 1)).toBe(NEED_STORE);
    s.askSize(1);
    expect(s.onAskReply({ granted: 1, grantExpiresAt: 2700, now: 650 }, 650, 0)).toBe(true);
    s.applySync(reply(0, 700, undefined, 9000), 700);
    expect(s.slots(2699)).toBe(1);
    expect(s.slots(2700)).toBe(0);
  });

  it('a grant after every slot was spent lapses when it says, however late the spent one would have', () => {
    const k = synced(true, 1);
    k.applySync(reply(1, 0, undefined, 5000), 0);
    expect(k.decide(10, 2)).toBe(ALLOW);
    expect(k.slots(10)).toBe(0);
    expect(k.decide(20, 1)).toBe(NEED_STORE);
    k.askSize(1);
    expect(k.onAskReply({ granted: 3, grantExpiresAt: 2000, now: 20 }, 20, 1)).toBe(true);
    expect(k.slots(1999)).toBe(2);
    expect(k.slots(2000)).toBe(0);
    // slots held lapse with a later grant
    const later = synced(true, 1);
    expect(later.decide(10, 2)).toBe(NEED_STORE);
    later.askSize(2);
    expect(later.onAskReply({ granted: 2, grantExpiresAt: 5000, now: 10 }, 10, 2)).toBe(true);
    expect(later.slots(4000)).toBe(1);
  });
});

describe('syncs in flight', () => {
  it('a second sync before the first is answered pushes both intervals’ admits, with counts', () => {
    const k = synced(true, 0);
    expect(k.decide(100, 1)).toBe(NEED_STORE);
    k.askSize(1);
    expect(k.onAskReply({ granted: 3, grantExpiresAt: 3000, now: 100 }, 100, 1)).toBe(true);
    expect(k.syncEntry('k', 500).admits).toEqual([100]);
    // an ask answered while that sync is out: its admits are pending, the sync's in flight
    expect(k.decide(600, 2)).toBe(NEED_STORE);
    k.askSize(2);
    expect(k.onAskReply({ granted: 2, grantExpiresAt: 3600, now: 600 }, 600, 2)).toBe(true);
    expect(k.unsyncedAdmits()).toBe(3);
    const again = k.syncEntry('k', 700);
    expect([again.admits, again.counts]).toEqual([
      [100, 600],
      [1, 2],
    ]);
    expect(k.unsyncedAdmits()).toBe(3);
    k.applySync(reply(0, 800), 800);
    expect(k.unsyncedAdmits()).toBe(0);
  });
});

describe('the idle run (simulator): irregular sync instants', () => {
  /** A key after `arrivals` at 500 and a sync at Δ granting `held`, then quiet. */
  function quietKey(arrivals: number, held: number, ask: boolean): LeaseKey {
    const k = new LeaseKey(p, ask, 0);
    for (let i = 0; i < arrivals; i++) k.noteRejected(1, 500);
    k.syncEntry('k', DELTA);
    k.applySync(reply(held, DELTA, undefined, DELTA + 100 * W), DELTA);
    return k;
  }

  /** idleRun and fastForwardIdle at sync instants `times`, against the syncs run one at a time. */
  function checkIdle(a: number, off: number, times: number[], ask: boolean, storeFull: boolean): void {
    const at = (i: number) => times[i];
    const count = times.length;
    const what = JSON.stringify({ a, off, count, ask, storeFull });
    // held: the first idle sync's ask, or off it
    const held = Math.max(0, (quietKey(a, 0, ask).syncEntry('k', at(0)).ask ?? 0) + off);
    const n = quietKey(a, held, ask).idleRun(at, count, storeFull);
    const ref = quietKey(a, held, ask);
    let m = 0;
    let nextAsk: number | undefined;
    while (m < count) {
      const h = ref.slots(at(m));
      const e = ref.syncEntry('k', at(m));
      nextAsk = e.ask;
      if (storeFull ? (e.ask ?? 0) < h : e.ask !== h) break;
      ref.applySync(reply(h, at(m), undefined, at(m) + TTL), at(m));
      if (h === 0 && ref.isIdle(at(m))) break;
      m++;
    }
    expect(n, what).toBe(m);
    if (storeFull) return;
    const f = quietKey(a, held, ask);
    expect(f.fastForwardIdle(at, count), what).toBe(n);
    if (n === 0) return;
    const last = at(n - 1);
    expect(f.lastReturned).toBe(held);
    expect(f.slots(last)).toBe(held);
    expect(f.slots(last + TTL)).toBe(0);
    if (n < count) expect(f.syncEntry('k', at(n)).ask, what).toBe(nextAsk);
  }

  it('counts the syncs answered with what the key holds, as running them does (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 400 }),
        fc.integer({ min: -1, max: 1 }),
        fc.array(fc.integer({ min: 1, max: 2 * DELTA }), { minLength: 1, maxLength: 60, size: 'medium' }),
        fc.boolean(),
        fc.boolean(),
        (a, off, gaps, ask, storeFull) => {
          const times: number[] = [];
          let t = DELTA;
          for (const g of gaps) times.push((t += g));
          checkIdle(a, off, times, ask, storeFull);
        },
      ),
      seeded({ numRuns: 300 }),
    );
  });

  it('the same on a grid: arrivals, holdings about the first ask, run lengths, Δ apart or not', () => {
    // irregular gaps from a fixed sequence (1 to 2Δ), or Δ each
    let x = 7;
    const irregular = Array.from({ length: 60 }, () => {
      x = (x * 1103515245 + 12345) % 2147483648;
      return 1 + (x % (2 * DELTA));
    });
    // and 1.9Δ each: the quiet window's guess (Δ apart) then runs past the syncs that are quiet
    for (const gaps of [Array(60).fill(DELTA), irregular, Array(60).fill(1.9 * DELTA)])
      for (const count of [1, 2, 3, 4, 6, 9, 14, 25, 60]) {
        const times: number[] = [];
        let t = DELTA;
        for (const g of gaps.slice(0, count)) times.push((t += g));
        for (const ask of [false, true])
          for (const storeFull of [false, true])
            for (const a of [0, 1, 5, 12, 20, 40, 90, 400])
              for (const off of [-2, -1, 0, 1]) checkIdle(a, off, times, ask, storeFull);
      }
  });

  it('syncs Δ apart are counted from a guess its two neighbours confirm: a few look-ups, not a search', () => {
    // leases-ask holding none after arrivals at 500: quiet (not idle) while at(i) < 500 + W
    const calls = (first: number, count: number): [number, number] => {
      let n = 0;
      const at = (i: number) => {
        n++;
        return i < count ? first + i * DELTA : Number.NaN;
      };
      const run = quietKey(3, 0, true).idleRun(at, count, false);
      return [run, n];
    };
    // at(0) for the slots held and for the guess (9), then at(8) and at(9) confirm it
    expect(calls(2000, 1000)).toEqual([9, 4]);
    // a guess past the last sync: at(count − 1) confirms every sync is quiet
    expect(calls(2000, 5)).toEqual([5, 3]);
    expect(calls(2000, 9)).toEqual([9, 3]);
    // one quiet sync left
    expect(calls(9800, 1000)).toEqual([1, 4]);
  });

  it('past 16 window and interval pairs the powers are computed, not cached: the same asks', () => {
    for (let i = 0; i < 20; i++) {
      const q: FleetParams = { ...p, policy: makePolicy(50, W + 7 * i + 3) };
      const k = new LeaseKey(q, false, 0);
      for (let j = 0; j < 20; j++) k.noteRejected(1, 500);
      k.syncEntry('k', DELTA);
      const m = (1 - Math.exp(-DELTA / (W + 7 * i + 3))) * 20;
      // two idle intervals later
      k.syncEntry('k', 2 * DELTA);
      const d = Math.exp(-DELTA / (W + 7 * i + 3));
      expect(k.syncEntry('k', 3 * DELTA).ask).toBe(Math.ceil(1.5 * m * d ** 2) + 1);
    }
  });

  it('applyIdle of none changes nothing; of some, lets a refused leases-ask key ask again', () => {
    const k = quietKey(0, 2, false);
    k.applyIdle(0, 5 * DELTA, 7);
    expect(k.slots(2 * DELTA)).toBe(2);
    expect(k.lastReturned).toBe(0);
    const r = quietKey(0, 0, true);
    refuse(r, 1500);
    expect(r.decide(1600, 1)).not.toBe(NEED_STORE);
    r.applyIdle(1, 2 * DELTA, 0);
    expect(r.decide(2100, 1)).toBe(NEED_STORE);
  });
});
