import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Policy } from '../../src/config.js';
import { type AsyncGateway, createAsyncGateway } from '../../src/gateway/runtime/index.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import { TestAsyncStore } from '../support/async-memory-store.js';

/**
 * Issue 32, item 3: with `gateways: 'auto'`, one gateway's liveness window pruned everyone's. The
 * live set pruned with the beating gateway's own window, so a gateway of the policy with Δ = 20 ms
 * (live 60 ms) among gateways with Δ = 1 s (live 3 s) dropped every other member's beat: the fleet
 * counted K too small and admitted 1.68 × L per window (worst 1.84; fixed K: 1.00). Each member's
 * beat carries its own expiry now. (RedisStore and Redis Cluster: test/support/live-contract.ts,
 * "each member is kept by its own window", runs on both.)
 */
const policy: Policy = { limit: 100, windowMs: 60_000, windowKind: 'sliding' };

describe('regression: a short liveness window prunes no other gateway', () => {
  it('MemoryStore: a Δ = 20 ms gateway counts the Δ = 1 s ones, and they it', () => {
    const s = new MemoryStore();
    for (const id of ['a', 'b', 'c']) s.heartbeat({ gatewayId: id, policy, liveWithinMs: 3_000 }, 0);
    for (let t = 0; t <= 2_000; t += 20) {
      expect(s.heartbeat({ gatewayId: 'fast', policy, liveWithinMs: 60 }, t).live).toBe(4);
    }
    expect(s.heartbeat({ gatewayId: 'a', policy, liveWithinMs: 3_000 }, 2_010).live).toBe(4);
  });

  describe('a fleet of AsyncGateways on one store', () => {
    beforeEach(() => {
      vi.useFakeTimers({ now: 1_000_000 });
    });
    afterEach(() => {
      vi.useRealTimers();
    });

    it('every gateway counts K = 4: three at Δ = 1 s and one at Δ = 20 ms', async () => {
      const store = new TestAsyncStore(new MemoryStore(), () => Date.now(), 'caller');
      const make = (id: string, syncMs: number): AsyncGateway =>
        createAsyncGateway({
          id,
          design: 'shared-counter',
          limit: 100,
          windowMs: 60_000,
          gateways: 'auto',
          syncMs,
          storeTimeoutMs: 10,
          store,
          clock: () => Date.now(),
          random: () => 0.5,
        });
      const fleet = [make('slow-1', 1_000), make('slow-2', 1_000), make('slow-3', 1_000), make('fast', 20)];
      for (const g of fleet) g.start();
      const seen: number[][] = [];
      for (let i = 0; i < 40; i++) {
        await vi.advanceTimersByTimeAsync(100);
        // the slow ones first sync together at Δ/2 = 500 ms, the first to beat before the others; from
        // their second round (1.5 s) on, every count must be the whole fleet
        if (i >= 15) seen.push(fleet.map((g) => g.stats().gateways));
      }
      for (const ks of seen) expect(ks).toEqual([4, 4, 4, 4]);
      for (const g of fleet) await g.stop();
    });
  });
});
