import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Decision } from '../../src/gateway/decision.js';
import { createAsyncGateway } from '../../src/gateway/runtime/index.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import { TestAsyncStore } from '../support/async-memory-store.js';

/**
 * Regression (found by the fault suite: a leases-ask fleet admitted L + a few under load): an ask
 * sent on the request path, then a sync built before the ask's reply came back. The sync hands back
 * every slot the gateway holds — the ask's grant included, since the ask landed first — yet the ask's
 * reply used to be spent on arrival, so those slots were spent after the store had taken them back
 * and could grant them to another gateway: more than L in a window.
 */
beforeEach(() => {
  vi.useFakeTimers({ now: 1_000_000 });
});
afterEach(() => {
  vi.useRealTimers();
});

describe('regression: leases-ask spends an ask reply that a later sync already released', () => {
  it('two gateways never admit more than L when an ask and a sync cross', async () => {
    const memory = new MemoryStore();
    const clock = () => Date.now();
    const mk = (id: string, phase: number) => {
      // the gateways read the store's own clock ('caller': no clock to learn first), so the ask goes
      // out at once and crosses the sync as the scenario needs
      const store = new TestAsyncStore(memory, clock, 'caller');
      store.delayMs = 100; // applied at +50, answered at +100
      return createAsyncGateway({
        id,
        design: 'leases-ask',
        limit: 10,
        windowMs: 60_000,
        gateways: 2,
        syncMs: 100,
        store,
        clock,
        random: () => phase,
      });
    };
    const gw1 = mk('gw-1', 0.1); // first sync at +10
    const gw2 = mk('gw-2', 0.99);
    gw1.start();
    gw2.start();
    const admitted: Decision[] = [];
    const keep = (d: Decision | Promise<Decision>) =>
      Promise.resolve(d).then((x) => {
        if (x.allowed) admitted.push(x);
        return x;
      });
    // t=0: gw-1 asks for 5 (lands at 50); t=10: its sync releases everything (lands at 60)
    const a = keep(gw1.admitNow('k', 5));
    await vi.advanceTimersByTimeAsync(70);
    // t=70: gw-2 asks for 8 (lands at 120, before gw-1 pushes anything)
    const b = keep(gw2.admitNow('k', 8));
    await vi.advanceTimersByTimeAsync(200);
    await Promise.all([a, b]);
    const slots = admitted.length === 2 ? 13 : admitted.length === 1 ? 'at most 8' : 0;
    await vi.advanceTimersByTimeAsync(1000);
    const stopped = Promise.all([gw1.stop(), gw2.stop()]);
    await vi.advanceTimersByTimeAsync(1000);
    await stopped;
    const count = memory.countOf('k', gw1.options.policy, Date.now());
    console.log(
      `ask/sync race: ${admitted.length} requests admitted (${slots} slots), store count ${count} of L=10`,
    );
    expect(count).toBeLessThanOrEqual(10);
  });
});
