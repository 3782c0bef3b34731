import { describe, expect, it } from 'vitest';
import type { DesignId } from '../../src/config.js';
import { createGateway } from '../../src/gateway/gateway.js';
import { createAsyncGateway } from '../../src/gateway/runtime/index.js';
import type { SyncRequest, SyncResult } from '../../src/store/contract.js';
import { MemoryStore } from '../../src/store/memory-store.js';

/**
 * Issue 32, item 2: a request's cost was expanded into one array entry per unit at the gateway: its
 * admit log handed a sync one timestamp per unit (`AdmitLog.toArray`), the sync's entry carried them,
 * the in-memory store inserted one slot per unit, and the reply listed one expiry per unit. Cost
 * 5·10⁷: the next sync took 7.6 s and 656 MB of heap; cost 10⁸: V8 aborted out of memory.
 * Now an admit of any cost is one (time, count) run from the admit log to the store and back, so what
 * a key holds and sends follows its requests, never their cost.
 *
 * Seen failing on main (0ed42fc): the first step (cost 10⁶) sends 1,000,000 timestamps in its entry
 * (`admits.length` 1000000, expected at most 1); the 10⁹ step is not reached there (it would run out
 * of memory).
 */

const W = 60_000;
const L = 2_000_000_000;
/** The designs whose gateway pushes its admits at a sync (leases-ask asks for the cost: one request can spend it). */
const DESIGNS: DesignId[] = [
  'shared-counter',
  'assume-others',
  'track-share',
  'adaptive',
  'adaptive-early',
  'leases-ask',
];

/** A MemoryStore that keeps what each sync sent and got back. */
class SeenStore extends MemoryStore {
  readonly sent: SyncRequest[] = [];
  readonly got: SyncResult[] = [];
  override sync(req: SyncRequest, now: number): SyncResult {
    this.sent.push(req);
    const r = super.sync(req, now);
    this.got.push(r);
    return r;
  }
  /** Runs the last sync sent for `key`, and the admits they stand for. */
  lastEntry(key: string): { runs: number; admits: number } {
    for (let i = this.sent.length - 1; i >= 0; i--) {
      const e = this.sent[i].entries.find((x) => x.key === key && x.admits.length > 0);
      if (e !== undefined) {
        let admits = 0;
        for (let j = 0; j < e.admits.length; j++) admits += e.counts === undefined ? 1 : e.counts[j];
        return { runs: e.admits.length, admits };
      }
    }
    return { runs: 0, admits: 0 };
  }
  /** Expiry runs listed by the last reply for the entry at `index` of the last sync, and the admits they stand for. */
  lastListed(index: number): { runs: number; admits: number } {
    const r = this.got[this.got.length - 1].replies[index];
    let admits = 0;
    for (let j = 0; j < r.expiries.length; j++)
      admits += r.expiryCounts === undefined ? 1 : r.expiryCounts[j];
    return { runs: r.expiries.length, admits };
  }
}

describe('regression: a costly request is one run at the gateway and in the sync, not one entry per unit', () => {
  for (const design of DESIGNS) {
    it(`${design}: Gateway, cost 10⁶ then 10⁹ on L = 2·10⁹`, () => {
      const store = new SeenStore();
      const gw = createGateway({
        id: 'gw',
        design,
        limit: L,
        windowMs: W,
        gateways: 1,
        syncMs: 1_000,
        store,
      });
      // leases-ask's first request asks the store for its cost
      expect(gw.admit('k', 1_000, 1_000_000).allowed).toBe(true);
      gw.sync(1_500);
      expect(store.lastEntry('k')).toEqual({ runs: 1, admits: 1_000_000 });

      expect(gw.admit('k', 2_000, 1_000_000_000).allowed).toBe(true);
      expect(gw.limiterFor('k')!.unsyncedAdmits()).toBe(1_000_000_000);
      gw.sync(2_500);
      expect(store.lastEntry('k')).toEqual({ runs: 1, admits: 1_000_000_000 });
      expect(gw.limiterFor('k')!.unsyncedAdmits()).toBe(0);
      expect(store.countOf('k', gw.options.policy, 2_500)).toBe(1_001_000_000);

      // a request the window has no room for is rejected, and its Retry-After walks the runs
      const no = gw.admit('k', 3_000, 1_500_000_000);
      expect(no.allowed).toBe(false);
      expect(no.retryAfterMs).toBeGreaterThan(0);

      // near their expiry the replies list the admits, as one run each
      gw.sync(W + 1_000 - 500);
      if (design !== 'leases-ask') expect(store.lastListed(0)).toEqual({ runs: 2, admits: 1_001_000_000 });
      expect(gw.admit('k', W + 1_000 + 1, 1_000_000_000).allowed).toBe(true);
      gw.sync(W + 2_000 + 1);
      expect(store.countOf('k', gw.options.policy, W + 2_001)).toBe(1_000_000_000);
    });

    it(`${design}: AsyncGateway on the in-memory store, cost 10⁹`, async () => {
      const store = new SeenStore();
      let now = 1_000;
      const gw = createAsyncGateway({
        id: 'gw',
        design,
        limit: L,
        windowMs: W,
        gateways: 1,
        syncMs: 1_000,
        store,
        clock: () => now,
      });
      try {
        expect(await gw.syncNow()).toBe(true);
        expect((await gw.admit('k', 1_000_000)).allowed).toBe(true);
        now += 100;
        expect(await gw.syncNow()).toBe(true);
        expect(store.lastEntry('k')).toEqual({ runs: 1, admits: 1_000_000 });
        expect((await gw.admit('k', 1_000_000_000)).allowed).toBe(true);
        now += 100;
        expect(await gw.syncNow()).toBe(true);
        expect(store.lastEntry('k')).toEqual({ runs: 1, admits: 1_000_000_000 });
        expect(store.countOf('k', gw.options.policy, now)).toBe(1_001_000_000);
        const no = await gw.admit('k', 1_500_000_000);
        expect(no.allowed).toBe(false);
        now = W + 1_000 - 100;
        expect(await gw.syncNow()).toBe(true);
        now = W + 1_201;
        expect((await gw.admit('k', 1_000_000_000)).allowed).toBe(true);
        expect(await gw.syncNow()).toBe(true);
        expect(store.lastEntry('k')).toEqual({ runs: 1, admits: 1_000_000_000 });
      } finally {
        await gw.stop();
      }
    });
  }
});
