import { once } from 'node:events';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import type { DesignId } from '../../src/config.js';
import { type AsyncGateway, createAsyncGateway } from '../../src/gateway/runtime/index.js';
import { Random } from '../../src/sim/random.js';
import { runSeeds } from '../../src/sim/run.js';
import { RedisStore } from '../../src/store/redis/index.js';
import { expandRuns } from '../../src/window/runs.js';
import { decisionWaitBound, lagMonitor } from '../support/fault-fleet.js';
import { useRedisServer } from '../support/redis-per-file.js';
import { usingExternalRedis } from '../support/redis-server.js';

/**
 * The designs on a real redis-server under real concurrency: several gateways in one process, each
 * with its own connection, driven on the real clock.
 */

const redis = useRedisServer();

const STORE_TIMEOUT_MS = 250;

function connect(): Redis {
  const c = new Redis(redis.server.url, {
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    lazyConnect: false,
  });
  c.on('error', () => {});
  return redis.keep(c);
}

/** Gateway i's sync phase source: the same phases on every run. */
function seededPhase(i: number): () => number {
  const rng = new Random(7_000 + i);
  return () => rng.uniform();
}

interface Fleet {
  gws: AsyncGateway[];
  pushedAdmits(): number[];
  stop(): Promise<void>;
}

function fleet(
  design: DesignId,
  k: number,
  opts: { limit: number; windowMs: number; syncMs: number; prefix: string },
) {
  const gws: AsyncGateway[] = [];
  // every admit as the store received it (its own timestamp), once per gateway, seq and key: a sync
  // goes out in parts with one seq (each key in one part), and a resent part carries the same seq
  // and the same admits per key (halved parts included), which the store applies once
  const pushed = new Map<string, number[]>();
  for (let i = 0; i < k; i++) {
    const store = new RedisStore(connect(), { prefix: `${opts.prefix}:` });
    const sync = store.sync.bind(store);
    store.sync = (req, now) => {
      for (const e of req.entries)
        pushed.set(`${req.gatewayId}/${req.seq}/${e.key}`, expandRuns(e.admits, e.counts));
      return sync(req, now);
    };
    gws.push(
      createAsyncGateway({
        id: `${opts.prefix}-gw-${i}`,
        design,
        limit: opts.limit,
        windowMs: opts.windowMs,
        gateways: k,
        syncMs: opts.syncMs,
        store,
        storeTimeoutMs: STORE_TIMEOUT_MS,
        // the sync timers' phases, seeded: a run repeats the last one's (issue 32)
        random: seededPhase(i),
      }),
    );
  }
  for (const g of gws) g.start();
  return {
    gws,
    pushedAdmits: () => [...pushed.values()].flat(),
    async stop() {
      await Promise.all(gws.map((g) => g.stop()));
    },
  } satisfies Fleet;
}

/**
 * Poisson arrivals at `ratePerSec` for `durationMs` of real time, each to a random gateway; resolves
 * with the times of the admitted ones and the slowest decision.
 */
async function drive(
  gws: AsyncGateway[],
  key: string,
  ratePerSec: number,
  durationMs: number,
  seed: number,
): Promise<{ admitted: number[]; requests: number; slowestMs: number; degraded: number; lagMs: number }> {
  const rng = new Random(seed);
  const admitted: number[] = [];
  let requests = 0;
  let slowestMs = 0;
  let degraded = 0;
  const lag = lagMonitor();
  const start = Date.now();
  let next = start + rng.exponential(ratePerSec / 1000);
  const pending: Promise<void>[] = [];
  while (Date.now() - start < durationMs) {
    const now = Date.now();
    while (next <= now) {
      next += rng.exponential(ratePerSec / 1000);
      const gw = gws[Math.floor(rng.uniform() * gws.length)];
      requests++;
      const t0 = performance.now();
      const d = gw.admitNow(key);
      const done = (x: { allowed: boolean; degraded?: boolean }) => {
        slowestMs = Math.max(slowestMs, performance.now() - t0);
        if (x.degraded) degraded++;
        if (x.allowed) admitted.push(gw.now());
      };
      if (d instanceof Promise) pending.push(d.then(done));
      else done(d);
    }
    await new Promise((r) => setTimeout(r, 1));
  }
  await Promise.all(pending);
  return { admitted, requests, slowestMs, degraded, lagMs: lag.stop() };
}

function worstWindow(ts: number[], w: number): number {
  const s = [...ts].sort((a, b) => a - b);
  let best = 0;
  let lo = 0;
  for (let hi = 0; hi < s.length; hi++) {
    while (s[hi] - s[lo] >= w) lo++;
    best = Math.max(best, hi - lo + 1);
  }
  return best;
}

describe('the designs on a real redis-server', () => {
  // The tolerance (scripts/live-sim-tolerance.ts): this run is one draw of arrivals (seed 1) and sync
  // phases (seededPhase), and its 4 windows after the first give admits per window near, not at, the
  // expected value. The simulator's runs of the same 10 s, 2,000 seeds, land within 5.7 % of the mean
  // of 200 (the reference here) at the 99th percentile, 7.4 % at the 99.9th, 8.1 % at most: 15 % holds
  // that spread with over 99.9 % confidence and leaves 7.6 points for what the simulator does not
  // model (Redis round trips, timers firing late on a loaded machine). The reference was the mean of
  // 3 runs of 10 minutes before: 3.7 % below what a 10-s run gives on average (its first windows).
  it('four shared-counter gateways under a flood admit within 15 % of what the simulator gives', async () => {
    const limit = 100;
    const windowMs = 2000;
    const syncMs = 100;
    const load = 10; // a flood at 10 × L per W: 500 requests/s
    const f = fleet('shared-counter', 4, { limit, windowMs, syncMs, prefix: 'flood' });
    const durationMs = 10_000;
    const t0 = Date.now();
    const r = await drive(f.gws, 'victim', (load * limit) / (windowMs / 1000), durationMs, 1);
    await f.stop();
    const after = r.admitted.filter((t) => t >= t0 + windowMs).length;
    const live = after / ((durationMs - windowMs) / windowMs) / limit;
    const sim = runSeeds(
      {
        design: 'shared-counter',
        gateways: 4,
        syncS: syncMs / 1000,
        limit,
        windowS: windowMs / 1000,
        windowKind: 'sliding',
        alignedSyncs: false,
        traffic: 'flood',
        load,
        routing: 'even',
        minutes: durationMs / 60_000,
      },
      Array.from({ length: 200 }, (_, i) => i + 1),
    ).mean.admittedPerWindow;
    console.log(
      `shared-counter K=4 Δ=100 ms W=2 s flood 10×: live ${live.toFixed(3)} × L per window, simulator ${sim.toFixed(3)} × L (${r.requests} requests, event loop lag ${r.lagMs.toFixed(0)} ms)`,
    );
    expect(Math.abs(live - sim) / sim).toBeLessThanOrEqual(0.15);
  }, 60_000);

  // 15 s: 7 windows of W = 2 s per design, each with every gateway's ~150 syncs racing its asks (it
  // was 30 s; the lease-chaos and differential tests cover the orderings at random besides)
  it('leases and leases-ask never exceed L in any window under real concurrency (4 gateways, 15 s)', async () => {
    const limit = 50;
    const windowMs = 2000;
    const runs = (['leases', 'leases-ask'] as const).map(async (design, i) => {
      const f = fleet(design, 4, { limit, windowMs, syncMs: 100, prefix: design });
      // random arrivals at 3 × L per W, so the limit binds
      const r = await drive(f.gws, 'k', (3 * limit) / (windowMs / 1000), 15_000, 10 + i);
      await f.stop();
      // judged on the admits' own timestamps as pushed to the store (the window's clock), every one
      const pushed = f.pushedAdmits();
      expect(pushed.length).toBe(r.admitted.length);
      // Each gateway stamps its admits with its estimate of the store's clock (its own clock plus an
      // offset learned at the midpoint of a round trip), so two gateways' stamps can disagree by up to
      // about half a round trip: spans are judged W − 25 ms long so that estimate cannot decide.
      return {
        design,
        worst: worstWindow(pushed, windowMs - 25),
        admitted: pushed.length,
        requests: r.requests,
      };
    });
    for (const r of await Promise.all(runs)) {
      console.log(
        `${r.design}: worst window ${r.worst} of L = ${limit} (${r.admitted} admitted of ${r.requests})`,
      );
      expect(r.worst).toBeLessThanOrEqual(limit);
      expect(r.admitted).toBeGreaterThan(limit * 5);
    }
  }, 90_000);

  // kills and restarts the server: only one this process started
  it.skipIf(usingExternalRedis)(
    'Redis killed mid-flood and restarted: no decision waits past the timeout, fail modes hold, outage admits are pushed',
    async () => {
      const limit = 100;
      const windowMs = 60_000;
      const k = 3;
      const designs: DesignId[] = ['shared-counter', 'central-log'];
      const fleets = designs.map((d) => ({
        design: d,
        f: fleet(d, k, { limit, windowMs, syncMs: 100, prefix: `kill-${d}` }),
      }));
      const rate = 200;
      const drives = fleets.map(({ f }, i) => drive(f.gws, 'k', rate, 9000, 20 + i));
      await new Promise((r) => setTimeout(r, 2500));
      // taken before the signal: a gateway that sees the connection drop admits on its own at once,
      // possibly before kill9() has seen the process exit, and those admits reach the new server
      const outageAt = Date.now();
      await redis.server.kill9();
      await new Promise((r) => setTimeout(r, 3000));
      await redis.server.restart();
      const backAt = Date.now();
      const results = await Promise.all(drives);
      for (const { f } of fleets) await f.stop();

      const readerClient = connect();
      if (readerClient.status !== 'ready') await once(readerClient, 'ready');
      for (let i = 0; i < fleets.length; i++) {
        const { design } = fleets[i];
        const r = results[i];
        const store = new RedisStore(readerClient, { prefix: `kill-${design}:` });
        const res = await store.sync(
          {
            gatewayId: 'reader',
            seq: 1,
            policy: { limit, windowMs, windowKind: 'sliding' },
            leaseTtlMs: 1000,
            horizonMs: 1,
            entries: [{ key: 'k', admits: [], read: true, release: false, ask: 0 }],
          },
          Date.now(),
        );
        const duringOutage = r.admitted.filter((t) => t >= outageAt && t < backAt).length;
        // The precondition that makes the count below exact: the key is full (L admitted in the
        // first half second of a 60 s window) long before the kill, so the old server confirms
        // nothing near it and no admit on the boundary can have landed on either side of it.
        const justBefore = r.admitted.filter((t) => t >= outageAt - 1000 && t < outageAt).length;
        expect(justBefore, `${design}: admitted in the second before the kill`).toBe(0);
        // the restarted server kept nothing: it holds what was admitted in the outage and after
        const sinceOutage = r.admitted.filter((t) => t >= outageAt).length;
        // the store timeout on a timer as late as this run's event loop made it (decisionWaitBound)
        const waitBound = decisionWaitBound(design, STORE_TIMEOUT_MS, r.lagMs);
        console.log(
          `${design}: slowest decision ${r.slowestMs.toFixed(0)} ms (bound ${waitBound.toFixed(0)}), ${r.degraded} degraded, ${duringOutage} admitted during the 3 s outage (bound K·ceil(L/K) = ${k * Math.ceil(limit / k)}), store holds ${res.replies[0].count} of ${sinceOutage} admitted since`,
        );
        expect(r.slowestMs).toBeLessThanOrEqual(waitBound);
        expect(r.degraded).toBeGreaterThan(0);
        expect(duringOutage).toBeLessThanOrEqual(k * Math.ceil(limit / k));
        // exact for both. central-log: a request-path call that timed out may still land, but the
        // gateway takes it back (voidLogAdmits, sent before every sync, the last one at stop()): it
        // leaves the log if it landed and is refused if it lands later (within W = 60 s, longer than
        // the run); what the gateway admitted on its own meanwhile reaches the store as outage records.
        // So the store counts exactly what was admitted since the restart emptied it.
        expect.soft(res.replies[0].count, `${design}: store count`).toBe(sinceOutage);
      }
    },
    90_000,
  );
});
