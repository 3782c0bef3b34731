import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Policy } from '../../../src/config.js';
import type { RedisStore } from '../../../src/store/redis/index.js';
import { type SingleFixture, singleServer } from '../../support/redis-fixtures.js';

let fx: SingleFixture;
beforeAll(async () => {
  fx = await singleServer();
});
afterAll(async () => {
  await fx?.close();
});

const policy: Policy = { limit: 5, windowMs: 2000, windowKind: 'sliding' };

async function keysOf(store: RedisStore): Promise<string[]> {
  const c = fx.client();
  const found: string[] = [];
  let cursor = '0';
  do {
    const [next, batch] = await c.scan(cursor, 'MATCH', `${store.options.prefix}*`, 'COUNT', 1000);
    found.push(...batch);
    cursor = next;
  } while (cursor !== '0');
  c.disconnect();
  return found;
}

describe('every key written expires by itself', () => {
  it('log and meta keys carry a TTL of about the window (a grant: its lapse plus the window) plus the margin', async () => {
    const store = fx.store({ expiryMarginMs: 1000 });
    await store.logAdmit({ key: 'a', policy, cost: 1 }, 0);
    await store.ask({ gatewayId: 'g', key: 'b', policy, leaseTtlMs: 5000, ask: 2 }, 0);
    await store.sync(
      {
        gatewayId: 'g',
        seq: 1,
        policy,
        leaseTtlMs: 500,
        horizonMs: 100,
        entries: [
          { key: 'c', admits: [Date.now()], read: true, release: false, ask: 1 },
          { key: 'a', admits: [], read: true, release: true, ask: 2 },
        ],
      },
      Date.now(),
    );
    const keys = await keysOf(store);
    // a, c: log and meta; b holds only a grant, so only its meta hash exists
    expect(keys.length).toBe(5);
    const c = fx.client();
    for (const k of keys) {
      const ttl = await c.pttl(k);
      expect(ttl, k).toBeGreaterThan(0);
      // b's grant lapses 5 s from now and stays counted for a window after (see common.lua's parseGrant)
      expect(ttl, k).toBeLessThanOrEqual(5000 + policy.windowMs + 1000);
    }
    c.disconnect();
  });

  it('a key with nothing left is deleted at once', async () => {
    const store = fx.store({ clock: 'caller' });
    await store.logAdmit({ key: 'a', policy, cost: 1 }, 0);
    await store.ask({ gatewayId: 'g', key: 'a', policy, leaseTtlMs: 100, ask: 1 }, 0);
    expect((await keysOf(store)).length).toBe(2);
    // the admit ages out at W; the grant, lapsed at 100, is counted until 100 + W
    const read = { key: 'a', admits: [], read: true, release: false, ask: 0 };
    const at = (now: number) =>
      store.sync({ gatewayId: 'h', seq: now, policy, leaseTtlMs: 100, horizonMs: 0, entries: [read] }, now);
    await at(100 + policy.windowMs - 1);
    expect((await keysOf(store)).length).toBe(1);
    await at(100 + policy.windowMs);
    expect(await keysOf(store)).toEqual([]);
  });

  it('a read of a key the store does not hold writes nothing', async () => {
    const store = fx.store();
    await store.sync(
      {
        gatewayId: 'g',
        seq: 1,
        policy,
        leaseTtlMs: 500,
        horizonMs: 100,
        entries: [{ key: 'ghost', admits: [], read: true, release: true, ask: 0 }],
      },
      0,
    );
    expect(await keysOf(store)).toEqual([]);
  });
});

describe('scripts survive an empty script cache', () => {
  it('SCRIPT FLUSH between calls, single and pipelined', async () => {
    const store = fx.store({ clock: 'caller', chunkKeys: 3 });
    const admin = fx.client();
    expect((await store.logAdmit({ key: 'k', policy, cost: 1 }, 0)).allowed).toBe(true);
    await admin.script('FLUSH');
    expect((await store.logAdmit({ key: 'k', policy, cost: 1 }, 1)).count).toBe(2);
    await admin.script('FLUSH');
    expect((await store.ask({ gatewayId: 'g', key: 'k', policy, leaseTtlMs: 100, ask: 2 }, 2)).granted).toBe(
      2,
    );
    await admin.script('FLUSH');
    const entries = ['k', 'x', 'y', 'z', 'w'].map((key) => ({
      key,
      admits: [3],
      read: true,
      release: false,
      ask: 0,
    }));
    const r = await store.sync(
      { gatewayId: 'h', seq: 1, policy, leaseTtlMs: 100, horizonMs: 10, entries },
      4,
    );
    expect(r.replies.map((x) => x.count)).toEqual([3, 1, 1, 1, 1]);
    admin.disconnect();
  });

  it.skipIf(!!process.env.REDIS_URL)(
    'a restarted server (empty, no scripts) is served again once the client reconnects',
    async () => {
      const store = fx.store();
      expect((await store.logAdmit({ key: 'k', policy, cost: 1 }, 0)).allowed).toBe(true);
      await fx.server.restart();
      const r = await store.logAdmit({ key: 'k', policy, cost: 1 }, 0);
      // nothing is persisted: the restarted server starts empty
      expect(r).toMatchObject({ allowed: true, count: 1 });
    },
  );
});

describe("the store's clock", () => {
  it("with clock 'redis' the window runs on Redis TIME and the caller's now is ignored", async () => {
    const store = fx.store();
    const before = Date.now();
    const r = await store.logAdmit({ key: 'k', policy, cost: 1 }, 42);
    expect(r.now).toBeGreaterThanOrEqual(before - 1000);
    expect(r.oldestExpiry).toBe(r.now + policy.windowMs);
    const s = await store.sync(
      {
        gatewayId: 'g',
        seq: 1,
        policy,
        leaseTtlMs: 500,
        horizonMs: 5000,
        entries: [{ key: 'k', admits: [], read: true, release: false, ask: 1 }],
      },
      42,
    );
    expect(s.now).toBeGreaterThanOrEqual(r.now);
    expect(s.replies[0]).toMatchObject({
      count: 1,
      expiries: [r.oldestExpiry],
      granted: 1,
      grantExpiresAt: s.now + 500,
    });
    expect(
      (await store.sync({ gatewayId: 'g', seq: 2, policy, leaseTtlMs: 1, horizonMs: 1, entries: [] }, 42))
        .now,
    ).toBeGreaterThanOrEqual(s.now);
  });

  it('options are checked, naming the field', () => {
    expect(() => fx.store({ clock: 'gateway' as 'redis' })).toThrow(/^clock:/);
    expect(() => fx.store({ mode: 'approx' as 'exact' })).toThrow(/^mode:/);
    expect(() => fx.store({ chunkKeys: 0 })).toThrow(/^chunkKeys:/);
  });
});

describe('large pushes', () => {
  it('one key pushed thousands of admits in one sync keeps every one', async () => {
    const store = fx.store({ clock: 'caller', chunkAdmits: 100 });
    const p: Policy = { limit: 100_000, windowMs: 10_000, windowKind: 'sliding' };
    const admits = Array.from({ length: 4500 }, (_, i) => i / 2);
    const other = { key: 'small', admits: [1], read: true, release: false, ask: 0 };
    const r = await store.sync(
      {
        gatewayId: 'g',
        seq: 1,
        policy: p,
        leaseTtlMs: 100,
        horizonMs: 10_000,
        entries: [{ key: 'big', admits, read: true, release: false, ask: 0 }, other],
      },
      3000,
    );
    expect(r.replies[0].count).toBe(4500);
    expect(r.replies[0].expiries).toEqual(admits.map((t) => t + 10_000));
    expect(r.replies[1].count).toBe(1);
  });
});
