import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DesignId } from '../../src/config.js';
import { FaultProxy } from '../../src/fleet/fault-proxy.js';
import {
  type DriveResult,
  decisionWaitBound,
  drive,
  type Fleet,
  gatewayClient,
  lagMonitor,
  ready,
  sleep,
  startFleetReady,
  storeCount,
  type TimedSync,
  timingSyncs,
} from '../support/fault-fleet.js';
import { type RedisServer, startRedisServer, usingExternalRedis } from '../support/redis-server.js';

/**
 * Issue 6, items 3 and 6: store latency on the sync path through a loopback proxy (50 ms, then 500 ms
 * — above the 200 ms timeout — then none), and SCRIPT FLUSH followed by a Redis restart.
 */

const L = 100;
const W = 60_000;
const K = 3;
const SYNC = 100;
const TIMEOUT = 200;
const policy = { limit: L, windowMs: W, windowKind: 'sliding' as const };

let server: RedisServer;
let proxy: FaultProxy;
let admin: Redis;
beforeAll(async () => {
  server = await startRedisServer();
  proxy = await FaultProxy.start({ targetPort: server.port });
  admin = await ready(gatewayClient(server.url));
});
afterAll(async () => {
  admin?.disconnect();
  await proxy?.close();
  await server?.stop();
});

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? Number.NaN : s[Math.floor(s.length / 2)];
};

interface Run {
  design: DesignId;
  f: Fleet;
  r?: DriveResult;
  /** Every sync of the fleet, timed until its reply was read (also after a timeout). */
  syncs: TimedSync[];
}

async function fleets(tag: string, designs: DesignId[], url: string): Promise<Run[]> {
  return Promise.all(
    designs.map(async (design) => {
      const syncs: TimedSync[] = [];
      const f = await startFleetReady({
        design,
        k: K,
        limit: L,
        windowMs: W,
        syncMs: SYNC,
        storeTimeoutMs: TIMEOUT,
        prefix: `${tag}-${design}`,
        url,
        wrapStore: (st) => timingSyncs(st, syncs),
      });
      return { design, f, syncs };
    }),
  );
}

const SYNCED: DesignId[] = ['shared-counter', 'assume-others', 'track-share', 'leases', 'split'];

describe('faults: store latency and restarts (real redis-server)', () => {
  it('50 ms on the sync path leaves the synced designs’ request path alone; 500 ms is an outage; replies that come late are not counted twice', async () => {
    const runs = await fleets('lat', [...SYNCED, 'central-log'], proxy.url);
    // a steady 2 × L per W, so the limit binds but does not saturate at once
    const rate = (2 * L) / (W / 1000) + 3;
    const drives = runs.map((run, i) =>
      drive(run.f.gws, 'k', rate * 4, 9000, 300 + i).then((r) => {
        run.r = r;
      }),
    );
    proxy.latencyDownMs = 50;
    const t50 = Date.now();
    const lag50 = lagMonitor();
    await sleep(3000);
    const lagMs50 = lag50.stop();
    const lat50 = runs.map((run) => median(run.f.syncLatencies));
    proxy.latencyDownMs = 500;
    const t500 = Date.now();
    await sleep(4000);
    proxy.latencyDownMs = 0;
    const t0 = Date.now();
    await Promise.all(drives);
    await Promise.all(runs.map((r) => r.f.stop()));
    const lines: string[] = [];
    for (const [i, run] of runs.entries()) {
      const r = run.r!;
      const { design } = run;
      const deg50 = r.degradedAt.filter((t) => t >= t50 + 200 && t < t500).length;
      const timeouts50 = run.f.syncErrorsAt.filter((t) => t >= t50 + 200 && t < t500).length;
      // syncs that could time out in [t50 + 200, t500) (sent up to a timeout before it, so a renewed
      // timeout is among them; not those still out at +500 ms), and those whose reply came after the timeout
      const at50 = run.syncs.filter((x) => x.at >= t50 - TIMEOUT && x.at < t500 - TIMEOUT);
      const slow50 = at50.filter((x) => x.ms >= TIMEOUT).length;
      const slowest50 = Math.max(0, ...at50.map((x) => x.ms));
      const deg500 = r.degradedAt.filter((t) => t >= t500 && t < t0).length;
      const degradedAdmits = r.admitted.filter((a) => a.degraded).length;
      const timeouts = run.f.syncErrorsAt.filter((t) => t >= t500 && t < t0 + TIMEOUT).length;
      const count = design === 'split' ? Number.NaN : await storeCount(admin, run.f.spec.prefix, 'k', policy);
      lines.push(
        `${design.padEnd(14)}: sync round trip ${lat50[i].toFixed(0)} ms at +50 ms (slowest ${slowest50.toFixed(0)}, ${slow50} of ${at50.length} past the timeout), ${timeouts50} timed out, ${deg50} degraded decisions then; ` +
          `at +500 ms ${timeouts} syncs timed out, ${deg500} degraded decisions, ${degradedAdmits} degraded admits (bound ${K * Math.ceil(L / K)}); ` +
          `${r.viaStore} of ${r.requests} requests waited on the store, slowest ${r.slowestMs.toFixed(1)} ms (bound ${decisionWaitBound(design, TIMEOUT, r.lagMs).toFixed(0)}); store holds ${count} of ${r.admitted.length} admitted` +
          (design === 'central-log'
            ? ` (${run.f.gws.reduce((n, g) => n + g.stats().voidedCalls, 0)} timed-out calls taken back)`
            : ''),
      );
      expect.soft(r.failed).toBe(0);
      // no decision waits past its store timeout, on a timer as late as this run's event loop made it
      expect.soft(r.slowestMs).toBeLessThanOrEqual(decisionWaitBound(design, TIMEOUT, r.lagMs));
      if (design !== 'central-log') {
        // the request path never touches the store
        expect.soft(r.viaStore).toBe(0);
        // A sync through +50 ms takes 50 ms + Redis's few ms, and times out only if its reply is read
        // after the timeout: judged on each sync's round trip as this process read it (timingSyncs, also
        // after a timeout), not on the loop's worst single delay. The reply takes several turns of this
        // loop (the proxy reads it, holds it 50 ms, writes it on; the gateway reads it) and the Redis
        // process's own, and at a load of 9–13 delays each under the 130 ms the loop-lag gate allowed
        // added up past the timeout (one sync timed out at +50 ms with the gate passed). So: no sync
        // times out whose reply came within the timeout, and without a slow reply the store never
        // goes stale (staleAfterMs = 2Δ + timeout), so no decision is degraded; replies slower than the
        // timeout must stay the exception (the median round trip within it), or +50 ms was not tested.
        expect
          .soft(timeouts50, `${design}: syncs timed out at +50 ms, more than replies came late`)
          .toBeLessThanOrEqual(slow50);
        if (slow50 === 0) expect.soft(deg50, `${design}: degraded decisions at +50 ms`).toBe(0);
        expect.soft(lat50[i], `${design}: median sync round trip at +50 ms`).toBeLessThan(TIMEOUT);
      }
      if (design !== 'split') {
        expect.soft(timeouts).toBeGreaterThan(0);
        expect.soft(deg500).toBeGreaterThan(0);
        expect.soft(degradedAdmits).toBeLessThanOrEqual(K * Math.ceil(L / K));
        // every sync landed, most replies came too late and the batch was resent with its seq; the
        // central-log calls that landed but answered too late were taken back (voidLogAdmits)
        expect.soft(count).toBe(r.admitted.length);
      }
    }
    console.log(
      `store latency via the proxy (timeout ${TIMEOUT} ms); at +50 ms the loop was ${lagMs50.toFixed(0)} ms late at worst:\n${lines.join('\n')}`,
    );
    for (const run of runs) run.f.disconnect();
  }, 40_000);

  // signals its own server: skipped on a REDIS_URL server (test/support/redis-server.ts)
  it.skipIf(usingExternalRedis)(
    'SCRIPT FLUSH and a Redis restart mid-flood: zero failed requests',
    async () => {
      const designs: DesignId[] = [
        'central-log',
        'shared-counter',
        'assume-others',
        'track-share',
        'leases',
        'leases-ask',
      ];
      const runs = await fleets('flush', designs, server.url);
      const drives = runs.map((run, i) =>
        drive(run.f.gws, 'k', 100, 6000, 400 + i).then((r) => {
          run.r = r;
        }),
      );
      await sleep(1500);
      const flushAt = Date.now();
      await admin.script('FLUSH');
      await sleep(1500);
      const restartAt = Date.now();
      await server.restart();
      const backAt = Date.now();
      await Promise.all(drives);
      await Promise.all(runs.map((r) => r.f.stop()));
      const lines: string[] = [];
      for (const run of runs) {
        const r = run.r!;
        const degFlush = r.degradedAt.filter((t) => t >= flushAt && t < restartAt).length;
        // a sync that errs after the flush is a script the store no longer has and the gateway did not
        // send again (NOSCRIPT); one that times out there is load, the same as before the flush
        const errFlush = run.f.syncFaultsAt.filter((t) => t >= flushAt && t < restartAt).length;
        const timeoutsFlush =
          run.f.syncErrorsAt.filter((t) => t >= flushAt && t < restartAt).length -
          errFlush +
          run.f.callFailuresAt.filter((t) => t >= flushAt && t < restartAt).length;
        const degRestart = r.degradedAt.filter((t) => t >= restartAt).length;
        const bound = decisionWaitBound(run.design, TIMEOUT, r.lagMs);
        lines.push(
          `${run.design.padEnd(14)}: ${r.requests} requests, ${r.failed} failed, slowest ${r.slowestMs.toFixed(0)} ms (bound ${bound.toFixed(0)}, loop ${r.lagMs.toFixed(0)} ms late at worst); ` +
            `after SCRIPT FLUSH ${errFlush} sync errors, ${timeoutsFlush} timeouts, ${degFlush} degraded; restart took ${backAt - restartAt} ms, ${degRestart} degraded decisions after it`,
        );
        expect.soft(r.failed).toBe(0);
        expect.soft(r.slowestMs).toBeLessThanOrEqual(bound);
        expect.soft(errFlush).toBe(0);
        // degraded only once no sync answered for staleAfterMs (2Δ + timeout), or a request-path call
        // failed: never for the flush itself, so none unless a store call timed out there (load)
        if (timeoutsFlush === 0) expect.soft(degFlush).toBe(0);
      }
      console.log(`SCRIPT FLUSH, then restart (nothing kept):\n${lines.join('\n')}`);
      for (const run of runs) run.f.disconnect();
    },
    30_000,
  );
});
