import { describe, expect, it } from 'vitest';
import { DESIGN_IDS } from '../../src/config.js';
import { createGateway } from '../../src/gateway/gateway.js';
import { createAsyncGateway } from '../../src/gateway/runtime/index.js';
import type { Store } from '../../src/store/contract.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import { TestAsyncStore } from '../support/async-memory-store.js';

/**
 * Issue 17, item 6 (the gateway's part): a request whose cost exceeds L can never be admitted, yet
 * it went to the store (central-log logged a cost-10^6 request as 10^6 ZSET members; leases-ask asked
 * for it) or into the key's state, and its Decision carried a retryAfterMs promising a retry that can
 * never succeed. Now the gateway answers it at once: denied, `exceedsLimit`, no retryAfterMs, and
 * neither the store nor the key's state is touched. split holds each gateway to ceil(L/K), so there
 * that is the most a request can cost.
 */
const L = 10;
const K = 2;
const opts = { limit: L, windowMs: 60_000, gateways: K, syncMs: 1_000 };
const most = (design: string) => (design === 'split' ? Math.ceil(L / K) : L);

function countingStore(): { store: Store; calls: () => number } {
  const mem = new MemoryStore();
  let n = 0;
  const counted =
    <A extends unknown[], R>(f: (...a: A) => R) =>
    (...a: A): R => {
      n++;
      return f(...a);
    };
  const store: Store = {
    logAdmit: counted(mem.logAdmit.bind(mem)),
    voidLogAdmits: counted(mem.voidLogAdmits.bind(mem)),
    sync: counted(mem.sync.bind(mem)),
    ask: counted(mem.ask.bind(mem)),
    get keyCount() {
      return mem.keyCount;
    },
  };
  return { store, calls: () => n };
}

describe('regression: a cost above the limit is denied at once, without a retry promise', () => {
  for (const design of DESIGN_IDS) {
    it(`${design}: Gateway (synchronous store)`, () => {
      const { store, calls } = countingStore();
      const gw = createGateway({ id: 'a', design, ...opts, store });
      for (const cost of [most(design) + 1, L + 1, 1e6]) {
        const d = gw.admit('k', 0, cost);
        expect(d).toMatchObject({ allowed: false, exceedsLimit: true });
        expect(d.retryAfterMs).toBeUndefined();
        expect(d.remaining).toBeLessThanOrEqual(most(design));
        expect(gw.allow('k', 0, cost)).toBe(false);
      }
      expect(calls()).toBe(0);
      expect(gw.keyCount).toBe(0);
      // the most a request may cost is still admitted, from the key's untouched state (adaptive-early:
      // its one-Δ rate estimate counts a cost-L request as L arrivals at once, a flood: it may thin it)
      if (design !== 'leases' && design !== 'adaptive-early')
        expect(gw.admit('k', 1, most(design)).allowed).toBe(true);
    });

    it(`${design}: AsyncGateway admitNow and allowNow`, async () => {
      const store = new TestAsyncStore();
      const gw = createAsyncGateway({ id: 'a', design, ...opts, store });
      for (const cost of [most(design) + 1, L + 1, 1e6]) {
        const d = gw.admitNow('k', cost);
        expect(d).not.toBeInstanceOf(Promise);
        expect(d).toMatchObject({ allowed: false, exceedsLimit: true });
        expect((d as { retryAfterMs?: number }).retryAfterMs).toBeUndefined();
        expect(gw.allowNow('k', cost)).toBe(false);
      }
      expect(store.calls).toEqual({ sync: 0, logAdmit: 0, ask: 0, voidLogAdmits: 0 });
      expect(gw.keyCount).toBe(0);
      expect(gw.stats().decisions).toMatchObject({ allowed: 0, limited: 6 });
      // ...also while the store is away, whatever the fail mode
      store.mode = 'fail';
      for (const failMode of ['local', 'open', 'closed'] as const) {
        let t = 0;
        const g = createAsyncGateway({ id: 'b', design, ...opts, store, failMode, clock: () => t });
        t = 10_000; // a failed sync and no reply for longer than staleAfterMs: the store counts as down
        await g.syncNow();
        expect(g.stats().storeDown).toBe(design !== 'split');
        expect(g.admitNow('k', L + 1)).toMatchObject({ allowed: false, exceedsLimit: true });
      }
      expect(store.calls.logAdmit + store.calls.ask).toBe(0);
    });
  }
});
