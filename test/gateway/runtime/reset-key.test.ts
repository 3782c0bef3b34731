/**
 * AsyncGateway.resetKey (issue 36, docs/decisions/0014-reset-key.md): its order against a sync in
 * flight, its local part, and the gateways that cannot reset.
 */
import { describe, expect, it } from 'vitest';
import { createAsyncGateway } from '../../../src/gateway/runtime/index.js';
import { MemoryStore } from '../../../src/store/memory-store.js';
import { HeldStore } from '../../support/held-store.js';

const mem = (s: MemoryStore, policy: Parameters<MemoryStore['countOf']>[1], now: number) =>
  s.countOf('k', policy, now);

const flush = async () => {
  for (let i = 0; i < 20; i++) await Promise.resolve();
};

describe('AsyncGateway.resetKey', () => {
  it('a sync in flight with admits made before the reset lands first: the reset then forgets them', async () => {
    const mem = new MemoryStore();
    const store = new HeldStore(mem);
    let now = 1_000;
    const gw = createAsyncGateway({
      id: 'g',
      design: 'shared-counter',
      limit: 5,
      windowMs: 10_000,
      gateways: 1,
      syncMs: 100,
      store,
      clock: () => now,
      random: () => 0.5,
    });
    const policy = gw.options.policy;
    await gw.admit('k');
    await gw.admit('k');
    store.holding = true;
    const first = gw.syncNow();
    await flush();
    expect(store.held.map((h) => h.name)).toEqual(['sync 1']);
    now = 1_010;
    const reset = gw.resetKey('k');
    await flush();
    // not sent while that sync is out: it would land before the admits it must forget
    expect(store.held.map((h) => h.name)).toEqual(['sync 1']);
    now = 1_020;
    expect((await gw.admit('k')).allowed).toBe(true);
    store.land('sync 1');
    await first;
    expect(mem.countOf('k', policy, now)).toBe(2);
    // the next round: the reset, then the sync with the admit made after it
    store.holding = false;
    await gw.syncNow();
    expect(await reset).toBe(true);
    expect(mem.countOf('k', policy, now)).toBe(1);
    expect(gw.stats().unsyncedAdmits).toBe(0);
  });

  it('a sync part that failed is resent before the reset: its admits, made before it, are forgotten', async () => {
    let failNext = 0;
    class FailingStore extends MemoryStore {
      override sync(...a: Parameters<MemoryStore['sync']>): ReturnType<MemoryStore['sync']> {
        if (failNext > 0) {
          failNext--;
          throw new Error('store away');
        }
        return super.sync(...a);
      }
    }
    const store = new FailingStore();
    let now = 1_000;
    const gw = createAsyncGateway({
      id: 'g',
      design: 'shared-counter',
      limit: 5,
      windowMs: 10_000,
      gateways: 1,
      syncMs: 100,
      store,
      clock: () => now,
      random: () => 0.5,
    });
    gw.on('syncError', () => {});
    const policy = gw.options.policy;
    await gw.admit('k');
    await gw.admit('k');
    // the sync carrying them fails twice: kept, resent with its seq
    failNext = 2;
    expect(await gw.syncNow()).toBe(false);
    now = 1_010;
    const reset = gw.resetKey('k');
    // the round it starts fails its resend again: the reset waits for it, not sent ahead of it
    await gw.syncNow();
    expect(gw.resetStats.pending).toBe(1);
    expect(mem(store, policy, now)).toBe(0);
    now = 1_020;
    await gw.syncNow();
    expect(await reset).toBe(true);
    expect(mem(store, policy, now)).toBe(0);
  });

  it("forgets this gateway's unpushed admits at once; a lease design's slots go back to its grant", async () => {
    const store = new MemoryStore();
    let now = 1_000;
    const gw = createAsyncGateway({
      id: 'g',
      design: 'leases',
      limit: 3,
      windowMs: 10_000,
      gateways: 1,
      syncMs: 100,
      store,
      clock: () => now,
      random: () => 0.5,
    });
    // the key's first request finds no grant; the sync after it brings one
    expect((await gw.admit('k')).allowed).toBe(false);
    await gw.syncNow();
    let n = 0;
    while ((await gw.admit('k')).allowed) n++;
    expect(n).toBeGreaterThan(0);
    expect(gw.stats().unsyncedAdmits).toBe(n);
    now = 1_010;
    const decision = await gw.admit('k');
    expect(decision.allowed).toBe(false);
    const reset = gw.resetKey('k');
    expect(gw.stats().unsyncedAdmits).toBe(0);
    // the slots spent are the grant's again, at once
    expect((await gw.admit('k')).allowed).toBe(true);
    expect(await reset).toBe(true);
  });

  it('split resets its own state only; a store without resetKey is refused, naming it', async () => {
    const split = createAsyncGateway({
      id: 's',
      design: 'split',
      limit: 2,
      windowMs: 10_000,
      gateways: 1,
      syncMs: 100,
      store: new MemoryStore(),
    });
    expect((await split.admit('k')).allowed).toBe(true);
    expect((await split.admit('k')).allowed).toBe(true);
    expect((await split.admit('k')).allowed).toBe(false);
    expect(await split.resetKey('k')).toBe(true);
    expect((await split.admit('k')).allowed).toBe(true);
    const mem = new MemoryStore();
    const noReset = {
      sync: mem.sync.bind(mem),
      logAdmit: mem.logAdmit.bind(mem),
      ask: mem.ask.bind(mem),
      voidLogAdmits: mem.voidLogAdmits.bind(mem),
      keyCount: 0,
    };
    const gw = createAsyncGateway({
      id: 'g',
      design: 'leases',
      limit: 2,
      windowMs: 10_000,
      gateways: 1,
      syncMs: 100,
      store: noReset,
    });
    expect(gw.resets).toBe(false);
    expect(() => gw.resetKey('k')).toThrow(/resetKey: the store has no resetKey/);
  });
});
