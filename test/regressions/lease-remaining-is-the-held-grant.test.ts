import { afterEach, describe, expect, it, vi } from 'vitest';
import type { DesignId } from '../../src/config.js';
import { Gateway } from '../../src/gateway/gateway.js';
import { createAsyncGateway } from '../../src/gateway/runtime/index.js';
import { buildResponse } from '../../src/sidecar/envoy.js';
import { MemoryStore } from '../../src/store/memory-store.js';

/**
 * Issue 31: a lease gateway's `remaining` was the slots it held. A login policy (5 per minute, 3
 * gateways, leases-ask) showed 1, 0, 1, 0 on its 200s as each ask refilled the grant, and the gRPC
 * answer said limit_remaining = 0 on the first OK. It is now what it holds plus what the store's
 * last reply said was neither admitted nor granted: 4, 3, 2, 1, 0 for one client, never rising
 * unless a slot frees.
 */
const login = { limit: 5, windowMs: 60_000, gateways: 3, syncMs: 1_000 };
const LEASES: DesignId[] = ['leases', 'leases-ask'];

describe("a lease gateway shows the fleet's slots left, not its grant (Gateway)", () => {
  it('leases-ask: five logins 2 s apart show 4, 3, 2, 1, 0', () => {
    const gw = new Gateway({ id: 'g0', design: 'leases-ask', ...login }, new MemoryStore());
    const shown: number[] = [];
    for (let i = 0; i < 5; i++) {
      const t = 2_000 * i;
      if (t > 0) gw.sync(t - 500);
      const d = gw.admit('login', t);
      expect(d.allowed).toBe(true);
      shown.push(d.remaining);
    }
    expect(shown).toEqual([4, 3, 2, 1, 0]);
  });

  for (const design of LEASES) {
    it(`${design}: round robin over three gateways, never more than the window has left`, () => {
      const store = new MemoryStore();
      const gws = [0, 1, 2].map((g) => new Gateway({ id: `g${g}`, design, ...login }, store));
      const next = [100, 400, 700];
      let admitted = 0;
      for (let i = 0, t = 0; t < 30_000; i++, t += 700) {
        for (let g = 0; g < 3; g++) {
          for (; next[g] <= t; next[g] += login.syncMs) gws[g].sync(next[g]);
        }
        const d = gws[i % 3].admit('login', t);
        if (d.allowed) admitted++;
        // nothing leaves the window in these 30 s
        expect(d.remaining).toBeLessThanOrEqual(login.limit - admitted);
      }
      expect(admitted).toBe(5);
    });
  }

  it('leases-ask: the gRPC answer to the first login says limit_remaining 4', () => {
    const gw = new Gateway({ id: 'g0', design: 'leases-ask', ...login }, new MemoryStore());
    const d = gw.admit('login', 0);
    const decider = {
      policy: () => ({ policyName: 'login', gateway: gw, headers: () => ({}) }),
    } as unknown as Parameters<typeof buildResponse>[2];
    const item = { limited: true, policy: 'login' } as unknown as Parameters<typeof buildResponse>[0][0];
    const r = buildResponse([item], [d], decider);
    expect(r.statuses[0]).toMatchObject({ code: 'OK', limit_remaining: 4 });
  });
});

describe("a lease gateway shows the fleet's slots left (AsyncGateway)", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('leases-ask on a MemoryStore, fake timers: 4, 3, 2, 1, 0', async () => {
    vi.useFakeTimers({ now: 0 });
    const gw = createAsyncGateway({
      id: 'g0',
      design: 'leases-ask',
      ...login,
      store: new MemoryStore(),
      clock: () => Date.now(),
      random: () => 0.25,
    });
    gw.start();
    const shown: number[] = [];
    for (let i = 0; i < 5; i++) {
      const d = await gw.admit('login');
      expect(d.allowed).toBe(true);
      shown.push(d.remaining);
      await vi.advanceTimersByTimeAsync(2_000);
    }
    expect(shown).toEqual([4, 3, 2, 1, 0]);
    await gw.stop();
  });
});
