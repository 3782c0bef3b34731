import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createAsyncGateway } from '../../../src/gateway/runtime/index.js';
import type { SyncRequest, SyncResult } from '../../../src/store/contract.js';
import { TestAsyncStore } from '../../support/async-memory-store.js';

/**
 * A sync in parts (issue 17, item 7): parts sized to fit the timeout, a timed-out part resent halved
 * with its seq, its keys kept out of newer syncs until it is answered, and every admit counted once.
 * The store takes perKeyMs per key, one request after another (one server).
 */

const T0 = 1_000_000;
beforeEach(() => {
  vi.useFakeTimers({ now: T0 });
});
afterEach(() => {
  vi.useRealTimers();
});

/** A store that records the size of each request, and fails every 13th at once (an error). */
class WatchedStore extends TestAsyncStore {
  readonly sent: { seq: number; keys: number }[] = [];

  override sync(req: SyncRequest, now: number): Promise<SyncResult> {
    this.sent.push({ seq: req.seq, keys: req.entries.length });
    // rounds where some parts are answered and some not
    if (this.sent.length % 13 === 0) return Promise.reject(new Error('lost (test)'));
    return super.sync(req, now);
  }
}

describe('a sync in parts', () => {
  it('a part that times out is resent halved with its seq; a failed part’s keys wait for its resend; every admit lands once', async () => {
    const store = new WatchedStore(undefined, () => Date.now(), 'caller');
    // 0.15 ms per key: the first part (1,000 keys before any measurement) takes 150 ms > 100 ms
    store.perKeyMs = 0.15;
    const gw = createAsyncGateway({
      id: 'gw-1',
      design: 'shared-counter',
      limit: 10,
      windowMs: 60_000,
      gateways: 1,
      syncMs: 100,
      storeTimeoutMs: 100,
      store,
      clock: () => Date.now(),
      random: () => 0.5,
    });
    const answeredParts: { seq: number; keys: number; retry: boolean }[] = [];
    gw.on('sync', (e) => answeredParts.push({ seq: e.seq, keys: e.keys, retry: e.retry }));
    const N = 3_000;
    for (let i = 0; i < N; i++) expect((await gw.admitNow(`k${i}`)).allowed).toBe(true);
    // a key put in a newer sync while its older part is unanswered would, once the newer one landed,
    // have the older one's resend refused as stale (RangeError), and that part would fail for good
    const stale: unknown[] = [];
    gw.on('syncError', (e) => {
      if (e.error instanceof RangeError) stale.push(e.error);
    });
    gw.start();
    for (let t = 0; t < 10_000 && (t < 1_000 || gw.stats().unsyncedAdmits > 0); t += 10) {
      // new admits on old keys meanwhile (every key, while the first parts time out and are
      // resent): they go in newer syncs, never before their key's part is answered
      if (t % 50 === 0 && t < 1_000) for (let i = t % 100; i < N; i += 100) await gw.admitNow(`k${i}`);
      await vi.advanceTimersByTimeAsync(10);
    }
    await vi.advanceTimersByTimeAsync(1_000);
    const s = gw.stats();
    expect(s.unsyncedAdmits).toBe(0);
    expect(s.syncTimeouts).toBeGreaterThan(0);
    expect(s.syncErrors).toBeGreaterThan(0);
    // the first part timed out (1,000 keys) and went again as two halves of the same seq
    expect(store.sent[0].keys).toBe(1_000);
    const resent = answeredParts.filter((p) => p.retry && p.seq === store.sent[0].seq);
    expect(resent.length).toBeGreaterThan(0);
    expect(Math.max(...resent.map((p) => p.keys))).toBeLessThanOrEqual(500);
    // parts are sized from then on to fit in a quarter of the timeout
    expect(s.partKeys * 0.15).toBeLessThanOrEqual(25);
    expect(stale).toEqual([]);
    // every admit counted once: the store holds exactly what the gateway admitted
    const policy = gw.options.policy;
    let total = 0;
    for (let i = 0; i < N; i++) total += store.memory.countOf(`k${i}`, policy, Date.now());
    // (a few decided on the fail mode before the first answer, 300 ms in, are pushed as outage admits)
    expect(total).toBe(s.decisions.allowed + s.decisions.degradedAllowed);
    expect(s.storeDown).toBe(false);
  });
});
