import { describe, expect, it } from 'vitest';
import type { Policy } from '../../src/config.js';
import type {
  AsyncStore,
  ResetScanReply,
  Store,
  SyncEntry,
  SyncReply,
  SyncRequest,
} from '../../src/store/contract.js';
import { expandRuns } from '../../src/window/runs.js';

/** A reply's expiries, one per admit (a store may list them as runs: SyncReply.expiryCounts). */
export function listed(r: SyncReply): number[] {
  return expandRuns(r.expiries, r.expiryCounts);
}

/** Either form of the contract: every call is awaited, so a synchronous store works as is. */
export type AnyStore = Store | AsyncStore;

/**
 * The store contract, as tests. `make` returns a fresh, empty store whose clock is the caller's
 * (the `now` passed in); it is called once per test.
 */
export function storeContract(name: string, make: () => Promise<AnyStore> | AnyStore): void {
  const sliding: Policy = { limit: 3, windowMs: 1000, windowKind: 'sliding' };
  const fixed: Policy = { limit: 3, windowMs: 1000, windowKind: 'fixed' };

  const req = (over: Partial<SyncRequest> & { entries: SyncEntry[] }): SyncRequest => ({
    gatewayId: 'gw-a',
    seq: 1,
    policy: sliding,
    leaseTtlMs: 500,
    horizonMs: 400,
    ...over,
  });
  const push = (key: string, admits: number[], read = true): SyncEntry => ({
    key,
    admits,
    read,
    release: false,
    ask: 0,
  });
  const lease = (key: string, ask: number, admits: number[] = [], release = true): SyncEntry => ({
    key,
    admits,
    read: false,
    release,
    ask,
  });

  describe(`store contract: ${name}`, () => {
    it('logAdmit admits while count + cost <= limit and reports the count and oldest expiry', async () => {
      const s = await make();
      const r1 = await s.logAdmit({ key: 'k', policy: sliding, cost: 1 }, 100);
      expect(r1).toEqual({ allowed: true, count: 1, oldestExpiry: 1100, now: 100 });
      expect((await s.logAdmit({ key: 'k', policy: sliding, cost: 2 }, 200)).allowed).toBe(true);
      const r3 = await s.logAdmit({ key: 'k', policy: sliding, cost: 1 }, 300);
      expect(r3).toEqual({ allowed: false, count: 3, oldestExpiry: 1100, now: 300 });
    });

    it('a cost larger than what is left is refused while a smaller one fits', async () => {
      const s = await make();
      await s.logAdmit({ key: 'k', policy: sliding, cost: 2 }, 0);
      expect((await s.logAdmit({ key: 'k', policy: sliding, cost: 2 }, 1)).allowed).toBe(false);
      expect((await s.logAdmit({ key: 'k', policy: sliding, cost: 1 }, 2)).allowed).toBe(true);
    });

    it('a sliding window counts an admit at t while now < t + W', async () => {
      const s = await make();
      for (const t of [0, 10, 20]) await s.logAdmit({ key: 'k', policy: sliding, cost: 1 }, t);
      expect((await s.logAdmit({ key: 'k', policy: sliding, cost: 1 }, 999.5)).allowed).toBe(false);
      const r = await s.logAdmit({ key: 'k', policy: sliding, cost: 1 }, 1000);
      expect(r).toEqual({ allowed: true, count: 3, oldestExpiry: 1010, now: 1000 });
    });

    it('a fixed window counts an admit until the end of its aligned window', async () => {
      const s = await make();
      for (const t of [900, 950, 999]) await s.logAdmit({ key: 'k', policy: fixed, cost: 1 }, t);
      expect((await s.logAdmit({ key: 'k', policy: fixed, cost: 1 }, 999.9)).allowed).toBe(false);
      const r = await s.logAdmit({ key: 'k', policy: fixed, cost: 1 }, 1000);
      expect(r).toEqual({ allowed: true, count: 1, oldestExpiry: 2000, now: 1000 });
    });

    it('an empty key reports an oldest expiry of Infinity', async () => {
      const s = await make();
      const r = await s.logAdmit({ key: 'k', policy: { ...sliding, limit: 1 }, cost: 2 }, 0);
      expect(r).toEqual({ allowed: false, count: 0, oldestExpiry: Number.POSITIVE_INFINITY, now: 0 });
    });

    it('sync pushes admits, then reads the count and the expiries before the horizon', async () => {
      const s = await make();
      const r = await s.sync(req({ entries: [push('k', [100, 300, 700])] }), 800);
      expect(r.now).toBe(800);
      expect(r.replies).toEqual([
        // at the limit: when the count falls below it and below L − 1 (see belowLimitAt below)
        {
          count: 3,
          expiries: [1100],
          horizon: 1200,
          granted: 0,
          grantExpiresAt: 800,
          belowLimitAt: [1100, 1300],
          // L − 2 or more, two not listed: when they leave (see pastHorizonAt below)
          pastHorizonAt: [1300, 1700],
        },
      ]);
      const q = await s.sync(req({ gatewayId: 'gw-b', entries: [push('k', [], false)] }), 900);
      expect(q.replies[0]).toEqual({ count: 3, expiries: [], horizon: 900, granted: 0, grantExpiresAt: 900 });
    });

    it('equal expiries are all listed', async () => {
      const s = await make();
      const r = await s.sync(
        req({ policy: { ...fixed, limit: 10 }, entries: [push('k', [1, 2, 3, 1500])] }),
        700,
      );
      expect(listed(r.replies[0])).toEqual([1000, 1000, 1000]);
      expect(r.replies[0].count).toBe(4);
    });

    it('a pushed run (SyncEntry.counts) counts its admits and is listed as one expiry with its count', async () => {
      const s = await make();
      const policy = { ...sliding, limit: 2_000_000_000 };
      const entry = { ...push('k', [100, 250]), counts: [1_000_000_000, 3] };
      const r = await s.sync(req({ policy, horizonMs: 2000, entries: [entry] }), 300);
      expect(r.replies[0].count).toBe(1_000_000_003);
      // one expiry per instant however many admits it stands for
      expect(r.replies[0].expiries).toEqual([1100, 1250]);
      expect(r.replies[0].expiryCounts).toEqual([1_000_000_000, 3]);
      const later = await s.sync(req({ policy, seq: 2, entries: [push('k', [])] }), 1200);
      expect(later.replies[0].count).toBe(3);
    });

    it('admits pushed at one instant are each counted and listed', async () => {
      const s = await make();
      const policy = { ...sliding, limit: 10 };
      const r = await s.sync(
        req({ policy, horizonMs: 2000, entries: [push('k', [100, 100, 100, 250, 250, 300])] }),
        300,
      );
      expect(r.replies[0].count).toBe(6);
      expect(listed(r.replies[0])).toEqual([1100, 1100, 1100, 1250, 1250, 1300]);
      const later = await s.sync(req({ policy, seq: 2, entries: [push('k', [])] }), 1200);
      expect(later.replies[0].count).toBe(3);
    });

    it('admits two gateways push out of time order each count until their own expiry (issue 32)', async () => {
      const s = await make();
      const p = { ...sliding, limit: 10 };
      // gw-a pushes 105, then gw-b pushes the earlier 101: the key's newest admit stays 105
      await s.sync(req({ policy: p, entries: [push('k', [105], false)] }), 110);
      await s.sync(req({ gatewayId: 'gw-b', policy: p, entries: [push('k', [101], false)] }), 120);
      const read = (seq: number, now: number) =>
        s.sync(req({ gatewayId: 'gw-c', seq, policy: p, horizonMs: 1000, entries: [push('k', [])] }), now);
      expect((await read(1, 1100)).replies[0]).toMatchObject({ count: 2, expiries: [1101, 1105] });
      expect((await read(2, 1103)).replies[0].count).toBe(1);
      expect((await read(3, 1105)).replies[0].count).toBe(0);
    });

    it('sync drops pushed admits that no longer count', async () => {
      const s = await make();
      const r = await s.sync(req({ entries: [push('k', [0, 100, 1500])] }), 1100);
      expect(r.replies[0].count).toBe(1);
    });

    it('a retried sync (same seq) does not push its admits twice', async () => {
      const s = await make();
      const sent = req({ seq: 7, entries: [push('k', [10, 20])] });
      await s.sync(sent, 30);
      const again = await s.sync(sent, 40);
      expect(again.replies[0].count).toBe(2);
      const next = await s.sync(req({ seq: 8, entries: [push('k', [35])] }), 50);
      expect(next.replies[0].count).toBe(3);
    });

    it('a sync older than one already applied is refused', async () => {
      const s = await make();
      await s.sync(req({ seq: 5, entries: [push('k', [10])] }), 20);
      await expect(async () => await s.sync(req({ seq: 4, entries: [push('k', [15])] }), 30)).rejects.toThrow(
        RangeError,
      );
    });

    it('seqs are per key: a part of an older sync lands on keys no newer sync pushed to; a resend of it is a replay', async () => {
      const s = await make();
      // sync 5 goes out in two parts; part b fails, sync 6 (without b's key) lands, then b is resent
      await s.sync(req({ seq: 5, entries: [push('a', [10])] }), 20);
      await s.sync(req({ seq: 6, entries: [push('a', [30])] }), 40);
      const b = req({ seq: 5, entries: [push('b', [11, 12])] });
      expect((await s.sync(b, 50)).replies[0].count).toBe(2);
      expect((await s.sync(b, 60)).replies[0].count).toBe(2);
      // key a saw seq 6: seq 5 is older there (refused: in a cluster, per slot)
      await expect(async () => await s.sync(req({ seq: 5, entries: [push('a', [14])] }), 70)).rejects.toThrow(
        RangeError,
      );
      expect((await s.sync(req({ seq: 7, entries: [push('a', [])] }), 80)).replies[0].count).toBe(2);
    });

    it('seqs are per gateway on a key: a resend is a replay after another gateway pushed there', async () => {
      const s = await make();
      await s.sync(req({ seq: 3, entries: [push('k', [1])] }), 10);
      const b = req({ gatewayId: 'gw-b', seq: 1, entries: [push('k', [2])] });
      expect((await s.sync(b, 11)).replies[0].count).toBe(2);
      await s.sync(req({ seq: 4, entries: [push('k', [3])] }), 12);
      // gw-b's resend of seq 1: its own last seq on k is 1 (gw-a's 4 is not gw-b's)
      expect((await s.sync(b, 13)).replies[0].count).toBe(3);
      // and gw-a's older seq is refused there, whatever gw-b sent
      await expect(async () => await s.sync(req({ seq: 2, entries: [push('k', [4])] }), 14)).rejects.toThrow(
        RangeError,
      );
    });

    it('an incarnation claims its gateway id and learns which one claimed it before', async () => {
      const s = await make();
      const claim = (gatewayId: string, seq: number) =>
        s.sync(req({ gatewayId, seq, incarnationOf: 'gw', entries: [push('k', [seq])] }), 10 + seq);
      expect((await claim('gw~1', 1)).previousIncarnation).toBe(null);
      expect((await claim('gw~1', 2)).previousIncarnation).toBe('gw~1');
      // a second live gateway with the id: each finds the other
      expect((await claim('gw~2', 1)).previousIncarnation).toBe('gw~1');
      expect((await claim('gw~1', 3)).previousIncarnation).toBe('gw~2');
      // seqs are kept per incarnation: gw~2's seq 1 was not a replay of gw~1's
      expect((await s.sync(req({ seq: 9, entries: [push('k', [])] }), 20)).replies[0].count).toBe(4);
      // without incarnationOf nothing is claimed or answered
      const plain = await s.sync(req({ gatewayId: 'gw~3', seq: 1, entries: [] }), 21);
      expect(plain.previousIncarnation).toBeUndefined();
      expect((await claim('gw~1', 4)).previousIncarnation).toBe('gw~1');
    });

    it('grants never pass admitted + outstanding <= limit, over every gateway', async () => {
      const s = await make();
      const p = { ...sliding, limit: 10 };
      await s.logAdmit({ key: 'k', policy: p, cost: 3 }, 0);
      const a = await s.sync(req({ policy: p, entries: [lease('k', 4)] }), 10);
      expect(a.replies[0]).toMatchObject({ count: 3, granted: 4, grantExpiresAt: 510, free: 3 });
      const b = await s.sync(req({ gatewayId: 'gw-b', policy: p, entries: [lease('k', 9)] }), 20);
      expect(b.replies[0]).toMatchObject({ granted: 3, grantExpiresAt: 520, free: 0 });
      expect((await s.logAdmit({ key: 'k', policy: p, cost: 1 }, 30)).allowed).toBe(false);
      const c = await s.ask({ gatewayId: 'gw-c', key: 'k', policy: p, leaseTtlMs: 500, ask: 5 }, 40);
      expect(c).toEqual({ granted: 0, grantExpiresAt: 40, now: 40, count: 3, oldestExpiry: 1000, free: 0 });
    });

    it('ask adds to what the gateway holds and renews its lapse; a refusal reports the held lapse', async () => {
      const s = await make();
      const p = { ...sliding, limit: 5 };
      const none = { count: 0, oldestExpiry: Number.POSITIVE_INFINITY };
      expect(await s.ask({ gatewayId: 'gw-a', key: 'k', policy: p, leaseTtlMs: 500, ask: 2 }, 0)).toEqual({
        granted: 2,
        grantExpiresAt: 500,
        now: 0,
        ...none,
        free: 3,
      });
      expect(await s.ask({ gatewayId: 'gw-a', key: 'k', policy: p, leaseTtlMs: 500, ask: 2 }, 100)).toEqual({
        granted: 2,
        grantExpiresAt: 600,
        now: 100,
        ...none,
        free: 1,
      });
      expect(await s.ask({ gatewayId: 'gw-a', key: 'k', policy: p, leaseTtlMs: 500, ask: 2 }, 200)).toEqual({
        granted: 1,
        grantExpiresAt: 700,
        now: 200,
        ...none,
        free: 0,
      });
      expect(await s.ask({ gatewayId: 'gw-a', key: 'k', policy: p, leaseTtlMs: 500, ask: 2 }, 300)).toEqual({
        granted: 0,
        grantExpiresAt: 700,
        now: 300,
        ...none,
        free: 0,
      });
    });

    it('a release hands the grant back; spent slots come back as admits', async () => {
      const s = await make();
      const p = { ...sliding, limit: 4 };
      await s.sync(req({ policy: p, entries: [lease('k', 4)] }), 0);
      expect(
        (await s.ask({ gatewayId: 'gw-b', key: 'k', policy: p, leaseTtlMs: 500, ask: 1 }, 10)).granted,
      ).toBe(0);
      const r = await s.sync(req({ seq: 2, policy: p, entries: [lease('k', 0, [5])] }), 20);
      expect(r.replies[0]).toMatchObject({ count: 1, granted: 0, grantExpiresAt: 20 });
      expect(
        (await s.ask({ gatewayId: 'gw-b', key: 'k', policy: p, leaseTtlMs: 500, ask: 9 }, 30)).granted,
      ).toBe(3);
    });

    it('without release a sync ask adds to the grant held', async () => {
      const s = await make();
      const p = { ...sliding, limit: 6 };
      await s.sync(req({ policy: p, entries: [lease('k', 2)] }), 0);
      const r = await s.sync(req({ seq: 2, policy: p, entries: [lease('k', 2, [], false)] }), 10);
      expect(r.replies[0]).toMatchObject({ granted: 2, grantExpiresAt: 510 });
      expect(
        (await s.ask({ gatewayId: 'gw-b', key: 'k', policy: p, leaseTtlMs: 500, ask: 9 }, 20)).granted,
      ).toBe(2);
    });

    it('a lapsed grant stays counted until an admit made at its lapse would age out, then returns to the pool', async () => {
      const s = await make();
      const p = { ...sliding, limit: 2 };
      const r = await s.sync(req({ policy: p, entries: [lease('k', 2)] }), 0);
      // the gateway stops spending at the lapse...
      expect(r.replies[0].grantExpiresAt).toBe(500);
      // ...but what it spent before then may still be on its way: counted for a window more
      expect((await s.logAdmit({ key: 'k', policy: p, cost: 1 }, 500)).allowed).toBe(false);
      expect((await s.logAdmit({ key: 'k', policy: p, cost: 1 }, 500 + p.windowMs - 1)).allowed).toBe(false);
      expect((await s.logAdmit({ key: 'k', policy: p, cost: 1 }, 500 + p.windowMs)).allowed).toBe(true);
    });

    it('a sync hands back only what was granted before it was built; a retry answers with its own grant', async () => {
      const s = await make();
      const p = { ...sliding, limit: 10 };
      await s.sync(req({ seq: 1, policy: p, entries: [lease('k', 3)] }), 0);
      // an ask sent after sync 2 was built lands before it (seq 2 is the last sync built)
      expect(
        (await s.ask({ gatewayId: 'gw-a', key: 'k', policy: p, leaseTtlMs: 500, ask: 4, seq: 2 }, 10))
          .granted,
      ).toBe(4);
      const first = await s.sync(req({ seq: 2, policy: p, entries: [lease('k', 2)] }), 20);
      expect(first.replies[0]).toMatchObject({ granted: 2, free: 4 });
      // sync 1's 3 slots came back; the ask's 4 did not
      expect(
        (await s.ask({ gatewayId: 'gw-b', key: 'k', policy: p, leaseTtlMs: 500, ask: 10 }, 30)).granted,
      ).toBe(4);
      // a retry of sync 2 answers with the grant it made, whatever is free now
      const retry = await s.sync(req({ seq: 2, policy: p, entries: [lease('k', 2)] }), 40);
      // (its own part is not counted twice in what is free)
      expect(retry.replies[0]).toMatchObject({ granted: 2, free: 0 });
      expect(
        (await s.ask({ gatewayId: 'gw-b', key: 'k', policy: p, leaseTtlMs: 500, ask: 10 }, 50)).granted,
      ).toBe(0);
      // sync 3 hands back both (sync 2's part and the ask's)
      await s.sync(req({ seq: 3, policy: p, entries: [lease('k', 0)] }), 60);
      expect(
        (await s.ask({ gatewayId: 'gw-b', key: 'k', policy: p, leaseTtlMs: 500, ask: 10 }, 70)).granted,
      ).toBe(6);
    });

    it('a lease reply says when the oldest admit leaves and how many slots are neither admitted nor granted (issue 31)', async () => {
      const s = await make();
      const p = { ...sliding, limit: 4 };
      await s.logAdmit({ key: 'k', policy: p, cost: 1 }, 100);
      await s.logAdmit({ key: 'k', policy: p, cost: 1 }, 200);
      // a's sync pushes an admit and is granted the last slot
      const a = await s.sync(req({ policy: p, entries: [lease('k', 1, [250])] }), 300);
      expect(a.replies[0]).toMatchObject({ count: 3, granted: 1, oldestExpiry: 1100, free: 0 });
      // b finds none: it learns when one frees
      const none = { granted: 0, grantExpiresAt: 400, now: 400, count: 3, oldestExpiry: 1100, free: 0 };
      expect(await s.ask({ gatewayId: 'gw-b', key: 'k', policy: p, leaseTtlMs: 500, ask: 5 }, 400)).toEqual(
        none,
      );
      // the admit at 100 has left; a's grant (lapsed at 800) still counts until 1800
      const later = await s.ask({ gatewayId: 'gw-b', key: 'k', policy: p, leaseTtlMs: 500, ask: 0 }, 1150);
      expect(later).toMatchObject({ granted: 0, count: 2, oldestExpiry: 1200, free: 1 });
      // a hands it back: both free; an empty log says Infinity
      const back = await s.sync(req({ seq: 2, policy: p, entries: [lease('k', 0)] }), 1160);
      expect(back.replies[0]).toMatchObject({ count: 2, granted: 0, oldestExpiry: 1200, free: 2 });
      const empty = await s.sync(req({ seq: 3, policy: p, entries: [lease('k', 1)] }), 5000);
      expect(empty.replies[0]).toMatchObject({
        count: 0,
        granted: 1,
        oldestExpiry: Number.POSITIVE_INFINITY,
        free: 3,
      });
      // a fixed window's admits all leave at its end
      const f = { ...fixed, limit: 4 };
      await s.logAdmit({ key: 'f', policy: f, cost: 1 }, 100);
      const r = await s.sync(req({ seq: 4, policy: f, entries: [lease('f', 1, [900])] }), 950);
      expect(r.replies[0]).toMatchObject({ count: 2, granted: 1, oldestExpiry: 1000, free: 1 });
    });

    it('a read that lists no expiry says when the oldest admit counted leaves (issue 31)', async () => {
      const s = await make();
      const p = { ...sliding, limit: 10 };
      // horizon 800: nothing listed, the oldest (100) leaves at 1100
      const a = await s.sync(req({ policy: p, entries: [push('k', [100, 300])] }), 400);
      expect(a.replies[0]).toMatchObject({ count: 2, expiries: [], oldestExpiry: 1100 });
      // pushed to again, nothing aged out (sync.lua's plain path), and a read alone
      const b = await s.sync(req({ seq: 2, policy: p, entries: [push('k', [450])] }), 500);
      expect(b.replies[0]).toMatchObject({ count: 3, expiries: [], oldestExpiry: 1100 });
      const c = await s.sync(req({ gatewayId: 'gw-b', policy: p, entries: [push('k', [])] }), 600);
      expect(c.replies[0]).toMatchObject({ count: 3, expiries: [], oldestExpiry: 1100 });
      // one that lists some may leave it out: the first listed is the oldest
      const d = await s.sync(req({ seq: 3, policy: p, entries: [push('k', [])] }), 800);
      expect(listed(d.replies[0])).toEqual([1100]);
      expect(d.replies[0].oldestExpiry ?? 1100).toBe(1100);
      // none counted: Infinity; a fixed window's admits all leave at its end; no read: not said
      const e = await s.sync(req({ policy: p, entries: [push('empty', [])] }), 900);
      expect(e.replies[0]).toMatchObject({ count: 0, oldestExpiry: Number.POSITIVE_INFINITY });
      const f = await s.sync(req({ policy: { ...fixed, limit: 10 }, entries: [push('f', [100, 200])] }), 300);
      expect(f.replies[0]).toMatchObject({ count: 2, expiries: [], oldestExpiry: 1000 });
      const g = await s.sync(req({ seq: 4, policy: p, entries: [push('k', [], false)] }), 950);
      expect(g.replies[0].oldestExpiry).toBeUndefined();
    });

    it('a read at the limit or over says when the count falls below L and L − 1 (issue 31)', async () => {
      const s = await make();
      // L = 3, horizon 400: nothing listed. Four counted: below 3 when the second (200) leaves, below 2
      // when the third (300) does
      const a = await s.sync(req({ entries: [push('k', [100, 200, 300, 350])] }), 400);
      expect(a.replies[0]).toMatchObject({ count: 4, expiries: [], belowLimitAt: [1200, 1300] });
      // ranked by admits, not runs: a run of two at 360 (pushed again, nothing aged: the plain path)
      const b = await s.sync(req({ seq: 2, entries: [{ ...push('k', [360]), counts: [2] }] }), 500);
      expect(b.replies[0]).toMatchObject({ count: 6, belowLimitAt: [1350, 1360] });
      // another gateway's read alone; then one whose listing reaches the ranks (horizon 1450)
      const c = await s.sync(req({ gatewayId: 'gw-b', entries: [push('k', [])] }), 600);
      expect(c.replies[0]).toMatchObject({ count: 6, belowLimitAt: [1350, 1360] });
      const d = await s.sync(req({ seq: 3, entries: [push('k', [])] }), 1050);
      expect(d.replies[0]).toMatchObject({ count: 6, belowLimitAt: [1350, 1360] });
      expect(listed(d.replies[0])).toEqual([1100, 1200, 1300, 1350, 1360, 1360]);
      // aged (the general path); then at the limit exactly
      const e = await s.sync(req({ seq: 4, entries: [push('k', [])] }), 1250);
      expect(e.replies[0]).toMatchObject({ count: 4, belowLimitAt: [1350, 1360] });
      const f = await s.sync(req({ seq: 5, entries: [push('k', [])] }), 1320);
      expect(f.replies[0]).toMatchObject({ count: 3, belowLimitAt: [1350, 1360] });
      // under the limit, no read, a lease's release: not said
      const g = await s.sync(req({ seq: 6, entries: [push('k', [])] }), 1355);
      expect(g.replies[0].count).toBe(2);
      expect(g.replies[0].belowLimitAt).toBeUndefined();
      const h = await s.sync(req({ seq: 7, entries: [push('x', [1010, 1020, 1030, 1040])] }), 1400);
      expect(h.replies[0].belowLimitAt).toEqual([2020, 2030]);
      const i = await s.sync(
        req({ seq: 8, entries: [push('x', [], false), lease('y', 0, [1401, 1402, 1403])] }),
        1410,
      );
      expect(i.replies[0].belowLimitAt).toBeUndefined();
      expect(i.replies[1].belowLimitAt).toBeUndefined();
      // a fixed window's admits all leave at its end
      const j = await s.sync(req({ policy: fixed, entries: [push('f', [100, 200, 300, 400])] }), 500);
      expect(j.replies[0]).toMatchObject({ count: 4, belowLimitAt: [1000, 1000] });
    });

    it('belowLimitAt never comes after the count falls below L, and is exact within the store bound', async () => {
      const s = await make();
      const p = { ...sliding, limit: 2, windowMs: 100_000 };
      // 40 pushes of one admit each (a touch each: as many members), far over L = 2
      for (let n = 1; n <= 40; n++) {
        const r = await s.sync(
          req({ seq: n, policy: p, horizonMs: 0, entries: [push('k', [10 * n])] }),
          10 * n,
        );
        expect(r.replies[0].count).toBe(n);
        if (n < 2) continue;
        // ranks n − 2 and n − 1: the admits at 10 (n − 1) and 10 n, each leaving a window later
        const exact = [10 * (n - 1) + 100_000, 10 * n + 100_000];
        const below = r.replies[0].belowLimitAt!;
        if (n <= 32) expect(below).toEqual(exact);
        else {
          expect(below[0]).toBeLessThanOrEqual(exact[0]);
          expect(below[1]).toBeLessThanOrEqual(exact[1]);
          expect(below[0]).toBeGreaterThanOrEqual(100_010);
        }
      }
    });

    it('a read of L − 2 or more says when the two oldest admits it does not list leave (issue 31)', async () => {
      const s = await make();
      const p = { ...sliding, limit: 6 };
      // horizon 1200: the admit at 100 listed; of 300, 500, 700 the ranks 1 and 2
      const a = await s.sync(req({ policy: p, entries: [push('k', [100, 300, 500, 700])] }), 800);
      expect(listed(a.replies[0])).toEqual([1100]);
      expect(a.replies[0]).toMatchObject({ count: 4, pastHorizonAt: [1300, 1500] });
      // pushed a run of two, nothing aged (sync.lua's plain path); another gateway's read alone
      const b = await s.sync(
        req({ seq: 2, policy: p, entries: [{ ...push('k', [750]), counts: [2] }] }),
        850,
      );
      expect(b.replies[0]).toMatchObject({ count: 6, pastHorizonAt: [1300, 1500] });
      const c = await s.sync(req({ gatewayId: 'gw-b', policy: p, entries: [push('k', [])] }), 950);
      expect(c.replies[0]).toMatchObject({ count: 6, pastHorizonAt: [1500, 1700] });
      // aged (the general path): 1300 and 1500 listed, then ranked by admits (the run of two at 1750)
      const d = await s.sync(req({ seq: 3, policy: p, entries: [push('k', [])] }), 1290);
      expect(listed(d.replies[0])).toEqual([1300, 1500]);
      expect(d.replies[0]).toMatchObject({ count: 5, pastHorizonAt: [1700, 1750] });
      const e = await s.sync(req({ seq: 4, policy: p, entries: [push('k', [])] }), 1310);
      expect(e.replies[0]).toMatchObject({ count: 4, pastHorizonAt: [1750, 1750] });
      // one admit not listed: Infinity for the second
      const f = await s.sync(req({ seq: 5, policy: p, entries: [push('x', [100, 200, 300, 900])] }), 1000);
      expect(f.replies[0]).toMatchObject({ count: 4, pastHorizonAt: [1900, Number.POSITIVE_INFINITY] });
      // a fixed window's admits all leave at its end
      const g = await s.sync(
        req({ policy: { ...fixed, limit: 4 }, entries: [push('f', [100, 200, 300])] }),
        400,
      );
      expect(g.replies[0]).toMatchObject({ count: 3, pastHorizonAt: [1000, 1000] });
      // not said: under L − 2 (one admit of six, 1200), all listed, no read, a lease's release
      const h = await s.sync(
        req({
          seq: 6,
          policy: p,
          entries: [push('y', [100, 1200]), push('k', []), push('x', [], false), lease('z', 0, [1401])],
        }),
        1410,
      );
      expect(h.replies.map((r) => r.pastHorizonAt)).toEqual([undefined, undefined, undefined, undefined]);
    });

    it('pastHorizonAt is exact within the store bound, −Infinity past it', async () => {
      const s = await make();
      const p = { ...sliding, limit: 2, windowMs: 100_000 };
      // 40 pushes of one admit each (a touch each: as many members)
      for (let n = 1; n <= 40; n++) {
        const r = await s.sync(
          req({ seq: n, policy: p, horizonMs: 0, entries: [push('k', [10 * n])] }),
          10 * n,
        );
        // nothing listed: ranks 0 and 1
        expect(r.replies[0].pastHorizonAt).toEqual([100_010, n > 1 ? 100_020 : Number.POSITIVE_INFINITY]);
      }
      // all listed but the newest: rank 39, past RedisStore's 32 members
      const r = await s.sync(req({ seq: 41, policy: p, horizonMs: 99_995, entries: [push('k', [])] }), 400);
      expect(listed(r.replies[0])).toHaveLength(39);
      const [e0, e1] = r.replies[0].pastHorizonAt!;
      expect([100_400, Number.NEGATIVE_INFINITY]).toContain(e0);
      expect([Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY]).toContain(e1);
    });

    it('keys are independent and one sync answers many keys in request order', async () => {
      const s = await make();
      const p = { ...sliding, limit: 1000 };
      const keys = Array.from({ length: 700 }, (_, i) => `key-${i}`);
      const entries = keys.map((k, i) =>
        push(
          k,
          Array.from({ length: i % 4 }, (_, j) => 100 + j),
        ),
      );
      const r = await s.sync(req({ policy: p, entries }), 200);
      expect(r.replies.map((x) => x.count)).toEqual(keys.map((_, i) => i % 4));
      const again = await s.sync(
        req({ gatewayId: 'gw-b', policy: p, entries: keys.map((k) => push(k, [150])) }),
        300,
      );
      expect(again.replies.map((x) => x.count)).toEqual(keys.map((_, i) => (i % 4) + 1));
    });

    it('policies are independent: one key string under two policies is two counters (issue 20)', async () => {
      const s = await make();
      const big: Policy = { limit: 10, windowMs: 1000, windowKind: 'sliding' };
      const named: Policy = { ...sliding, name: 'free' };
      for (let t = 0; t < 5; t++)
        expect((await s.logAdmit({ key: 'k', policy: big, cost: 1 }, t)).allowed).toBe(true);
      // sliding (3 per window) has its 3, and so has the same numbers under a name
      for (const p of [sliding, named]) {
        for (let t = 5; t < 8; t++)
          expect((await s.logAdmit({ key: 'k', policy: p, cost: 1 }, t)).allowed).toBe(true);
        expect((await s.logAdmit({ key: 'k', policy: p, cost: 1 }, 8)).allowed).toBe(false);
      }
      const r = await s.sync(req({ policy: big, entries: [push('k', [9])] }), 10);
      expect(r.replies[0].count).toBe(6);
      // grants too: the 3 of `sliding` are spent, the named policy's were too; `fixed` has its own
      expect(
        (await s.ask({ gatewayId: 'gw-a', key: 'k', policy: sliding, leaseTtlMs: 500, ask: 3 }, 10)).granted,
      ).toBe(0);
      expect(
        (await s.ask({ gatewayId: 'gw-a', key: 'k', policy: fixed, leaseTtlMs: 500, ask: 3 }, 10)).granted,
      ).toBe(3);
    });

    it('an empty sync answers with the store time', async () => {
      const s = await make();
      expect(await s.sync(req({ entries: [] }), 1234)).toEqual({ now: 1234, replies: [] });
    });

    it('a voided logAdmit call leaves the count, and one that lands after its void is refused', async () => {
      const s = await make();
      const p: Policy = { limit: 10, windowMs: 1000, windowKind: 'sliding' };
      const a = (seq: number) => ({ gatewayId: 'gw-a', seq });
      expect((await s.logAdmit({ key: 'k', policy: p, cost: 2, call: a(1) }, 100)).count).toBe(2);
      expect((await s.logAdmit({ key: 'k', policy: p, cost: 1, call: a(2) }, 110)).count).toBe(3);
      // gw-b's call with the same seq is another call
      expect(
        (await s.logAdmit({ key: 'k', policy: p, cost: 1, call: { gatewayId: 'gw-b', seq: 2 } }, 120)).count,
      ).toBe(4);
      // gw-a gave up on call 2 (it landed) and on call 3 (still on its way)
      await s.voidLogAdmits(
        'gw-a',
        p,
        [
          { key: 'k', seq: 2, cost: 1 },
          { key: 'k', seq: 3, cost: 1 },
        ],
        200,
      );
      await s.voidLogAdmits('gw-a', p, [{ key: 'k', seq: 2, cost: 1 }], 201); // a resend changes nothing
      const late = await s.logAdmit({ key: 'k', policy: p, cost: 1, call: a(3) }, 210);
      expect(late.allowed).toBe(false);
      expect(late.count).toBe(3);
      // later calls count again; so do calls without an id
      expect((await s.logAdmit({ key: 'k', policy: p, cost: 1, call: a(4) }, 220)).count).toBe(4);
      expect((await s.logAdmit({ key: 'k', policy: p, cost: 1 }, 230)).count).toBe(5);
      // calls are refused only within a window of the void
      await s.voidLogAdmits('gw-a', p, [{ key: 'other', seq: 9, cost: 1 }], 300);
      expect((await s.logAdmit({ key: 'other', policy: p, cost: 1, call: a(9) }, 1299)).allowed).toBe(false);
      expect((await s.logAdmit({ key: 'other', policy: p, cost: 1, call: a(9) }, 1300)).allowed).toBe(true);
    });

    describe('refundAdmits (issue 36)', () => {
      const p: Policy = { limit: 10, windowMs: 1000, windowKind: 'sliding' };
      const refundsOf = async () => {
        const s = await make();
        if (s.refundAdmits === undefined) throw new Error('the store has no refundAdmits');
        const refund = (
          gw: string,
          rs: { key?: string; seq: number; at: number; cost?: number }[],
          now: number,
        ) =>
          Promise.resolve(
            s.refundAdmits!(
              gw,
              p,
              rs.map((r) => ({ key: r.key ?? 'k', seq: r.seq, at: r.at, cost: r.cost ?? 1 })),
              now,
            ),
          );
        const read = async (now: number, seq: number, key = 'k') =>
          (
            await s.sync(
              req({ gatewayId: 'reader', seq, policy: p, horizonMs: 5000, entries: [push(key, [])] }),
              now,
            )
          ).replies[0];
        return { s, refund, read };
      };

      it('takes back exactly the admits at the instant given, once', async () => {
        const { s, refund, read } = await refundsOf();
        await s.sync(
          req({ policy: p, entries: [{ ...push('k', [100, 200, 300]), counts: [1, 3, 1] }] }),
          300,
        );
        expect(await refund('gw-a', [{ seq: 1, at: 200 }], 310)).toBe(1);
        let r = await read(320, 1);
        expect(r.count).toBe(4);
        expect(listed(r)).toEqual([1100, 1200, 1200, 1300]);
        // a resend, or an older seq, takes nothing
        expect(await refund('gw-a', [{ seq: 1, at: 200 }], 330)).toBe(0);
        expect(await refund('gw-a', [{ seq: 0, at: 100 }], 330)).toBe(0);
        // the next seq does; a cost takes that many
        expect(await refund('gw-a', [{ seq: 2, at: 200, cost: 2 }], 340)).toBe(2);
        r = await read(350, 2);
        expect(listed(r)).toEqual([1100, 1300]);
      });

      it("takes back many keys' refunds at once, each key's own", async () => {
        const { s, refund, read } = await refundsOf();
        await s.sync(req({ policy: p, entries: [push('k', [100, 100, 200]), push('j', [100, 300])] }), 300);
        const rs = [
          { seq: 1, at: 100 },
          { seq: 2, at: 200 },
          { key: 'none', seq: 1, at: 100 },
          { key: 'j', seq: 1, at: 300 },
        ];
        expect(await refund('gw-a', rs, 310)).toBe(3);
        const k = await read(320, 1);
        expect(listed(k)).toEqual([1100]);
        const j = await read(320, 2, 'j');
        expect(listed(j)).toEqual([1100]);
      });

      it("finds its admit behind other gateways' later syncs", async () => {
        // gw-a's one sync holds 100 and 500; six gateways' syncs since hold an admit each at 200-250,
        // so a store that keeps a sync's admits together reads those six before gw-a's (the Redis
        // exact log reads a few members first, then up to 128: the second read must happen)
        const { s, refund, read } = await refundsOf();
        await s.sync(req({ policy: p, entries: [push('k', [100, 500])] }), 500);
        for (let i = 0; i < 6; i++)
          await s.sync(req({ gatewayId: `gw-${i}`, policy: p, entries: [push('k', [200 + 10 * i])] }), 510);
        expect(await refund('gw-a', [{ seq: 1, at: 500 }], 520)).toBe(1);
        const r = await read(530, 1);
        expect(r.count).toBe(7);
        expect(listed(r)).toEqual([1100, 1200, 1210, 1220, 1230, 1240, 1250]);
      });

      it('an instant with no admit, or one aged out, changes nothing; nor do its neighbours', async () => {
        const { s, refund, read } = await refundsOf();
        await s.sync(req({ policy: p, entries: [push('k', [100, 900])] }), 900);
        expect(await refund('gw-a', [{ seq: 1, at: 500, cost: 3 }], 950)).toBe(0);
        // at 1100 the admit at 100 has left the window
        expect(await refund('gw-a', [{ seq: 2, at: 100 }], 1100)).toBe(0);
        expect(
          await refund(
            'gw-a',
            [
              { seq: 3, at: 100 },
              { key: 'none', seq: 4, at: 900 },
            ],
            1100,
          ),
        ).toBe(0);
        const r = await read(1100, 1);
        expect(r.count).toBe(1);
        expect(listed(r)).toEqual([1900]);
      });

      it("seqs are per gateway and key: one gateway's seq never skips another's refund", async () => {
        const { s, refund, read } = await refundsOf();
        await s.sync(req({ policy: p, entries: [push('k', [100, 100, 100]), push('j', [100])] }), 100);
        expect(await refund('gw-a', [{ seq: 5, at: 100 }], 110)).toBe(1);
        expect(await refund('gw-b', [{ seq: 1, at: 100 }], 120)).toBe(1);
        // gw-a's seq 5 on k says nothing about its seq 2 on j
        expect(await refund('gw-a', [{ key: 'j', seq: 2, at: 100 }], 130)).toBe(1);
        expect((await read(140, 1)).count).toBe(1);
        expect((await read(140, 2, 'j')).count).toBe(0);
      });

      it("frees the slot for logAdmit, and takes back central-log's admits by the store's stamp", async () => {
        const { s } = await refundsOf();
        const q: Policy = { ...p, limit: 2 };
        const a = await s.logAdmit(
          { key: 'k', policy: q, cost: 1, call: { gatewayId: 'gw-a', seq: 1 } },
          100,
        );
        await s.logAdmit({ key: 'k', policy: q, cost: 1, call: { gatewayId: 'gw-a', seq: 2 } }, 150);
        expect((await s.logAdmit({ key: 'k', policy: q, cost: 1 }, 160)).allowed).toBe(false);
        const n = await Promise.resolve(
          s.refundAdmits!('gw-a', q, [{ key: 'k', seq: 1, at: a.now, cost: 1 }], 170),
        );
        expect(n).toBe(1);
        const r = await s.logAdmit({ key: 'k', policy: q, cost: 1 }, 180);
        expect(r.allowed).toBe(true);
        expect(r.count).toBe(2);
        // the admit left is the one at 150
        expect(r.oldestExpiry).toBe(1150);
      });

      it('a refund frees a slot a lease may be granted', async () => {
        const { s } = await refundsOf();
        const q: Policy = { ...p, limit: 2 };
        await s.sync(req({ policy: q, entries: [push('k', [100, 100], false)] }), 100);
        const before = await s.sync(req({ gatewayId: 'gw-b', policy: q, entries: [lease('k', 2)] }), 110);
        expect(before.replies[0].granted).toBe(0);
        await Promise.resolve(s.refundAdmits!('gw-a', q, [{ key: 'k', seq: 1, at: 100, cost: 1 }], 120));
        const after = await s.sync(
          req({ gatewayId: 'gw-b', seq: 2, policy: q, entries: [lease('k', 2)] }),
          130,
        );
        expect(after.replies[0].granted).toBe(1);
      });

      it('a fixed window takes back an admit until its window ends', async () => {
        const s = await make();
        const f: Policy = { limit: 3, windowMs: 1000, windowKind: 'fixed' };
        await s.sync(req({ policy: f, entries: [push('k', [900, 950])] }), 950);
        expect(
          await Promise.resolve(s.refundAdmits!('gw-a', f, [{ key: 'k', seq: 1, at: 900, cost: 1 }], 999)),
        ).toBe(1);
        // past the window's end nothing counts, nothing to take
        expect(
          await Promise.resolve(s.refundAdmits!('gw-a', f, [{ key: 'k', seq: 2, at: 950, cost: 1 }], 1000)),
        ).toBe(0);
        expect((await s.logAdmit({ key: 'k', policy: f, cost: 3 }, 1000)).allowed).toBe(true);
      });
    });

    describe('resetScan (issue 36: resetAll)', () => {
      const p: Policy = { limit: 5, windowMs: 1000, windowKind: 'sliding' };
      const other: Policy = { ...p, limit: 6 };
      // glob characters, a name holding another kind's marker, a key too long to be verbatim
      const odd = ['a*b', 'x?[y]\\z', `k}m[${p.limit}/${p.windowMs}s]:j`, 'ü'.repeat(150)];
      const keys = [...odd, ...Array.from({ length: 34 }, (_, i) => `key-${i}`)];
      const scanAll = async (s: AnyStore, at: number, now: number, count: number) => {
        let cursor: string | null = '';
        let removed = 0;
        let calls = 0;
        while (cursor !== null) {
          const r: ResetScanReply = await Promise.resolve(
            s.resetScan!({ gatewayId: 'gw-r', policy: p, at, cursor, count }, now),
          );
          expect(r.keys).toBeLessThanOrEqual(Math.max(count * 4, 32));
          removed += r.removed;
          cursor = r.cursor;
          calls++;
        }
        return { removed, calls };
      };
      let seq = 0;
      const read = async (s: AnyStore, key: string, now: number, policy = p) =>
        (
          await s.sync(
            req({ gatewayId: 'reader', seq: ++seq, policy, horizonMs: 5000, entries: [push(key, [])] }),
            now,
          )
        ).replies[0];

      it('resets every key of the policy through its instant, in chunks; admits after it stay', async () => {
        const s = await make();
        if (s.resetScan === undefined) throw new Error('the store has no resetScan');
        const entries = keys.map((k, i) => push(k, i % 2 === 0 ? [100, 200] : [150, 280], false));
        await s.sync(req({ policy: p, entries }), 290);
        await s.sync(req({ gatewayId: 'gw-b', policy: other, entries: [push('key-1', [120])] }), 290);
        // the reset was asked for at 250 and reaches the store at 300: the admits at 280 were made since
        const { removed, calls } = await scanAll(s, 250, 300, 4);
        expect(removed).toBe(keys.length * 2 - keys.length / 2);
        expect(calls).toBeGreaterThan(1);
        for (const [i, k] of keys.entries()) {
          const r = await read(s, k, 310);
          expect(r.count, k).toBe(i % 2 === 0 ? 0 : 1);
          expect(listed(r), k).toEqual(i % 2 === 0 ? [] : [1280]);
        }
        // another policy's keys are untouched; a repeat removes nothing more
        expect((await read(s, 'key-1', 310, other)).count).toBe(1);
        expect((await scanAll(s, 250, 320, 4)).removed).toBe(0);
        // an empty store: through at once
        expect((await scanAll(s, 250, 320, 1000)).removed).toBe(0);
      });

      it('keeps grants, and never resets past its now', async () => {
        const s = await make();
        if (s.resetScan === undefined) throw new Error('the store has no resetScan');
        await s.sync(req({ policy: p, entries: [push('k', [100, 200], false)] }), 200);
        const b = await s.sync(req({ gatewayId: 'gw-b', policy: p, entries: [lease('k', 2)] }), 210);
        expect(b.replies[0].granted).toBe(2);
        // an instant past the store's now resets through now only
        await s.sync(req({ seq: 2, policy: p, entries: [push('k', [400], false)] }), 220);
        expect((await scanAll(s, 10_000, 300, 10)).removed).toBe(2);
        const c = await s.sync(req({ gatewayId: 'gw-c', policy: p, entries: [lease('k', 5)] }), 310);
        // L = 5: gw-b's 2 and the admit at 400 still hold 3
        expect(c.replies[0].granted).toBe(2);
        expect(c.replies[0].count).toBe(1);
      });
    });

    describe('resetKey (issue 36)', () => {
      const p: Policy = { limit: 3, windowMs: 1000, windowKind: 'sliding' };
      const resetsOf = async () => {
        const s = await make();
        if (s.resetKey === undefined) throw new Error('the store has no resetKey');
        const reset = async (now: number, key = 'k', policy = p) =>
          (await Promise.resolve(s.resetKey!({ gatewayId: 'gw-r', key, policy }, now))).removed;
        let seq = 0;
        const read = async (now: number, key = 'k', policy = p) =>
          (
            await s.sync(
              req({ gatewayId: 'reader', seq: ++seq, policy, horizonMs: 5000, entries: [push(key, [])] }),
              now,
            )
          ).replies[0];
        return { s, reset, read };
      };

      it('forgets every admit counted at its now; a repeat forgets nothing more', async () => {
        const { s, reset, read } = await resetsOf();
        await s.sync(req({ policy: p, entries: [{ ...push('k', [100, 200]), counts: [1, 2] }] }), 300);
        expect((await read(300)).count).toBe(3);
        expect(await reset(310)).toBe(3);
        const r = await read(320);
        expect(r.count).toBe(0);
        expect(listed(r)).toEqual([]);
        expect(await reset(330)).toBe(0);
        // another key and another policy's same key are untouched
        await s.sync(req({ seq: 2, policy: p, entries: [push('j', [340])] }), 340);
        await s.sync(req({ seq: 3, policy: { ...p, limit: 4 }, entries: [push('k', [340])] }), 340);
        expect(await reset(350)).toBe(0);
        expect((await read(360, 'j')).count).toBe(1);
        expect((await read(360, 'k', { ...p, limit: 4 })).count).toBe(1);
        // a key the store holds nothing of
        expect(await reset(370, 'none')).toBe(0);
      });

      it('admits pushed after the reset count, whatever their instant; admits after its now stay', async () => {
        const { s, reset, read } = await resetsOf();
        // one push holding an admit before the reset's now and one after it (a clock ahead)
        await s.sync(req({ policy: p, entries: [push('k', [100, 900])] }), 100);
        expect(await reset(200)).toBe(1);
        let r = await read(210);
        expect(r.count).toBe(1);
        expect(listed(r)).toEqual([1900]);
        // another gateway's admit made at 150, pushed after the reset: it counts
        await s.sync(req({ gatewayId: 'gw-b', policy: p, entries: [push('k', [150])] }), 250);
        r = await read(260);
        expect(r.count).toBe(2);
        expect(listed(r)).toEqual([1150, 1900]);
      });

      it('frees the slots for logAdmit; voids of calls it forgot take nothing more', async () => {
        const { s, reset } = await resetsOf();
        const call = (seq: number) => ({ gatewayId: 'gw-a', seq });
        for (let i = 1; i <= 3; i++)
          expect((await s.logAdmit({ key: 'k', policy: p, cost: 1, call: call(i) }, 100 + i)).allowed).toBe(
            true,
          );
        expect((await s.logAdmit({ key: 'k', policy: p, cost: 1 }, 110)).allowed).toBe(false);
        expect(await reset(120)).toBe(3);
        expect((await s.logAdmit({ key: 'k', policy: p, cost: 1, call: call(4) }, 130)).count).toBe(1);
        await s.voidLogAdmits('gw-a', p, [{ key: 'k', seq: 2, cost: 1 }], 140);
        const r = await s.logAdmit({ key: 'k', policy: p, cost: 1, call: call(5) }, 150);
        expect(r.allowed).toBe(true);
        expect(r.count).toBe(2);
        expect(r.oldestExpiry).toBe(1130);
      });

      it('keeps grants: slots granted and not spent stay reserved', async () => {
        const { s, reset } = await resetsOf();
        await s.sync(req({ policy: p, entries: [push('k', [100], false)] }), 100);
        const b = await s.sync(req({ gatewayId: 'gw-b', policy: p, entries: [lease('k', 2)] }), 110);
        expect(b.replies[0].granted).toBe(2);
        expect(await reset(120)).toBe(1);
        // L = 3: gw-b's 2 are still out, so one slot is free
        const c = await s.sync(req({ gatewayId: 'gw-c', policy: p, entries: [lease('k', 3)] }), 130);
        expect(c.replies[0].granted).toBe(1);
        expect(c.replies[0].count).toBe(0);
      });

      it('a fixed window: forgets its admits, and the next window starts empty as ever', async () => {
        const { s, reset, read } = await resetsOf();
        await s.sync(req({ policy: fixed, entries: [push('k', [900, 950, 990])] }), 990);
        expect((await s.logAdmit({ key: 'k', policy: fixed, cost: 1 }, 995)).allowed).toBe(false);
        expect(await reset(996, 'k', fixed)).toBe(3);
        expect((await s.logAdmit({ key: 'k', policy: fixed, cost: 3 }, 997)).allowed).toBe(true);
        expect((await read(1000, 'k', fixed)).count).toBe(0);
      });
    });
  });
}
