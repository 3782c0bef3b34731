import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createAsyncGateway } from '../../src/gateway/runtime/index.js';
import type { SyncRequest } from '../../src/store/contract.js';
import { TestAsyncStore } from '../support/async-memory-store.js';

/**
 * Issue 32: a key-rotation flood through the sidecar cost Redis about 100 commands per hostile
 * request. Each request made a key with one admit, and the gateway held it for W (the admit counts
 * that long) and read it from the store at every sync: a key seen once was synced W/Δ times (60 in
 * the NGINX example: W = 60 s, Δ = 1 s). Now a key with room to spare and nothing to push is read
 * again at doubling intervals (2, 4, 8 … syncs, at most W/4 apart) while it stays quiet: the store's
 * work per new key is bounded, whatever W/Δ. A key that admits again is pushed and read at once,
 * and read every sync while it has admits to push, as before.
 *
 * Here the NGINX example's api policy (adaptive, L = 100 per 60 s, K = 2, Δ = 1 s) on one gateway,
 * 500 new keys a second for 4 s, and then W + 10 s of syncs: every sync entry is counted per key.
 */

const T0 = 1_000_000;
beforeEach(() => {
  vi.useFakeTimers({ now: T0 });
});
afterEach(() => {
  vi.useRealTimers();
});

describe('regression: a key-rotation flood reads each key at every sync for a window (issue 32)', () => {
  it('a key seen once costs the store a bounded number of sync entries, not one per Δ for W', async () => {
    const store = new TestAsyncStore(undefined, () => Date.now(), 'caller');
    const entries = new Map<string, number>();
    const sync = store.sync.bind(store);
    store.sync = (req: SyncRequest, now: number) => {
      for (const e of req.entries) entries.set(e.key, (entries.get(e.key) ?? 0) + 1);
      return sync(req, now);
    };
    const gw = createAsyncGateway({
      id: 'edge-1',
      design: 'adaptive',
      limit: 100,
      windowMs: 60_000,
      gateways: 2,
      syncMs: 1000,
      store,
      clock: () => Date.now(),
      random: () => 0.5,
    });
    gw.start();
    let n = 0;
    for (let t = 0; t < 4_000; t += 10) {
      for (let i = 0; i < 5; i++, n++) expect((await gw.admitNow(`rotating-${n}`)).allowed).toBe(true);
      await vi.advanceTimersByTimeAsync(10);
    }
    // an honest key asked once a second all along: read at every sync, as before
    for (let t = 0; t < 70_000; t += 1000) {
      await gw.admitNow('honest');
      await vi.advanceTimersByTimeAsync(1000);
    }
    const heldAfter = gw.stats().keys;
    const s = gw.stop();
    await vi.advanceTimersByTimeAsync(5_000);
    await s;
    const perKey = Array.from({ length: n }, (_, i) => entries.get(`rotating-${i}`) ?? 0);
    const mean = perKey.reduce((a, b) => a + b, 0) / n;
    const most = Math.max(...perKey);
    console.log(
      `${n} keys seen once: ${mean.toFixed(1)} sync entries each (most ${most}); honest key ${entries.get('honest')}; held after W + 10 s: ${heldAfter}`,
    );
    // the push, then reads at doubling intervals up to W/4 apart until the admit ages out: ≤ 10
    expect(most).toBeLessThanOrEqual(10);
    expect(Math.min(...perKey)).toBeGreaterThanOrEqual(1);
    // the honest key, asked every Δ, pushed and read at every sync
    expect(entries.get('honest')).toBeGreaterThanOrEqual(65);
    // and the flood's keys are let go once their admits aged out, as before
    expect(heldAfter).toBeLessThanOrEqual(1);
  }, 120_000);
});
