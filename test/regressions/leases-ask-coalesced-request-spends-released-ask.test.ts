import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Policy } from '../../src/config.js';
import { createAsyncGateway } from '../../src/gateway/runtime/async-gateway.js';
import type { AsyncStore } from '../../src/store/contract.js';
import { MemoryStore } from '../../src/store/memory-store.js';

// Found by the lease chaos test (test/faults/lease-chaos.live.test.ts): leases-ask, 22 admits in a window
// of L = 20 by the store's own log. An ask goes out; a sync is built while it is in flight (its
// release hands back every part tagged below its seq, the ask's among them); the store applies the
// ask, then the sync. The gateway must not spend the ask's grant. LeaseKey.onAskReply tells by
// `askedAt === syncsStarted`, but askedAt is the count at the *last* request that found no slot: a
// request that arrives after the sync was built and waits on the same ask resets it, and the released
// grant is spent while the store grants the slots again.

const L = 10;
const policy: Policy = { limit: L, windowMs: 10_000, windowKind: 'sliding' };
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

beforeEach(() => {
  vi.useFakeTimers({ now: 1_000_000 });
});
afterEach(() => {
  vi.useRealTimers();
});

describe('leases-ask: a request that waits on an ask a later sync released', () => {
  it('does not spend the released grant, so the fleet stays within L', async () => {
    const memory = new MemoryStore();
    // every call is applied at once; its reply comes `holdMs` later (in the order sent)
    const hold = { ask: 0, sync: 0 };
    const store: AsyncStore = {
      clock: 'caller',
      sync: async (req, now) => {
        const r = memory.sync(req, now);
        if (hold.sync > 0) await sleep(hold.sync);
        return r;
      },
      ask: async (...a) => {
        const r = memory.ask(...a);
        if (hold.ask > 0) await sleep(hold.ask);
        return r;
      },
      logAdmit: async (...a) => memory.logAdmit(...a),
      voidLogAdmits: async (...a) => memory.voidLogAdmits(...a),
    };
    const a = createAsyncGateway({
      id: 'a',
      design: 'leases-ask',
      limit: L,
      windowMs: policy.windowMs,
      gateways: 2,
      syncMs: 1000,
      storeTimeoutMs: 200,
      store,
    });
    let admitted = 0;
    const count = (d: { allowed: boolean }) => {
      if (d.allowed) admitted++;
    };
    expect(await a.syncNow()).toBe(true);
    // a request finds no slot and asks; the store grants at once, the reply takes 50 ms
    hold.ask = 50;
    hold.sync = 20;
    const first = a.admit('k').then(count);
    await vi.advanceTimersByTimeAsync(5);
    // a sync is built and lands behind the ask: its release hands the ask's grant back
    const sync = a.syncNow();
    await vi.advanceTimersByTimeAsync(5);
    // a request after the sync was built finds no slot and waits on the same ask
    const second = a.admit('k').then(count);
    await vi.advanceTimersByTimeAsync(100);
    await Promise.all([first, second, sync]);
    hold.ask = 0;
    hold.sync = 0;
    // gateway a spends whatever it believes it holds
    for (let i = 0; i < 2 * L; i++) count(await a.admit('k'));
    // the store's view: a's admits (pushed now) + what it still holds + what it grants b
    expect(await a.syncNow()).toBe(true);
    const b = memory.ask({ gatewayId: 'b', key: 'k', policy, leaseTtlMs: 1000, ask: L }, Date.now());
    const held = memory.sync(
      {
        gatewayId: 'reader',
        seq: 1,
        policy,
        leaseTtlMs: 1000,
        horizonMs: 0,
        entries: [{ key: 'k', admits: [], read: true, release: false, ask: 0 }],
      },
      Date.now(),
    ).replies[0].count;
    expect(held).toBe(admitted);
    expect(admitted + b.granted).toBeLessThanOrEqual(L);
  });
});
