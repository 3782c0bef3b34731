import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Policy, WindowKind } from '../../../src/config.js';
import type { SyncRequest } from '../../../src/store/contract.js';
import { MemoryStore } from '../../../src/store/memory-store.js';
import { seeded } from '../../support/fc-seed.js';
import { metaBuckets } from '../../support/meta-record.js';
import { type SingleFixture, singleServer } from '../../support/redis-fixtures.js';
import type { AnyStore } from '../../support/store-contract.js';

let fx: SingleFixture;
beforeAll(async () => {
  fx = await singleServer();
});
afterAll(async () => {
  await fx?.close();
});

const BUCKETS = 60;
const compact = () =>
  fx.store({ clock: 'caller', mode: 'buckets', buckets: BUCKETS, expiryMarginMs: 600_000 });

/** Pushes the admits at or before each check instant, then reads the key's count there. */
async function countsAt(
  store: AnyStore,
  policy: Policy,
  admits: number[],
  checks: number[],
): Promise<number[]> {
  const out: number[] = [];
  let next = 0;
  let seq = 0;
  const req = (gatewayId: string, s: number, entry: SyncRequest['entries'][number]): SyncRequest => ({
    gatewayId,
    seq: s,
    policy,
    leaseTtlMs: 100,
    horizonMs: 10,
    entries: [entry],
  });
  for (const q of checks) {
    const batch: number[] = [];
    while (next < admits.length && admits[next] <= q) batch.push(admits[next++]);
    if (batch.length > 0)
      await store.sync(
        req('pusher', ++seq, { key: 'k', admits: batch, read: false, release: false, ask: 0 }),
        q,
      );
    const r = await store.sync(
      req('reader', seq, { key: 'k', admits: [], read: true, release: false, ask: 0 }),
      q,
    );
    out.push(r.replies[0].count);
  }
  return out;
}

const sorted = (max: number, n: number) =>
  fc
    // quarter milliseconds: fractional times, and ties
    .array(
      fc.integer({ min: 0, max: max * 4 }).map((q) => q / 4),
      {
        minLength: Math.ceil(n / 2),
        maxLength: n,
      },
    )
    .map((a) => a.sort((x, y) => x - y));

describe('compact mode (buckets): error against the exact log', () => {
  let overCounted = 0;
  it('a sliding count is never below the exact one and above it by at most the admits of one bucket', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 60, max: 600 }),
        sorted(600, 200),
        sorted(1200, 30),
        async (windowMs, admits, checks) => {
          const policy: Policy = { limit: 1_000_000, windowMs, windowKind: 'sliding' };
          const exact = await countsAt(new MemoryStore(), policy, admits, checks);
          const approx = await countsAt(compact(), policy, admits, checks);
          const width = windowMs / BUCKETS;
          for (let i = 0; i < checks.length; i++) if (approx[i] > exact[i]) overCounted++;
          for (let i = 0; i < checks.length; i++) {
            // the one bucket that holds the window's start: its admits may count until its latest expires
            const straddling = Math.floor((checks[i] - windowMs) / width);
            const inIt = admits.filter((t) => Math.floor(t / width) === straddling && t <= checks[i]).length;
            expect(approx[i] - exact[i]).toBeGreaterThanOrEqual(0);
            expect(approx[i] - exact[i]).toBeLessThanOrEqual(inIt);
          }
        },
      ),
      seeded({ numRuns: 60 }),
    );
    // the bound was exercised, not met trivially
    expect(overCounted).toBeGreaterThan(0);
  });

  it('a fixed window whose width is a multiple of the buckets is counted exactly', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 40 }),
        sorted(4000, 120),
        sorted(4000, 30),
        async (w, admits, checks) => {
          const policy: Policy = {
            limit: 1_000_000,
            windowMs: w * BUCKETS,
            windowKind: 'fixed' as WindowKind,
          };
          const exact = await countsAt(new MemoryStore(), policy, admits, checks);
          expect(await countsAt(compact(), policy, admits, checks)).toEqual(exact);
        },
      ),
      seeded({ numRuns: 75 }),
    );
  });

  it('holds the limit, errs towards rejecting, and keeps at most one hash field per bucket', async () => {
    const store = compact();
    const policy: Policy = { limit: 10_000, windowMs: 60_000, windowKind: 'sliding' };
    let admitted = 0;
    for (let t = 0; t < 120_000; t += 200)
      if ((await store.logAdmit({ key: 'k', policy, cost: 20 }, t)).allowed) admitted += 20;
    // the buckets are fields of the meta hash (window-buckets.lua)
    const buckets = await metaBuckets(fx.client(), store.keyNames('k', policy).meta);
    expect(buckets.length).toBeGreaterThan(0);
    expect(buckets.length).toBeLessThanOrEqual(BUCKETS + 1);
    const exact = new MemoryStore();
    let exactAdmitted = 0;
    for (let t = 0; t < 120_000; t += 200)
      if (exact.logAdmit({ key: 'k', policy, cost: 20 }, t).allowed) exactAdmitted += 20;
    expect(admitted).toBeLessThanOrEqual(exactAdmitted);
    expect(admitted).toBeGreaterThanOrEqual(exactAdmitted - 2 * 1000);
  });

  it('grants never pass the limit in compact mode', async () => {
    const store = compact();
    const policy: Policy = { limit: 30, windowMs: 600, windowKind: 'sliding' };
    await store.logAdmit({ key: 'k', policy, cost: 10 }, 0);
    expect(
      (await store.ask({ gatewayId: 'a', key: 'k', policy, leaseTtlMs: 1000, ask: 15 }, 1)).granted,
    ).toBe(15);
    expect(
      (await store.ask({ gatewayId: 'b', key: 'k', policy, leaseTtlMs: 1000, ask: 15 }, 2)).granted,
    ).toBe(5);
    expect((await store.logAdmit({ key: 'k', policy, cost: 1 }, 3)).allowed).toBe(false);
  });
});

describe('compact mode: a lease reply says when its count next falls and what is free (issue 31)', () => {
  it('oldestExpiry is the oldest bucket’s (its latest admit’s expiry), free counts every grant', async () => {
    const store = compact();
    const p: Policy = { limit: 5, windowMs: 60_000, windowKind: 'sliding' };
    const req = (seq: number, admits: number[], ask: number): SyncRequest => ({
      gatewayId: 'g',
      seq,
      policy: p,
      leaseTtlMs: 3_000,
      horizonMs: 4_000,
      entries: [{ key: 'k', admits, read: false, release: true, ask }],
    });
    // one admit in the first 1 s bucket, two in the second
    const a = (await store.sync(req(1, [100, 1_500, 1_700], 1), 2_000)).replies[0];
    expect(a).toMatchObject({ count: 3, granted: 1, oldestExpiry: 60_100, free: 1 });
    const asked = await store.ask({ gatewayId: 'h', key: 'k', policy: p, leaseTtlMs: 3_000, ask: 5 }, 2_100);
    expect(asked).toMatchObject({ granted: 1, count: 3, oldestExpiry: 60_100, free: 0 });
    // the first bucket has left; the second counts until its latest admit's expiry, 61,700; g's
    // grant is handed back, h's (lapsed at 5,100) still counted until 65,100
    const b = (await store.sync(req(2, [], 0), 60_200)).replies[0];
    expect(b).toMatchObject({ count: 2, oldestExpiry: 61_700, free: 2 });
    expect(
      (await store.ask({ gatewayId: 'h', key: 'k', policy: p, leaseTtlMs: 3_000, ask: 0 }, 61_700))
        .oldestExpiry,
    ).toBe(Number.POSITIVE_INFINITY);
  });

  it('a read that lists no expiry says the oldest bucket’s, on the plain path and the general one', async () => {
    const store = compact();
    const p: Policy = { limit: 5, windowMs: 60_000, windowKind: 'sliding' };
    const req = (gatewayId: string, seq: number, admits: number[]): SyncRequest => ({
      gatewayId,
      seq,
      policy: p,
      leaseTtlMs: 3_000,
      horizonMs: 4_000,
      entries: [{ key: 'k', admits, read: true, release: false, ask: 0 }],
    });
    // a new key (the general path), then pushes and a read with nothing aged out (the plain path)
    const a = (await store.sync(req('g', 1, [100, 1_500]), 2_000)).replies[0];
    expect(a).toMatchObject({ count: 2, expiries: [], oldestExpiry: 60_100 });
    const b = (await store.sync(req('g', 2, [1_700]), 2_100)).replies[0];
    expect(b).toMatchObject({ count: 3, expiries: [], oldestExpiry: 60_100 });
    const c = (await store.sync(req('h', 1, []), 2_200)).replies[0];
    expect(c).toMatchObject({ count: 3, expiries: [], oldestExpiry: 60_100 });
    // the first bucket has left: the second counts until its latest admit's expiry
    const d = (await store.sync(req('h', 2, []), 60_200)).replies[0];
    expect(d.count).toBe(2);
    expect(d.oldestExpiry ?? d.expiries[0]).toBe(61_700);
  });

  it('a read at the limit or over says when the count falls below L and L − 1, as the buckets count (and pastHorizonAt)', async () => {
    const store = compact();
    const p: Policy = { limit: 2, windowMs: 60_000, windowKind: 'sliding' };
    const req = (gatewayId: string, seq: number, admits: number[]): SyncRequest => ({
      gatewayId,
      seq,
      policy: p,
      leaseTtlMs: 3_000,
      horizonMs: 4_000,
      entries: [{ key: 'k', admits, read: true, release: false, ask: 0 }],
    });
    // at the limit on a new key (the general path): the oldest bucket's, then the next
    const a = (await store.sync(req('g', 1, [100, 1_500]), 2_000)).replies[0];
    expect(a).toMatchObject({ count: 2, belowLimitAt: [60_100, 61_500], pastHorizonAt: [60_100, 61_500] });
    // over it, nothing aged (the plain path): the second bucket holds two, leaving at 61 700
    const b = (await store.sync(req('g', 2, [1_700]), 2_100)).replies[0];
    expect(b).toMatchObject({ count: 3, belowLimitAt: [61_700, 61_700], pastHorizonAt: [60_100, 61_700] });
    const c = (await store.sync(req('h', 1, [2_500]), 2_600)).replies[0];
    expect(c).toMatchObject({ count: 4, belowLimitAt: [61_700, 62_500], pastHorizonAt: [60_100, 61_700] });
    // the first bucket has left (the general path)
    const d = (await store.sync(req('h', 2, []), 60_200)).replies[0];
    expect(d).toMatchObject({ count: 3, belowLimitAt: [61_700, 62_500] });
    // every admit listed: no pastHorizonAt (SyncReply.pastHorizonAt, the two oldest not listed)
    expect(d.pastHorizonAt).toBeUndefined();
    const e = (await store.sync(req('h', 3, []), 61_800)).replies[0];
    expect(e.count).toBe(1);
    expect(e.belowLimitAt).toBeUndefined();
  });
});

describe('compact mode (buckets): two gateways in one bucket (issue 32)', () => {
  // W = 60 s in 60 buckets of 1 s: 10,005 and 10,001 share bucket 10. The bucket counts until its
  // latest admit's expiry (70,005): a merge that kept the later push's time (10,001) instead of the
  // larger one aged the bucket out at 70,001, while the exact count there is still 1
  const policy: Policy = { limit: 1_000, windowMs: 60_000, windowKind: 'sliding' };
  const entry = (admits: number[], lease = false): SyncRequest['entries'][number] => ({
    key: 'k',
    admits,
    read: true,
    release: lease,
    ask: lease ? 1 : 0,
  });
  const sync = (
    store: AnyStore,
    gatewayId: string,
    seq: number,
    e: SyncRequest['entries'][number],
    now: number,
  ) => store.sync({ gatewayId, seq, policy, leaseTtlMs: 100, horizonMs: 10, entries: [e] }, now);

  for (const lease of [false, true]) {
    it(`never counts below the exact log when the later push holds the earlier time${lease ? ' (lease entries)' : ''}`, async () => {
      for (const store of [new MemoryStore(), compact()]) {
        await sync(store, 'gw-a', 1, entry([10_005], lease), 10_010);
        await sync(store, 'gw-b', 1, entry([10_001], lease), 10_020);
        const at = async (seq: number, now: number) =>
          (await sync(store, 'gw-c', seq, entry([]), now)).replies[0].count;
        expect(await at(1, 70_000)).toBe(2);
        // 10,001 aged out, 10,005 still counts: the exact count is 1, the bucket's 2 (it errs high)
        expect(await at(2, 70_003)).toBeGreaterThanOrEqual(1);
        expect(await at(3, 70_005)).toBe(0);
      }
    });
  }

  it('never counts below the exact log when a logAdmit lands in a bucket a later push reached', async () => {
    for (const store of [new MemoryStore(), compact()]) {
      await sync(store, 'gw-a', 1, entry([10_005]), 10_006);
      await store.logAdmit({ key: 'k', policy, cost: 1 }, 10_007);
      await sync(store, 'gw-b', 1, entry([10_001]), 10_020);
      const at = async (seq: number, now: number) =>
        (await sync(store, 'gw-c', seq, entry([]), now)).replies[0].count;
      expect(await at(1, 70_003)).toBeGreaterThanOrEqual(2);
      expect(await at(2, 70_007)).toBe(0);
    }
  });
});
