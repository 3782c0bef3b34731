import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createAsyncGateway } from '../../src/gateway/runtime/async-gateway.js';
import type { AsyncStore } from '../../src/store/contract.js';
import { MemoryStore } from '../../src/store/memory-store.js';

// Issue 17, item 2: a sync whose reply was held past the store timeout is resent with the same seq.
// Asks answered after the first attempt was built were spent by the gateway, but the resend's
// release handed their grant back as well, and the store granted those slots again: a store count of
// 13 with L = 10. An ask is now tagged with the last sync built before it, and that sync (first
// attempt or resend) hands back only grants tagged below its own seq.

const L = 10;
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

beforeEach(() => {
  vi.useFakeTimers({ now: 1_000_000 });
});
afterEach(() => {
  vi.useRealTimers();
});

describe('leases-ask: a resent sync and the asks answered after its first attempt', () => {
  it('never hands back slots the gateway spent, so the fleet stays within L', async () => {
    const memory = new MemoryStore();
    // the link holds sync replies `syncHoldMs` (applied at once); syncs from the `hangFrom`-th on never land
    const link = { syncHoldMs: 0, syncs: 0, hangFrom: Number.POSITIVE_INFINITY };
    const store: AsyncStore = {
      clock: 'caller',
      sync: async (req, now) => {
        if (++link.syncs >= link.hangFrom) return new Promise(() => {});
        const r = memory.sync(req, now);
        if (link.syncHoldMs > 0) await sleep(link.syncHoldMs);
        return r;
      },
      ask: async (...a) => memory.ask(...a),
      logAdmit: async (...a) => memory.logAdmit(...a),
      voidLogAdmits: async (...a) => memory.voidLogAdmits(...a),
    };
    const a = createAsyncGateway({
      id: 'a',
      design: 'leases-ask',
      limit: L,
      windowMs: 10_000,
      gateways: 2,
      syncMs: 100,
      storeTimeoutMs: 250,
      store,
    });
    let admitted = 0;
    const admit = async () => {
      if ((await a.admit('k')).allowed) admitted++;
    };
    expect(await a.syncNow()).toBe(true);
    for (let i = 0; i < 3; i++) await admit();
    // the next sync lands at once but its reply is held past the timeout
    link.syncHoldMs = 300;
    const first = a.syncNow();
    await vi.advanceTimersByTimeAsync(10);
    // meanwhile requests find no slot and ask: answered, spent
    for (let i = 0; i < 4; i++) await admit();
    await vi.advanceTimersByTimeAsync(300);
    expect(await first).toBe(false);
    // the resend is answered; the fresh sync after it (which would push the 4 admits) never lands
    link.syncHoldMs = 0;
    link.hangFrom = link.syncs + 2;
    const again = a.syncNow();
    await vi.advanceTimersByTimeAsync(300);
    await again;
    expect(admitted).toBe(7);
    // another gateway asks for everything it can get
    const other = memory.ask(
      {
        gatewayId: 'b',
        key: 'k',
        policy: { limit: L, windowMs: 10_000, windowKind: 'sliding' },
        leaseTtlMs: 1000,
        ask: L,
      },
      Date.now(),
    );
    expect(admitted + other.granted).toBeLessThanOrEqual(L);
  });
});
