/**
 * AsyncGateway.resetAll (issue 36, docs/decisions/0015-reset-all.md): the store's keys are reset
 * through the instant of the call, however long the scan takes; the keys this gateway holds go
 * through resetKey's path; a failed chunk says so; a store without resetScan is refused.
 */
import { describe, expect, it } from 'vitest';
import { createAsyncGateway } from '../../../src/gateway/runtime/index.js';
import type { AsyncStore } from '../../../src/store/contract.js';
import { MemoryStore } from '../../../src/store/memory-store.js';
import { HeldStore } from '../../support/held-store.js';

const flush = async () => {
  for (let i = 0; i < 20; i++) await Promise.resolve();
};

function fleet(
  store: AsyncStore | MemoryStore,
  clock: () => number,
  design: 'shared-counter' | 'split' = 'shared-counter',
) {
  return [0, 1].map((i) =>
    createAsyncGateway({
      id: `g${i}`,
      design,
      limit: 3,
      windowMs: 10_000,
      gateways: 2,
      syncMs: 100,
      store,
      clock,
      random: () => 0.5,
    }),
  );
}

describe('AsyncGateway.resetAll', () => {
  it("resets the store's keys through the call's instant: an admit pushed while the scan runs counts", async () => {
    const mem = new MemoryStore();
    const store = new HeldStore(mem);
    // a key a chunk: the chunk reaching "z" is sent after b pushed its admit
    const scan = store.resetScan;
    store.resetScan = (req, t) => scan({ ...req, count: 1 }, t);
    let now = 1_000;
    const [a, b] = fleet(store, () => now);
    const policy = a.options.policy;
    for (let i = 0; i < 3; i++) await b.admit('k');
    await b.syncNow();
    expect(mem.countOf('k', policy, now)).toBe(3);
    // a holds no key: the store's scan does it all
    store.holding = true;
    now = 1_100;
    const reset = a.resetAll();
    await flush();
    expect(store.held.map((h) => h.name)).toEqual(['scan ']);
    // while the scan is out: b admits another key and pushes it
    now = 1_200;
    expect((await b.admit('z')).allowed).toBe(true);
    const sync = b.syncNow();
    await flush();
    store.land('sync 2');
    await sync;
    store.holding = false;
    store.land('scan ');
    expect(await reset).toBe(true);
    expect(mem.countOf('k', policy, now)).toBe(0);
    // made after the call: it still counts
    expect(mem.countOf('z', policy, now)).toBe(1);
    // b admits k again from its next sync
    expect((await b.admit('k')).allowed).toBe(false);
    await b.syncNow();
    expect((await b.admit('k')).allowed).toBe(true);
  });

  it('the keys it holds: its own unpushed admits at once, the rest in its next round', async () => {
    const mem = new MemoryStore();
    const now = 1_000;
    const [a, b] = fleet(mem, () => now);
    const policy = a.options.policy;
    await a.admit('k');
    await a.syncNow();
    await a.admit('k');
    await b.admit('k');
    await b.syncNow();
    expect(a.stats().unsyncedAdmits).toBe(1);
    expect(await a.resetAll()).toBe(true);
    expect(a.stats().unsyncedAdmits).toBe(0);
    expect(mem.countOf('k', policy, now)).toBe(0);
    expect(a.resetStats.pending).toBe(0);
  });

  it('split keeps no store: its own keys only; a store without resetScan is refused', async () => {
    const now = 1_000;
    const [s] = fleet(new MemoryStore(), () => now, 'split');
    // ceil(3 / 2) = 2 a gateway
    await s.admit('k');
    await s.admit('k');
    expect((await s.admit('k')).allowed).toBe(false);
    expect(await s.resetAll()).toBe(true);
    expect((await s.admit('k')).allowed).toBe(true);
    const mem = new MemoryStore();
    const noScan = new HeldStore(mem) as Partial<HeldStore>;
    delete noScan.resetScan;
    const [gw] = fleet(noScan as AsyncStore, () => now);
    expect(() => gw.resetAll()).toThrow(/no resetScan/);
  });

  it('a chunk that fails resolves false; a second call goes through', async () => {
    const mem = new MemoryStore();
    const store = new HeldStore(mem);
    let fail = true;
    const scan = store.resetScan;
    store.resetScan = (req, t) => (fail ? Promise.reject(new Error('down')) : scan(req, t));
    const now = 1_000;
    const [a, b] = fleet(store, () => now);
    await b.admit('k');
    await b.syncNow();
    expect(await a.resetAll()).toBe(false);
    expect(mem.countOf('k', a.options.policy, now)).toBe(1);
    fail = false;
    expect(await a.resetAll()).toBe(true);
    expect(mem.countOf('k', a.options.policy, now)).toBe(0);
  });
});
