import { describe, expect, it } from 'vitest';
import { createAsyncGateway } from '../../src/gateway/runtime/index.js';
import type { AsyncStore } from '../../src/store/contract.js';
import { MemoryStore } from '../../src/store/memory-store.js';

/**
 * Found by `fleetlimit fleet` (leases-ask windows over L under CPU contention): in the async runtime a
 * leases-ask gateway can have a request-path ask in flight when its sync batch is built. The store
 * applies the ask, then the sync, whose `release` hands back every grant of the gateway, the ask's
 * too; a gateway that spent the ask's slots when its reply arrived made admits that were neither
 * outstanding nor pushed when the store granted the same slots again. The simulator's store answers at
 * once, so the interleaving never happens there. Fixed on main (e145af7: an ask answered after a later
 * sync went out is refused); this is the same interleaving through the runtime's public API.
 */
describe('leases-ask in the async runtime', () => {
  it('never admits more than L when an ask is in flight as a sync is built', async () => {
    const mem = new MemoryStore();
    // one FIFO connection: calls are applied in the order they were made, when the test says so
    const queue: (() => void)[] = [];
    const store: AsyncStore = {
      sync: (req, now) => new Promise((r) => queue.push(() => r(mem.sync(req, now)))),
      logAdmit: (k, p, now, c) => new Promise((r) => queue.push(() => r(mem.logAdmit(k, p, now, c)))),
      ask: (g, k, p, ttl, n, now) => new Promise((r) => queue.push(() => r(mem.ask(g, k, p, ttl, n, now)))),
      voidLogAdmits: (g, p, v, now) =>
        new Promise((r) => queue.push(() => r(mem.voidLogAdmits(g, p, v, now)))),
    };
    // a turn first: the runtime may build a sync over a few turns before it calls the store
    const flush = async () => {
      await new Promise((r) => setTimeout(r, 0));
      while (queue.length > 0) {
        queue.shift()!();
        await new Promise((r) => setTimeout(r, 0));
      }
    };
    const t = 1000;
    const opts = {
      design: 'leases-ask' as const,
      limit: 10,
      windowMs: 60_000,
      gateways: 2,
      syncMs: 1000,
      store,
      clock: () => t,
      storeTimeoutMs: 1e9,
      staleAfterMs: 60_000,
    };
    const a = createAsyncGateway({ ...opts, id: 'a' });
    const b = createAsyncGateway({ ...opts, id: 'b' });
    let admitted = 0;
    const count = async (d: unknown) => {
      if ((await d) && ((await d) as { allowed: boolean }).allowed) admitted++;
    };
    // a's first request asks the store; while that ask is in flight, a's sync is built and sent
    const first = count(a.admitNow('k'));
    const synced = a.syncNow();
    await flush();
    await first;
    await synced;
    for (let i = 0; i < 2; i++) await count(a.admitNow('k'));
    // b takes whatever the store will grant
    for (let round = 0; round < 3; round++) {
      const s = b.syncNow();
      await flush();
      await s;
      for (let i = 0; i < 20; i++) {
        const d = b.admitNow('k');
        await flush();
        await count(d);
      }
    }
    // all at one instant, so all in one window
    expect(admitted).toBeLessThanOrEqual(10);
  });
});
