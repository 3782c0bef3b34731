import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createAsyncGateway } from '../../src/gateway/runtime/index.js';
import { TestAsyncStore } from '../support/async-memory-store.js';

/**
 * Issue 17, item 7: a flood of distinct keys grew one gateway's sync past storeTimeoutMs; the failed
 * batch was resent whole, so it never fit again, and the gateway stayed store-down (in `closed` mode
 * rejecting an honest user) long after the flood ended. Here the store takes 0.1 ms per key of a
 * sync, one sync after another (one server, as Redis is): 2,000 keys fill the 200 ms timeout. The
 * flood brings 400 new keys a second for 10 s, held for W = 10 s (each has an admit in the window),
 * so a whole sync would reach ~4,000 keys (~400 ms).
 */

const T0 = 1_000_000;
beforeEach(() => {
  vi.useFakeTimers({ now: T0 });
});
afterEach(() => {
  vi.useRealTimers();
});

describe('regression: a distinct-key flood locks a gateway out (issue 17 item 7)', () => {
  it('syncs stay within their timeout: never store-down, an honest user in closed mode is never degraded', async () => {
    const store = new TestAsyncStore(undefined, () => Date.now(), 'caller');
    store.perKeyMs = 0.1;
    const gw = createAsyncGateway({
      id: 'gw-1',
      design: 'shared-counter',
      limit: 10,
      windowMs: 10_000,
      gateways: 1,
      syncMs: 100,
      storeTimeoutMs: 200,
      failMode: 'closed',
      store,
      clock: () => Date.now(),
      random: () => 0.5,
    });
    gw.start();
    let timeouts = 0;
    gw.on('syncError', () => {
      timeouts++;
    });
    const honest = { sent: 0, degraded: 0, allowed: 0 };
    let downMs = 0;
    const FLOOD_MS = 10_000;
    const AFTER_MS = 12_000;
    let n = 0;
    let landed = 0;
    for (let t = 0; t < FLOOD_MS + AFTER_MS; t += 10) {
      // 4 new keys every 10 ms while the flood lasts
      if (t < FLOOD_MS) for (let i = 0; i < 4; i++) await gw.admitNow(`flood-${n++}`);
      if (t % 500 === 0) {
        const d = await gw.admitNow('honest');
        honest.sent++;
        if (d.degraded) honest.degraded++;
        if (d.allowed) honest.allowed++;
      }
      if (gw.stats().storeDown) downMs += 10;
      if (t === FLOOD_MS + 1_000) {
        // the store has every admit of the flood's last second (none lost to a sync that never fit)
        for (let k = n - 400; k < n; k++)
          landed += store.memory.countOf(`flood-${k}`, gw.options.policy, Date.now());
      }
      await vi.advanceTimersByTimeAsync(10);
    }
    const stopped = gw.stop();
    await vi.advanceTimersByTimeAsync(2_000);
    await stopped;
    const s = gw.stats();
    console.log(
      `flood of ${n} keys: ${s.syncs} syncs answered, ${timeouts} failed, store-down ${downMs} ms; honest ${honest.allowed}/${honest.sent} allowed, ${honest.degraded} degraded`,
    );
    expect(downMs).toBe(0);
    expect(honest.degraded).toBe(0);
    expect(landed).toBe(400);
    expect(s.unsyncedAdmits).toBe(0);
  }, 60_000);
});
