/**
 * Soak: 4 gateways on a real redis-server for 20 minutes of mixed honest and flood traffic, Redis
 * restarted (SIGKILL, nothing kept) every 5 minutes. Checks: heap flat, no event-loop stall over
 * 50 ms, no request failed or waited past the store timeout, every admit pushed (no unsynced admits
 * left, and the store's count per key equals what was admitted in the last window). Writes its
 * figures to soak-results.json and exits 1 if a check failed.
 *
 *   npm run soak                                   # 20 minutes
 *   npm run soak -- --minutes 3 --restart-every 1  # shorter
 *
 * Flags: --minutes M (20), --restart-every M (5), --design D (shared-counter), --out FILE.
 */
import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import type { DesignId } from '../src/config.js';
import { Random } from '../src/sim/random.js';
import { gatewayClient, ready, startFleetReady, storeCount } from '../test/support/fault-fleet.js';
import { startRedisServer } from '../test/support/redis-server.js';

const { values } = parseArgs({
  options: {
    minutes: { type: 'string', default: '20' },
    'restart-every': { type: 'string', default: '5' },
    design: { type: 'string', default: 'shared-counter' },
    out: { type: 'string', default: 'soak-results.json' },
  },
});
const minutes = Number(values.minutes);
const restartEvery = Number(values['restart-every']);
if (!(minutes > 0) || !(restartEvery > 0))
  throw new Error('--minutes and --restart-every must be positive numbers');
const design = values.design as DesignId;

const K = 4;
const L = 100;
const W = 30_000;
const SYNC = 250;
const TIMEOUT = 200;
const HONEST_KEYS = 300;
const HONEST_RATE = (0.5 * L) / (W / 1000); // per key, half the limit
const FLOOD_KEYS = 5;
const FLOOD_RATE = (30 * L) / (W / 1000); // per key, 30× the limit
const STALL_MS = 50;

const gc = (globalThis as { gc?: () => void }).gc;
const heapMB = () => {
  gc?.();
  return process.memoryUsage().heapUsed / 2 ** 20;
};

async function main(): Promise<void> {
  const server = await startRedisServer();
  const fleet = await startFleetReady({
    design,
    k: K,
    limit: L,
    windowMs: W,
    syncMs: SYNC,
    storeTimeoutMs: TIMEOUT,
    prefix: 'soak',
    url: server.url,
  });
  const rng = new Random(1);
  const keys = [
    ...Array.from({ length: HONEST_KEYS }, (_, i) => ({ key: `user:${i}`, rate: HONEST_RATE })),
    ...Array.from({ length: FLOOD_KEYS }, (_, i) => ({ key: `flood:${i}`, rate: FLOOD_RATE })),
  ];
  const total = keys.reduce((s, k) => s + k.rate, 0);
  const cumulative: number[] = [];
  let acc = 0;
  for (const k of keys) cumulative.push((acc += k.rate / total));
  const admitted = new Map<string, number[]>();
  const stats = {
    requests: 0,
    admitted: 0,
    degraded: 0,
    failed: 0,
    slowestMs: 0,
    honestRequests: 0,
    honestRejected: 0,
  };
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  const heap: { atMin: number; mb: number }[] = [];
  /** With the machine's 1-minute load average: a stall on a box loaded past its cores is the scheduler's. */
  const stalls: { atMin: number; ms: number; load1: number }[] = [];
  const restarts: { atMin: number; tookMs: number }[] = [];
  let worstLoopMs = 0;

  const start = Date.now();
  const end = start + minutes * 60_000;
  const maxRequests = Math.ceil(total * minutes * 60 * 1.5);
  let nextRestart = start + restartEvery * 60_000;
  let nextSample = start + 10_000;
  let next = start;
  const pending = new Set<Promise<void>>();
  console.log(
    `soak: ${K} × ${design}, L=${L} per ${W / 1000} s, Δ=${SYNC} ms, ${HONEST_KEYS} honest keys at ${HONEST_RATE.toFixed(2)}/s, ${FLOOD_KEYS} flood keys at ${FLOOD_RATE}/s, ${minutes} min, Redis restarted every ${restartEvery} min`,
  );
  while (Date.now() < end && stats.requests < maxRequests) {
    const now = Date.now();
    while (next <= now && stats.requests < maxRequests) {
      next += rng.exponential(total / 1000);
      const u = rng.uniform();
      let i = 0;
      while (cumulative[i] < u) i++;
      const { key } = keys[i];
      const honest = i < HONEST_KEYS;
      const gw = fleet.gws[Math.floor(rng.uniform() * K)];
      stats.requests++;
      if (honest) stats.honestRequests++;
      const t0 = performance.now();
      const done = (d: { allowed: boolean; degraded?: boolean }) => {
        stats.slowestMs = Math.max(stats.slowestMs, performance.now() - t0);
        if (d.degraded) stats.degraded++;
        if (d.allowed) {
          stats.admitted++;
          let a = admitted.get(key);
          if (a === undefined) admitted.set(key, (a = []));
          a.push(Date.now());
        } else if (honest) stats.honestRejected++;
      };
      try {
        const d = gw.admitNow(key);
        if (d instanceof Promise) {
          const p = d.then(done, () => {
            stats.failed++;
          });
          pending.add(p);
          void p.finally(() => pending.delete(p));
        } else done(d);
      } catch {
        stats.failed++;
      }
    }
    if (now >= nextSample) {
      nextSample += 10_000;
      const atMin = (now - start) / 60_000;
      const maxMs = loop.max / 1e6;
      worstLoopMs = Math.max(worstLoopMs, maxMs);
      if (maxMs > STALL_MS) stalls.push({ atMin, ms: maxMs, load1: loadavg()[0] });
      // the forced GC of the heap sample is the soak's own pause, not the gateways': not counted
      heap.push({ atMin, mb: heapMB() });
      loop.reset();
      // forget admits older than two windows: the check at the end needs only the last one
      for (const [k, a] of admitted) {
        let j = 0;
        while (j < a.length && a[j] < now - 2 * W) j++;
        if (j > 0) admitted.set(k, a.slice(j));
      }
      const last = heap[heap.length - 1];
      console.log(
        `${atMin.toFixed(1)} min: ${stats.requests} requests, ${stats.admitted} admitted, ${stats.degraded} degraded, ${stats.failed} failed, heap ${last.mb.toFixed(1)} MB, event-loop max ${maxMs.toFixed(0)} ms, load ${loadavg()[0].toFixed(1)}`,
      );
    }
    if (now >= nextRestart && nextRestart < end - W) {
      nextRestart += restartEvery * 60_000;
      const t = Date.now();
      await server.restart();
      restarts.push({ atMin: (t - start) / 60_000, tookMs: Date.now() - t });
      console.log(`restarted Redis at ${((t - start) / 60_000).toFixed(1)} min in ${Date.now() - t} ms`);
    }
    await new Promise((r) => setTimeout(r, 2));
  }
  await Promise.all(pending);
  loop.disable();
  // nothing lost: every admit reaches the store, once
  const readAt = Date.now();
  await fleet.stop();
  const unsynced = fleet.gws.reduce((s, g) => s + g.stats().unsyncedAdmits, 0);
  const reader = await ready(gatewayClient(server.url));
  let mismatchedKeys = 0;
  let countDiff = 0;
  const policy = { limit: L, windowMs: W, windowKind: 'sliding' as const };
  for (const { key } of keys) {
    // admits still in the window at the read, on wall time (a margin of 50 ms either side)
    const a = admitted.get(key) ?? [];
    const lo = a.filter((t) => t > Date.now() - W + 50).length;
    const hi = a.filter((t) => t > readAt - W - 50).length;
    const c = await storeCount(reader, 'soak', key, policy);
    if (c < lo || c > hi) {
      mismatchedKeys++;
      countDiff += c < lo ? lo - c : c - hi;
    }
  }
  reader.disconnect();
  fleet.disconnect();
  await server.stop();

  const q = Math.max(1, Math.floor(heap.length / 4));
  const mean = (xs: { mb: number }[]) => xs.reduce((s, x) => s + x.mb, 0) / Math.max(1, xs.length);
  const heapEarly = mean(heap.slice(q, 2 * q));
  const heapLate = mean(heap.slice(-q));
  const results = {
    design,
    gateways: K,
    limit: L,
    windowMs: W,
    syncMs: SYNC,
    storeTimeoutMs: TIMEOUT,
    minutes,
    restartEveryMinutes: restartEvery,
    ...stats,
    honestRejectedPct: (100 * stats.honestRejected) / Math.max(1, stats.honestRequests),
    restarts,
    heapMB: {
      samples: heap,
      secondQuarterMean: heapEarly,
      lastQuarterMean: heapLate,
      growth: heapLate - heapEarly,
    },
    eventLoop: { worstMs: worstLoopMs, stallsOver50ms: stalls },
    cpus: (await import('node:os')).cpus().length,
    unsyncedAdmitsAfterStop: unsynced,
    storeCountMismatches: { keys: mismatchedKeys, admits: countDiff },
  };
  const checks = {
    heapFlat: heapLate - heapEarly < 10,
    noStallOver50ms: stalls.length === 0,
    noFailedRequests: stats.failed === 0,
    noWaitPastTimeout: stats.slowestMs <= TIMEOUT + 250,
    nothingLost: unsynced === 0 && mismatchedKeys === 0,
  };
  writeFileSync(values.out!, `${JSON.stringify({ ...results, checks }, null, 2)}\n`);
  console.log(
    `soak done: ${stats.requests} requests, ${stats.failed} failed, slowest ${stats.slowestMs.toFixed(0)} ms, ` +
      `heap ${heapEarly.toFixed(1)} → ${heapLate.toFixed(1)} MB, worst event-loop delay ${worstLoopMs.toFixed(0)} ms (${stalls.length} stalls > ${STALL_MS} ms), ` +
      `${restarts.length} restarts, unsynced after stop ${unsynced}, store count mismatches ${mismatchedKeys} keys; honest rejected ${results.honestRejectedPct.toFixed(2)} %\n` +
      `checks: ${JSON.stringify(checks)}\nfigures in ${values.out}`,
  );
  if (!Object.values(checks).every(Boolean)) process.exitCode = 1;
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 2;
});
