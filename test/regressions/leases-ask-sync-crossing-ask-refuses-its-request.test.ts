import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createAsyncGateway } from '../../src/gateway/runtime/async-gateway.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import { HeldStore } from '../support/held-store.js';

/**
 * leases-ask: a key's first login was refused on an empty key. CI's NGINX test (5 logins per minute
 * over three gateways, Δ = 1 s) saw a 429 among the first five logins on a loaded machine: the
 * request's ask was out when the gateway's sync timer built a sync, and a grant that a crossing sync
 * may have handed back is never spent (test/regressions/leases-ask-ask-and-sync-cross.live.test.ts), so
 * the request was refused although the store had every slot free. It now asks again, tagged after
 * that sync, within its store timeout; the bound is the older test's.
 */
describe('leases-ask: a sync built while a request asks', () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: 1_000_000 });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  const opts = {
    id: 'a',
    design: 'leases-ask' as const,
    limit: 5,
    windowMs: 60_000,
    gateways: 3,
    syncMs: 1000,
    storeTimeoutMs: 2000,
    staleAfterMs: 60_000,
  };
  const turn = () => vi.advanceTimersByTimeAsync(1);

  it('does not refuse the request: it asks again and spends that grant', async () => {
    const link = new HeldStore(new MemoryStore());
    const g = createAsyncGateway({ ...opts, store: link });
    link.holding = true;
    const request = g.admit('login');
    await turn();
    const synced = g.syncNow();
    await turn();
    expect(link.held.map((h) => h.name)).toEqual(['ask after sync 0', 'sync 1']);
    link.land('ask after sync 0');
    await turn();
    link.land('sync 1');
    await turn();
    // the second ask, after sync 1
    expect(link.held.map((h) => h.name)).toEqual(['ask after sync 1']);
    link.land('ask after sync 1');
    link.holding = false;
    const d = await request;
    expect(await synced).toBe(true);
    expect(d.allowed).toBe(true);
    expect(d.remaining).toBe(4);
    // and the other four of L come after it, the sixth is refused
    const rest = [];
    for (let i = 0; i < 5; i++) rest.push((await g.admit('login')).allowed);
    expect(rest).toEqual([true, true, true, true, false]);
    await g.stop();
  });

  it('asks again only while its store timeout lasts: then it is refused', async () => {
    const link = new HeldStore(new MemoryStore());
    const g = createAsyncGateway({ ...opts, store: link });
    link.holding = true;
    const request = g.admit('login');
    await turn();
    const sync1 = g.syncNow();
    // the first ask lands late, 1.5 s into the 2 s store timeout
    await vi.advanceTimersByTimeAsync(1500);
    link.land('ask after sync 0');
    await turn();
    link.land('sync 1');
    await turn();
    // the second ask is crossed too, and lands 2.1 s after the request first asked
    const sync2 = g.syncNow();
    await turn();
    expect(link.held.map((h) => h.name)).toEqual(['ask after sync 1', 'sync 2']);
    await vi.advanceTimersByTimeAsync(600);
    link.land('ask after sync 1');
    await turn();
    link.land('sync 2');
    await turn();
    expect(link.held).toEqual([]);
    link.holding = false;
    expect((await request).allowed).toBe(false);
    expect(await sync1).toBe(true);
    expect(await sync2).toBe(true);
    await g.stop();
  });
});
