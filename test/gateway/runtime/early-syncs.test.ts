import { Registry } from 'prom-client';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createAsyncGateway } from '../../../src/gateway/runtime/index.js';
import { TestAsyncStore } from '../../support/async-memory-store.js';

const T0 = 1_000_000;
beforeEach(() => {
  vi.useFakeTimers({ now: T0 });
});
afterEach(() => {
  vi.useRealTimers();
});

/** adaptive-early on K = 4, L = 120 per 60 s, Δ = 1 s: a part is max(1, (120 − known)/6) = 20 at first. */
function gateway(store: TestAsyncStore) {
  return createAsyncGateway({
    id: 'g',
    design: 'adaptive-early',
    limit: 120,
    windowMs: 60_000,
    gateways: 4,
    syncMs: 1_000,
    store,
    clock: () => Date.now(),
    random: () => 0.5,
  });
}

describe('adaptive-early in the async runtime: early syncs', () => {
  it('a spent part sends a sync before the next tick, off the request path', async () => {
    const store = new TestAsyncStore();
    const gw = gateway(store);
    gw.start();
    // the timer's first tick is at 0.5 s (random 0.5): stay before it
    let admitted = 0;
    for (let i = 0; i < 30; i++) if (gw.allowNow('k') === true) admitted++;
    // the part (20) is spent: the rest are rejected until a sync; the sync is not sent in the call
    expect(admitted).toBe(20);
    expect(store.calls.sync).toBe(0);
    expect(gw.earlySyncs!.sent).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(store.calls.sync).toBe(1);
    // the store has the 20 and none of the others' admits: a round (a spent part less than Δ after
    // the key's start), so the gateway holds back the parts the other 3 may have taken unseen, 3 × 20:
    // the next part is (120 − 20 − 60)/6 ≈ 6.7: 6 more, then another early sync
    let more = 0;
    for (let i = 0; i < 30; i++) if (gw.allowNow('k') === true) more++;
    expect(more).toBe(6);
    expect(gw.earlySyncs!.sent).toBe(2);
    await gw.stop();
  });

  it('the bucket caps early syncs: 4 at once, then 1 per Δ', async () => {
    const store = new TestAsyncStore();
    const gw = gateway(store);
    gw.start();
    // keys whose parts are spent one after another: each wants a sync right away
    for (let round = 0; round < 8; round++) {
      for (let i = 0; i < 25; i++) gw.allowNow(`k${round}`);
      await vi.advanceTimersByTimeAsync(1);
    }
    expect(gw.earlySyncs!.sent).toBe(4);
    expect(gw.earlySyncs!.capped).toBeGreaterThan(0);
    // the same counts in stats() and on the Prometheus counter
    const { earlySyncs, earlySyncsCapped } = gw.stats();
    expect({ earlySyncs, earlySyncsCapped }).toEqual({
      earlySyncs: 4,
      earlySyncsCapped: gw.earlySyncs!.capped,
    });
    const text = await gw.registerMetrics(new Registry()).metrics();
    expect(text).toContain(`fleetlimit_early_syncs_total{gateway="${gw.id}",result="sent"} 4`);
    expect(text).toContain(
      `fleetlimit_early_syncs_total{gateway="${gw.id}",result="capped"} ${gw.earlySyncs!.capped}`,
    );
    // 10 s later: 10 ticks, and at most 10 more early syncs over them
    for (let s = 0; s < 100; s++) {
      for (let i = 0; i < 25; i++) gw.allowNow(`m${s}`);
      await vi.advanceTimersByTimeAsync(100);
    }
    expect(gw.earlySyncs!.sent).toBeLessThanOrEqual(4 + 11);
    expect(gw.earlySyncs!.sent).toBeGreaterThanOrEqual(4 + 9);
    await gw.stop();
  });

  it('a design without early syncs has none', () => {
    const gw = createAsyncGateway({
      id: 'g',
      design: 'adaptive',
      limit: 120,
      windowMs: 60_000,
      gateways: 4,
      syncMs: 1_000,
      store: new TestAsyncStore(),
    });
    expect(gw.earlySyncs).toBeNull();
  });
});
