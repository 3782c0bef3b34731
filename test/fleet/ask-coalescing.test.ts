import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Decision } from '../../src/gateway/decision.js';
import { createAsyncGateway } from '../../src/gateway/runtime/index.js';
import type { AsyncStore } from '../../src/store/contract.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import { RedisStore } from '../../src/store/redis/index.js';
import { type RedisServer, startRedisServer } from '../support/redis-server.js';

/**
 * leases-ask in the async runtime: one ask in flight per key. Requests that find no slot while an ask
 * for their key is out wait on it and spend what it brought, as they would with the simulator's store
 * (which answers at once, so the next request finds the grant). Found by `fleetlimit fleet`: without
 * it every such request asked again, +31 % store calls per request against the simulator.
 */
/** Counts asks (and the most in flight at once) on the way to `inner`. */
function counted(inner: AsyncStore): AsyncStore & { asks: number[]; maxInFlight: number } {
  let inFlight = 0;
  const out = {
    asks: [] as number[],
    maxInFlight: 0,
    sync: (req, now) => inner.sync(req, now),
    logAdmit: (k, p, now, c) => inner.logAdmit(k, p, now, c),
    voidLogAdmits: (g, p, v, now) => inner.voidLogAdmits(g, p, v, now),
    ask: async (g, k, p, ttl, n, now) => {
      out.asks.push(n);
      out.maxInFlight = Math.max(out.maxInFlight, ++inFlight);
      try {
        return await inner.ask(g, k, p, ttl, n, now);
      } finally {
        inFlight--;
      }
    },
  } satisfies AsyncStore & { asks: number[]; maxInFlight: number };
  return out;
}

/** The in-memory store answering on a later macrotask, as over a network: concurrent calls overlap. */
function slowMemory(mem = new MemoryStore()): AsyncStore {
  const later = <T>(f: () => T) => new Promise<T>((r) => setTimeout(() => r(f()), 1));
  return {
    sync: (req, now) => later(() => mem.sync(req, now)),
    logAdmit: (k, p, now, c) => later(() => mem.logAdmit(k, p, now, c)),
    voidLogAdmits: (g, p, v, now) => later(() => mem.voidLogAdmits(g, p, v, now)),
    ask: (g, k, p, ttl, n, now) => later(() => mem.ask(g, k, p, ttl, n, now)),
  };
}

const base = {
  id: 'gw-0',
  design: 'leases-ask' as const,
  limit: 10,
  windowMs: 60_000,
  gateways: 2,
  // α = 1 − e^(−Δ/W) = 0.39: three arrivals in an interval make the next asks 3 slots
  syncMs: 30_000,
  storeTimeoutMs: 2_000,
  staleAfterMs: 60_000,
};

const allowed = (ds: Decision[]) => ds.map((d) => d.allowed);

/**
 * A gateway whose key has seen arrivals (so an ask asks for more than one slot: ceil(1.5 m) + 1) and
 * holds no slot now: three requests one after another (an ask each), a sync (m = 1.18, a grant of 3),
 * three more requests that spend it.
 */
async function emptyLeaseKey(store: AsyncStore) {
  const gw = createAsyncGateway({ ...base, store });
  for (let i = 0; i < 3; i++) expect((await gw.admitNow('k')).allowed).toBe(true);
  expect(await gw.syncNow()).toBe(true);
  for (let i = 0; i < 3; i++) expect((await gw.admitNow('k')).allowed).toBe(true);
  expect(gw.limiterFor('k')?.remaining(gw.now())).toBe(0);
  return gw;
}

async function twoConcurrentOnAnEmptyLease(inner: AsyncStore): Promise<void> {
  const store = counted(inner);
  const gw = await emptyLeaseKey(store);
  // 6 of L = 10 admitted; the next ask is for 3 slots
  store.asks.length = 0;
  const first = gw.admitNow('k');
  const second = gw.admitNow('k');
  expect(first).toBeInstanceOf(Promise);
  expect(second).toBeInstanceOf(Promise);
  expect(allowed(await Promise.all([first, second]))).toEqual([true, true]);
  expect(store.asks).toEqual([3]);
  expect(gw.stats().coalescedAsks).toBe(1);
  await gw.stop();
}

describe('leases-ask: one ask in flight per key (in-memory store)', () => {
  it('two concurrent requests on an empty lease key make one ask and both spend its grant', async () => {
    await twoConcurrentOnAnEmptyLease(slowMemory());
  });

  it('on a new key (an ask for one slot) the second request asks only once the first ask is answered', async () => {
    const store = counted(slowMemory());
    const gw = createAsyncGateway({ ...base, store });
    const ds = await Promise.all([gw.admitNow('k'), gw.admitNow('k')]);
    expect(allowed(ds)).toEqual([true, true]);
    // as with the simulator's store: the first ask brought one slot, the second request asked again
    expect(store.asks).toEqual([1, 1]);
    expect(store.maxInFlight).toBe(1);
    expect(gw.stats().coalescedAsks).toBe(1);
  });

  it('requests waiting on an ask that brought nothing are rejected without asking again', async () => {
    const mem = new MemoryStore();
    const t = Date.now();
    mem.logAdmit('k', { limit: 1, windowMs: 60_000, windowKind: 'sliding' }, t, 1); // the window is full
    const store = counted(slowMemory(mem));
    const gw = createAsyncGateway({ ...base, limit: 1, store, clock: () => t });
    const ds = await Promise.all([gw.admitNow('k'), gw.admitNow('k'), gw.admitNow('k')]);
    expect(allowed(ds)).toEqual([false, false, false]);
    expect(ds.every((d) => d.degraded === undefined)).toBe(true);
    expect(store.asks).toHaveLength(1);
    expect(gw.stats().coalescedAsks).toBe(2);
  });

  it('requests waiting on an ask that timed out get the fail mode, as the asking request does', async () => {
    const hang: AsyncStore = { ...slowMemory(), ask: () => new Promise(() => {}) };
    const store = counted(hang);
    const gw = createAsyncGateway({ ...base, store, storeTimeoutMs: 20 });
    const ds = await Promise.all([gw.admitNow('k'), gw.admitNow('k')]);
    // leases-ask under `local` spends granted slots only, and this gateway holds none
    expect(ds.map((d) => [d.allowed, d.degraded])).toEqual([
      [false, true],
      [false, true],
    ]);
    expect(store.asks).toHaveLength(1);
  });
});

describe('leases-ask: one ask in flight per key (real redis-server)', () => {
  let server: RedisServer;
  let client: Redis;
  beforeAll(async () => {
    server = await startRedisServer();
    client = new Redis(server.url, { maxRetriesPerRequest: 1 });
  });
  afterAll(async () => {
    client?.disconnect();
    await server?.stop();
  });

  it('two concurrent requests on an empty lease key make one ask and both spend its grant', async () => {
    await twoConcurrentOnAnEmptyLease(new RedisStore(client, { prefix: 'coalesce:' }));
  });
});
