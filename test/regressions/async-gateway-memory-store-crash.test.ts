import { describe, expect, it } from 'vitest';
import { DESIGN_IDS } from '../../src/config.js';
import { createAsyncGateway } from '../../src/gateway/runtime/index.js';
import { asAsyncStore } from '../../src/store/async-adapter.js';
import { MemoryStore } from '../../src/store/memory-store.js';

/**
 * Issue 17, item 10: createAsyncGateway with the embedded MemoryStore crashed the process
 * ("p.then is not a function", thrown from the sync timer): the runtime called `.then` on the
 * synchronous store's plain replies. It takes a synchronous Store now (single process, tests, demos).
 */
describe('regression: the async runtime over the in-memory store', () => {
  for (const design of DESIGN_IDS) {
    it(`${design}: syncs, decides on the store and never degrades`, async () => {
      const store = new MemoryStore();
      const errors: unknown[] = [];
      const gw = createAsyncGateway({
        id: 'gw-1',
        design,
        limit: 3,
        windowMs: 60_000,
        gateways: 1,
        syncMs: 1_000,
        store,
      });
      gw.on('syncError', (e) => errors.push(e.error ?? e.reason));
      gw.on('storeCallError', (e) => errors.push(e.error ?? e.reason));
      expect(await gw.syncNow()).toBe(true);
      // a first request makes the key known (plain leases gets its first grant at the next sync)
      const decisions = [await gw.admit('k')];
      expect(await gw.syncNow()).toBe(true);
      for (let i = 0; i < 5; i++) decisions.push(await gw.admit('k'));
      expect(await gw.syncNow()).toBe(true);
      expect(errors).toEqual([]);
      const admitted = decisions.filter((d) => d.allowed).length;
      if (design === 'leases') expect(admitted).toBeGreaterThanOrEqual(1);
      else expect(admitted).toBe(3);
      expect(decisions.some((d) => d.degraded === true)).toBe(false);
      // the store holds what was admitted (split never tells it)
      if (design !== 'split') {
        const read = store.sync(
          {
            gatewayId: 'reader',
            seq: 1,
            policy: gw.options.policy,
            leaseTtlMs: 1000,
            horizonMs: 1,
            entries: [{ key: 'k', admits: [], read: true, release: false, ask: 0 }],
          },
          gw.now(),
        );
        expect(read.replies[0].count).toBe(admitted);
      }
      expect(await gw.stop()).toBe(true);
    });
  }

  it("the adapter passes every argument on, and an async store's promise through", async () => {
    const seen: unknown[][] = [];
    const reply = Promise.resolve({ granted: 1, grantExpiresAt: 5, now: 1 });
    const s = asAsyncStore({
      ask: (...a: unknown[]) => {
        seen.push(a);
        return reply;
      },
      sync: () => ({ now: 0, replies: [] }),
      logAdmit: () => ({ allowed: true, count: 1, oldestExpiry: 2, now: 0 }),
      voidLogAdmits: () => {},
      keyCount: 0,
    } as unknown as MemoryStore);
    const policy = { limit: 1, windowMs: 10, windowKind: 'sliding' as const };
    // a seventh argument (the contract's ask gains a seq) reaches the store
    const ask = s.ask as (...a: unknown[]) => unknown;
    expect(ask('g', 'k', policy, 100, 1, 0, 7)).toBe(reply);
    expect(seen[0]).toEqual(['g', 'k', policy, 100, 1, 0, 7]);
    expect(
      await s.sync({ gatewayId: 'g', seq: 1, policy, leaseTtlMs: 1, horizonMs: 1, entries: [] }, 0),
    ).toEqual({
      now: 0,
      replies: [],
    });
    expect(s.clock).toBe('caller');
    expect(asAsyncStore(s)).toBe(s);
  });

  it('a store that throws synchronously is a failed store call, not a crash', async () => {
    const store = new MemoryStore();
    store.sync = () => {
      throw new Error('boom');
    };
    const gw = createAsyncGateway({
      id: 'gw-1',
      design: 'shared-counter',
      limit: 3,
      windowMs: 60_000,
      gateways: 1,
      syncMs: 1_000,
      store,
    });
    const seen: string[] = [];
    gw.on('syncError', (e) => seen.push(String(e.error)));
    expect(await gw.syncNow()).toBe(false);
    expect(seen).toEqual(['Error: boom']);
  });
});
