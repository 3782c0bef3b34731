import { afterEach, describe, expect, it, vi } from 'vitest';
import { createAsyncGateway } from '../../../src/gateway/runtime/index.js';
import type { AsyncStore } from '../../../src/store/contract.js';
import { MemoryStore } from '../../../src/store/memory-store.js';
import { allowed, base, counted, twoConcurrentOnAnEmptyLease } from '../../support/lease-ask-coalescing.js';

/**
 * leases-ask in the async runtime: one ask in flight per key. Requests that find no slot while an ask
 * for their key is out wait on it and spend what it brought, as they would with the simulator's store
 * (which answers at once, so the next request finds the grant). Found by `fleetlimit fleet`: without
 * it every such request asked again, +31 % store calls per request against the simulator.
 */
/**
 * The in-memory store answering on a later macrotask, as over a network: concurrent calls overlap.
 * setImmediate, not a timer: no wall time passes in these tests.
 */
function slowMemory(mem = new MemoryStore()): AsyncStore {
  const later = <T>(f: () => T) => new Promise<T>((r) => setImmediate(() => r(f())));
  return {
    sync: (req, now) => later(() => mem.sync(req, now)),
    logAdmit: (req, now) => later(() => mem.logAdmit(req, now)),
    voidLogAdmits: (g, p, v, now) => later(() => mem.voidLogAdmits(g, p, v, now)),
    ask: (req, now) => later(() => mem.ask(req, now)),
  };
}

afterEach(() => {
  vi.useRealTimers();
});

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
    mem.logAdmit({ key: 'k', policy: { limit: 1, windowMs: 60_000, windowKind: 'sliding' }, cost: 1 }, t); // the window is full
    const store = counted(slowMemory(mem));
    const gw = createAsyncGateway({ ...base, limit: 1, store, clock: () => t });
    const ds = await Promise.all([gw.admitNow('k'), gw.admitNow('k'), gw.admitNow('k')]);
    expect(allowed(ds)).toEqual([false, false, false]);
    expect(ds.every((d) => d.degraded === undefined)).toBe(true);
    expect(store.asks).toHaveLength(1);
    expect(gw.stats().coalescedAsks).toBe(2);
  });

  it('requests waiting on an ask that timed out get the fail mode, as the asking request does', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const hang: AsyncStore = { ...slowMemory(), ask: () => new Promise(() => {}) };
    const store = counted(hang);
    const gw = createAsyncGateway({ ...base, store, storeTimeoutMs: 20 });
    const all = Promise.all([gw.admitNow('k'), gw.admitNow('k')]);
    await vi.advanceTimersByTimeAsync(20);
    const ds = await all;
    // leases-ask under `local` spends granted slots only, and this gateway holds none
    expect(ds.map((d) => [d.allowed, d.degraded])).toEqual([
      [false, true],
      [false, true],
    ]);
    expect(store.asks).toHaveLength(1);
  });
});
