import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createAsyncGateway } from '../../src/gateway/runtime/index.js';
import { TestAsyncStore } from '../support/async-memory-store.js';
import { watchSyncReplies } from '../support/view-age.js';

/**
 * Issue 19, "a key flood must not starve honest keys": every round synced every held key, so a
 * flood of new keys (each held for W with its one admit) made every round as long as the whole key
 * table took the store, and an honest key's view (refreshed once a round) aged with it: with 8,000
 * flood keys held here a round took ~0.5 s of the one store server, 5Δ, and the honest key decided
 * on a view that old. Here two gateways share one store that takes 0.05 ms per key of a sync, one
 * sync after another (one server, as Redis is); the flood brings 1,000 new keys a second (split over
 * both) for 8 s, held for W = 60 s; the honest key is asked every 50 ms, in turn on each gateway.
 */

const T0 = 1_000_000;
beforeEach(() => {
  vi.useFakeTimers({ now: T0 });
});
afterEach(() => {
  vi.useRealTimers();
});

const SYNC_MS = 100;
const TIMEOUT_MS = 200;

describe('regression: a key flood stales an honest key view (issue 19)', () => {
  it('the honest key is synced about every Δ however many flood keys are held', async () => {
    const store = new TestAsyncStore(undefined, () => Date.now(), 'caller');
    store.perKeyMs = 0.05;
    const gws = [0, 1].map((i) =>
      createAsyncGateway({
        id: `gw-${i}`,
        design: 'shared-counter',
        limit: 100,
        windowMs: 60_000,
        gateways: 2,
        syncMs: SYNC_MS,
        storeTimeoutMs: TIMEOUT_MS,
        failMode: 'closed',
        store,
        clock: () => Date.now(),
        random: () => 0.25 + 0.5 * i,
      }),
    );
    for (const g of gws) g.start();
    // the flood's first 2 s fill the table; from then on the view's age is what is measured
    const watches = gws.map((g) => watchSyncReplies(g, 'honest', T0 + 2_000));
    let degraded = 0;
    let down = 0;
    let n = 0;
    for (let t = 0; t < 8_000; t += 10) {
      // 10 new keys every 10 ms, in turn on each gateway
      for (let i = 0; i < 10; i++, n++) await gws[n % 2].admitNow(`flood-${n}`);
      if (t % 50 === 0) {
        const d = await gws[(t / 50) % 2].admitNow('honest');
        if (d.degraded) degraded++;
      }
      if (gws.some((g) => g.stats().storeDown)) down++;
      for (const w of watches) w();
      await vi.advanceTimersByTimeAsync(10);
    }
    const ages = watches.map((w) => w());
    const held = gws.map((g) => g.stats().keys);
    for (const g of gws) {
      const s = g.stop();
      await vi.advanceTimersByTimeAsync(5_000);
      await s;
    }
    console.log(
      `${n} flood keys, held ${held.join(' + ')}: the honest key's view at most ${ages.join(' / ')} ms old; degraded ${degraded}, store-down ticks ${down}`,
    );
    // a round takes at most about one store timeout of store time, plus the wait for the next tick
    for (const a of ages) expect(a).toBeLessThanOrEqual(TIMEOUT_MS + 2 * SYNC_MS);
    expect(degraded).toBe(0);
    expect(down).toBe(0);
  }, 120_000);
});
