import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { DesignId, Policy } from '../../src/config.js';
import { createAsyncGateway } from '../../src/gateway/runtime/async-gateway.js';
import type { AsyncStore } from '../../src/store/contract.js';
import { MemoryStore } from '../../src/store/memory-store.js';

// Found by the lease chaos test (test/faults/lease-chaos.live.test.ts): a lease gateway dies (no final
// sync) right after spending slots no sync has carried, and a new process starts with the same id.
// Its first sync hands back "its" grant — every part tagged below its seq, the dead process's whole
// grant — so the store counts neither the dead process's unpushed admits nor the slots they were
// spent from, and grants them again: 21 admits in a window of L = 20. A grant the dead process held
// must stay counted as a lapsed one does (until lapse + W), whoever starts under the same id.

const L = 10;
const W = 10_000;
const policy: Policy = { limit: L, windowMs: W, windowKind: 'sliding' };

beforeEach(() => {
  vi.useFakeTimers({ now: 1_000_000 });
});
afterEach(() => {
  vi.useRealTimers();
});

describe.each(['leases', 'leases-ask'] as DesignId[])(
  '%s: a gateway restarted with the same id',
  (design) => {
    it('does not hand back the grant its dead predecessor spent from', async () => {
      const memory = new MemoryStore();
      const store: AsyncStore = {
        clock: 'caller',
        sync: async (...a) => memory.sync(...a),
        ask: async (...a) => memory.ask(...a),
        logAdmit: async (...a) => memory.logAdmit(...a),
        voidLogAdmits: async (...a) => memory.voidLogAdmits(...a),
      };
      const start = () =>
        createAsyncGateway({ id: 'a', design, limit: L, windowMs: W, gateways: 2, syncMs: 100, store });
      const old = start();
      let admitted = 0;
      // requests and syncs until it holds a grant, then spends all it can without a sync
      for (let i = 0; i < 3; i++) {
        if ((await old.admit('k')).allowed) admitted++;
        await old.syncNow();
      }
      for (let i = 0; i < 2 * L; i++) if ((await old.admit('k')).allowed) admitted++;
      expect(old.stats().unsyncedAdmits).toBeGreaterThan(0);
      // it dies here: no final sync. A new process with the same id syncs with a request for the key.
      vi.advanceTimersByTime(10);
      const next = start();
      await next.syncNow();
      if ((await next.admit('k')).allowed) admitted++;
      await next.syncNow();
      // another gateway asks for everything the store will grant
      const other = memory.ask({ gatewayId: 'b', key: 'k', policy, leaseTtlMs: 1000, ask: L }, Date.now());
      // the new process spends what it was granted
      for (let i = 0; i < 2 * L; i++) if ((await next.admit('k')).allowed) admitted++;
      expect(admitted + other.granted).toBeLessThanOrEqual(L);
    });
  },
);
