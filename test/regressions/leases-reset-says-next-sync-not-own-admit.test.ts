import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createAsyncGateway } from '../../src/gateway/runtime/async-gateway.js';
import { MemoryStore } from '../../src/store/memory-store.js';

/**
 * The lease designs' resetMs (the RateLimit header's `t`: when the next slot frees) was the next sync
 * whenever the store's last reply counted nothing. A key's first login on leases-ask (5 per minute,
 * three gateways) answered `r=4;t=1`: the quota reset in Δ, while that login stays in the window for
 * W. It is now the first of the store's oldest admit and this gateway's oldest admit not yet counted.
 */
describe('leases and leases-ask: resetMs is when the next slot frees, not the next sync', () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: 1_000_000 });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  for (const design of ['leases-ask', 'leases'] as const) {
    it(`${design}: the first admits of a key reset when the first of them leaves`, async () => {
      const g = createAsyncGateway({
        id: 'a',
        design,
        limit: 5,
        windowMs: 60_000,
        gateways: 3,
        syncMs: 1000,
        store: new MemoryStore(),
      });
      // leases has no slots before a sync brings a grant: the key's first request is refused
      if (design === 'leases') {
        expect((await g.admit('login')).allowed).toBe(false);
        expect(await g.syncNow()).toBe(true);
      }
      const first = await g.admit('login');
      expect(first.allowed).toBe(true);
      // the admit leaves 60 s from now: that is when a slot frees, not at the next sync (≤ 1 s)
      expect(first.resetMs).toBeGreaterThan(59_000);
      expect(first.resetMs).toBeLessThanOrEqual(60_000);
      // 10 s on, a sync has pushed it (the store's oldest now) and brought a grant
      await vi.advanceTimersByTimeAsync(10_000);
      expect(await g.syncNow()).toBe(true);
      const second = await g.admit('login');
      expect(second.allowed).toBe(true);
      // still the first admit's leaving, 50 s on
      expect(second.resetMs).toBeGreaterThan(49_000);
      expect(second.resetMs).toBeLessThanOrEqual(50_000);
      await g.stop();
    });
  }
});
