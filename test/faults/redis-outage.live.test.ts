import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DesignId } from '../../src/config.js';
import type { FailMode } from '../../src/gateway/runtime/index.js';
import {
  type DriveResult,
  decisionWaitBound,
  drive,
  type Fleet,
  gatewayClient,
  heapMB,
  LAG_RESOLUTION_MS,
  RECONNECT_CAP_MS,
  ready,
  sleep,
  startFleetReady,
  storeCount,
  untilSyncedSince,
  worstWindow,
} from '../support/fault-fleet.js';
import { type RedisServer, startRedisServer, usingExternalRedis } from '../support/redis-server.js';

/**
 * Issue 6, items 1 and 2: a real redis-server killed (SIGKILL) mid-flood and restarted empty, and one
 * paused (SIGSTOP) for 5 s. Every design and fail mode on one server, each fleet under its own prefix.
 *
 * One window W = 60 s covers the whole run, so "in any window" is "in the whole run", and the store's
 * count after the restart is exactly what was pushed to the new server.
 */

const L = 100;
const W = 60_000;
const K = 3;
const SYNC = 100;
const TIMEOUT = 200;
const SPLIT_BOUND = K * Math.ceil(L / K);
const RATE = 100; // per fleet, per second: a 60× flood
const policy = { limit: L, windowMs: W, windowKind: 'sliding' as const };
/**
 * How long the fleets keep running after the restart for every gateway to sync again, at most. The
 * drives end 10 s after they start, whenever the restart came: at a load of 9–13 a loop stalled
 * ~1 s put the restart so late that the fleets stopped before the next reconnect attempt, and the
 * reconnect was never seen (Infinity). Waiting for the syncs (or this cap) makes the premise happen;
 * the bound below still judges how long they took.
 */
const RECONNECT_WAIT_CAP_MS = 10_000;

let server: RedisServer;
let reader: Redis;
beforeAll(async () => {
  server = await startRedisServer();
});
afterAll(async () => {
  reader?.disconnect();
  await server?.stop();
});

const isLease = (d: DesignId) => d === 'leases' || d === 'leases-ask';

interface Run {
  design: DesignId;
  failMode: FailMode;
  f: Fleet;
  r?: DriveResult;
}

async function fleets(tag: string, setups: [DesignId, FailMode][]): Promise<Run[]> {
  return Promise.all(
    setups.map(async ([design, failMode]) => ({
      design,
      failMode,
      f: await startFleetReady({
        design,
        failMode,
        k: K,
        limit: L,
        windowMs: W,
        syncMs: SYNC,
        storeTimeoutMs: TIMEOUT,
        prefix: `${tag}-${design}-${failMode}`,
        url: server.url,
      }),
    })),
  );
}

/** Checks one fleet's run through an outage [downAt, backAt); returns a line for the log. */
async function check(
  run: Run,
  downAt: number,
  backAt: number,
  kept: boolean,
  loopLagMs: number,
  drainMs = 0,
): Promise<string> {
  const { design, failMode, f } = run;
  const r = run.r!;
  const during = r.admitted.filter((a) => a.wall >= downAt && a.wall < backAt);
  const degradedAdmits = r.admitted.filter((a) => a.degraded);
  const beforeBack = r.admitted.filter((a) => a.wall < backAt);
  const reconnectMs = Math.max(...f.syncsAt.map((s) => (s.find((t) => t >= backAt) ?? Infinity) - backAt));
  // Back on the restarted server within: the next reconnect attempt (at most RECONNECT_CAP_MS apart),
  // then the next sync tick (Δ) and its answer (the timeout), each on a timer up to lagMs late. A
  // paused server does not keep the connection: a command unanswered for socketTimeout (1 s, see
  // gatewayClientOptions) drops it, so the gateways reconnect on the same backoff as after a kill; and
  // before anything is answered, Redis works through the commands that queued while it was stopped
  // (drainMs: measured, a PING sent at the resume). The larger of the two.
  const lag = r.lagMs;
  // the reconnect may come after the drive (untilSyncedSince): the loop's lag over the whole run
  const rLag = Math.max(lag, loopLagMs);
  const reconnectMs0 = kept ? Math.max(drainMs, RECONNECT_CAP_MS + rLag) : RECONNECT_CAP_MS + rLag;
  const reconnectBound = reconnectMs0 + SYNC + TIMEOUT + 2 * rLag;
  // nothing was kept: the new server holds exactly what was pushed to it
  reader ??= await ready(gatewayClient(server.url));
  const count = await storeCount(reader, f.spec.prefix, 'k', policy);
  // a paused server keeps everything: then the store must hold every admit, once
  const sinceDown = kept ? r.admitted.length : r.admitted.filter((a) => a.wall >= downAt).length;
  // admits made just before the outage that no answered sync carried yet go to the new server too:
  // a gateway's last sync answered before the outage was sent at most the timeout (+ lag) before its
  // answer, and carried every admit of that gateway made before it was sent
  const lastGood = f.syncsAt.map((s) => Math.max(Number.NEGATIVE_INFINITY, ...s.filter((t) => t < downAt)));
  const sinceLastSync = kept
    ? r.admitted.length
    : r.admitted.filter((a) => a.wall >= lastGood[a.gw] - TIMEOUT - lag).length;
  const waitBound = decisionWaitBound(design, TIMEOUT, lag);

  expect.soft(r.failed).toBe(0);
  expect.soft(r.slowestMs, `${design} ${failMode}: slowest decision`).toBeLessThanOrEqual(waitBound);
  expect.soft(r.degraded).toBeGreaterThan(0);
  expect.soft(reconnectMs, `${design} ${failMode}: reconnect`).toBeLessThanOrEqual(reconnectBound);
  if (failMode === 'closed') expect.soft(degradedAdmits.length).toBe(0);
  if (failMode === 'local' && !isLease(design))
    expect.soft(degradedAdmits.length).toBeLessThanOrEqual(SPLIT_BOUND);
  if (failMode === 'open') {
    // admits everything; pushes at most L per gateway per window (more would say nothing new)
    expect.soft(count).toBeLessThanOrEqual(sinceLastSync);
    expect.soft(count).toBeGreaterThanOrEqual(Math.min(L, sinceDown));
  } else {
    // central-log too: a request-path call that timed out and landed later is taken back (voidLogAdmits)
    expect.soft(count).toBeGreaterThanOrEqual(sinceDown);
    expect.soft(count).toBeLessThanOrEqual(sinceLastSync);
  }
  // the lease designs keep L through the outage: the whole run up to the restart is inside one window
  if (isLease(design) && failMode !== 'open')
    expect
      .soft(
        worstWindow(
          beforeBack.map((a) => a.wall),
          W,
        ),
      )
      .toBeLessThanOrEqual(L);
  return (
    `${design.padEnd(14)} ${failMode.padEnd(6)}: slowest ${r.slowestMs.toFixed(0)} ms (bound ${waitBound.toFixed(0)}), ` +
    `${r.degraded} degraded decisions, ${degradedAdmits.length} degraded admits (bound ${failMode === 'local' ? (isLease(design) ? 'granted slots' : SPLIT_BOUND) : failMode === 'closed' ? 0 : 'none'}), ` +
    `${during.length} admitted in the outage, ${beforeBack.length} before the restart, ` +
    `reconnected in ${reconnectMs.toFixed(0)} ms (bound ${reconnectBound.toFixed(0)}), store holds ${count} (admitted since outage ${sinceDown}, since last sync ≤ ${sinceLastSync})` +
    (design === 'central-log'
      ? `; ${f.gws.reduce((n, g) => n + g.stats().voidedCalls, 0)} timed-out calls taken back`
      : '')
  );
}

describe('faults: Redis killed and paused mid-flood (real redis-server)', () => {
  // signals its own server: skipped on a REDIS_URL server (test/support/redis-server.ts)
  it.skipIf(usingExternalRedis)(
    'kill -9 for 5 s, back empty: answers within the timeout, fail modes hold their bound, outage admits pushed once',
    async () => {
      const runs = await fleets('kill', [
        ['central-log', 'local'],
        ['shared-counter', 'local'],
        ['assume-others', 'local'],
        ['track-share', 'local'],
        ['leases', 'local'],
        ['leases-ask', 'local'],
        ['shared-counter', 'closed'],
        ['leases', 'closed'],
        ['shared-counter', 'open'],
        ['central-log', 'open'],
      ]);
      const loop = monitorEventLoopDelay({ resolution: 10 });
      loop.enable();
      const drives = runs.map((run, i) =>
        drive(run.f.gws, 'k', RATE, 10_000, 100 + i).then((r) => {
          run.r = r;
        }),
      );
      await sleep(2000);
      await server.kill9();
      const downAt = Date.now();
      await sleep(5000);
      await server.restart();
      const backAt = Date.now();
      await Promise.all(drives);
      await untilSyncedSince(
        runs.map((r) => r.f),
        backAt,
        RECONNECT_WAIT_CAP_MS,
      );
      loop.disable();
      const loopLagMs = loop.max / 1e6 + LAG_RESOLUTION_MS;
      await Promise.all(runs.map((r) => r.f.stop()));
      const lines: string[] = [];
      try {
        for (const run of runs) lines.push(await check(run, downAt, backAt, false, loopLagMs));
      } finally {
        console.log(
          `kill -9 mid-flood, 5 s down, L=${L} W=60s K=${K} Δ=${SYNC} ms timeout ${TIMEOUT} ms; worst event-loop delay ${(loop.max / 1e6).toFixed(0)} ms:\n${lines.join('\n')}`,
        );
        for (const run of runs) run.f.disconnect();
      }
    },
    40_000,
  );

  // signals its own server: skipped on a REDIS_URL server (test/support/redis-server.ts)
  it.skipIf(usingExternalRedis)(
    'SIGSTOP for 5 s: the same, heap flat while paused, late replies dropped, nothing counted twice',
    async () => {
      const runs = await fleets('pause', [
        ['central-log', 'local'],
        ['shared-counter', 'local'],
        ['track-share', 'local'],
        ['leases', 'local'],
        ['leases-ask', 'local'],
        ['shared-counter', 'closed'],
        ['shared-counter', 'open'],
      ]);
      const loop = monitorEventLoopDelay({ resolution: 10 });
      loop.enable();
      const drives = runs.map((run, i) =>
        drive(run.f.gws, 'k', RATE, 10_000, 200 + i).then((r) => {
          run.r = r;
        }),
      );
      // idle through the pause, then asks once Redis runs again: how long its backlog takes
      const pinger = await ready(gatewayClient(server.url));
      await sleep(1500);
      const heapBefore = heapMB();
      await sleep(500);
      server.pause();
      const downAt = Date.now();
      const heapSamples: number[] = [];
      for (let i = 0; i < 5; i++) {
        await sleep(1000);
        heapSamples.push(heapMB());
      }
      server.resume();
      const backAt = Date.now();
      const p0 = performance.now();
      await pinger.ping();
      const drainMs = performance.now() - p0;
      pinger.disconnect();
      await Promise.all(drives);
      await untilSyncedSince(
        runs.map((r) => r.f),
        backAt,
        RECONNECT_WAIT_CAP_MS,
      );
      loop.disable();
      const loopLagMs = loop.max / 1e6 + LAG_RESOLUTION_MS;
      await Promise.all(runs.map((r) => r.f.stop()));
      const heapAfter = heapMB();
      const lines: string[] = [];
      try {
        for (const run of runs) lines.push(await check(run, downAt, backAt, true, loopLagMs, drainMs));
      } finally {
        const growth = Math.max(...heapSamples) - heapBefore;
        console.log(
          `SIGSTOP 5 s mid-flood (Redis answered a PING ${drainMs.toFixed(0)} ms after the resume; worst event-loop delay ${(loop.max / 1e6).toFixed(0)} ms): heap before ${heapBefore.toFixed(1)} MB, while paused ${heapSamples.map((h) => h.toFixed(1)).join(' / ')} MB (max growth ${growth.toFixed(1)} MB), after ${heapAfter.toFixed(1)} MB\n${lines.join('\n')}`,
        );
        for (const run of runs) run.f.disconnect();
      }
      // pending commands do not pile up: the heap while paused stays within a few MB of before
      expect.soft(Math.max(...heapSamples) - heapBefore).toBeLessThan(8);
      // the second half of the pause grows no more than the first: no growth with the outage's length
      expect.soft(heapSamples[4] - heapSamples[1]).toBeLessThan(3);
    },
    40_000,
  );
});
