/**
 * Soak (issue 6, item 10): K gateway processes on a real redis-server, mixed honest and flood traffic
 * from a load process, Redis restarted (SIGKILL, nothing kept) every few minutes. Each gateway is
 * its own process (the runtime + node:http + the middleware) and measures its own event loop
 * (monitorEventLoopDelay) and heap; an idle sibling process measures the same on a loop that runs
 * nothing, so that a stall caused by the machine (other work, the scheduler) is told apart from one
 * caused by our code. Checks: heap flat, no event-loop stall over 50 ms, no failed request, no
 * decision slower than the store timeout, nothing lost (every admit pushed, and the store's count
 * per key equal to the admits of the last window). Writes its figures to a JSON file; exits 1 if a
 * check failed.
 *
 *   npm run soak                                                 # the issue's setting: 4 gateways, 20 min, restart every 5 min
 *   npm run soak -- --minutes 2 --restart-every 1 --out /tmp/s.json
 *   npm run soak -- --minutes 3 --restart-every 1 --cpu-prof /tmp/prof   # a .cpuprofile per gateway
 *
 * Flags: --minutes M (20), --restart-every M (5), --gateways K (4), --design D (shared-counter),
 * --out FILE (soak-results.json), --cpu-prof DIR, --seed N (1), --honest-keys N (300; each at half
 * the limit, so more keys are more requests per second).
 */

import type { ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { DesignId } from '../src/config.js';
import { nextMessage, ProcessSet } from '../src/fleet/children.js';
import { type RedisServer, startRedisServer } from '../src/fleet/redis-server.js';
import { RedisStore } from '../src/store/redis/index.js';
import { gatewayClient, ready } from '../test/support/fault-fleet.js';
import { BoxCpu } from './soak/box.js';
import type { LoopSummary, Stall } from './soak/monitor.js';
import type {
  GatewayConfig,
  GatewayReport,
  IdleReport,
  LoadConfig,
  LoadReport,
  ReadyMessage,
  SampleMessage,
} from './soak/protocol.js';

const { values } = parseArgs({
  options: {
    minutes: { type: 'string', default: '20' },
    'restart-every': { type: 'string', default: '5' },
    gateways: { type: 'string', default: '4' },
    design: { type: 'string', default: 'shared-counter' },
    out: { type: 'string', default: 'soak-results.json' },
    'cpu-prof': { type: 'string' },
    seed: { type: 'string', default: '1' },
    'honest-keys': { type: 'string', default: '300' },
  },
});
const minutes = Number(values.minutes);
const restartEvery = Number(values['restart-every']);
const K = Number(values.gateways);
if (!(minutes > 0) || !(restartEvery > 0))
  throw new Error('--minutes and --restart-every must be positive numbers');
if (!(Number.isInteger(K) && K >= 1 && K <= 16))
  throw new Error('--gateways must be a whole number from 1 to 16');
const design = values.design as DesignId;

const L = 100;
const W = 30_000;
const SYNC = 250;
const TIMEOUT = 200;
const HONEST_KEYS = Number(values['honest-keys']);
const HONEST_RATE = (0.5 * L) / (W / 1000); // per key, half the limit
const FLOOD_KEYS = 5;
const FLOOD_RATE = (30 * L) / (W / 1000); // per key, 30× the limit
const STALL_MS = 50;
const SAMPLE_S = 10;
/** A heap sample (forced GC) every third sample: every 30 s. */
const HEAP_EVERY = 3;
/** Time a decision may take past the store timeout before it counts as waiting too long: scheduling. */
const SLACK_MS = 250;
const PREFIX = 'soak:';
/** The fleet's settings, as every gateway runs them and as the figures file reports them. */
const FLEET = { design, gateways: K, limit: L, windowMs: W, syncMs: SYNC, storeTimeoutMs: TIMEOUT };

const here = (f: string) => fileURLToPath(new URL(f, import.meta.url));

async function main(): Promise<void> {
  const procs = new ProcessSet();
  let server: RedisServer | null = null;
  const stopAll = async () => {
    await procs.stopAll();
    await server?.stop();
  };
  process.once('SIGINT', () => {
    void stopAll().then(() => process.exit(130));
  });
  try {
    server = await startRedisServer();
    await soak(server, procs);
  } finally {
    await stopAll();
  }
}

async function soak(server: RedisServer, procs: ProcessSet): Promise<void> {
  const profDir = values['cpu-prof'] === undefined ? null : resolve(values['cpu-prof']);
  if (profDir !== null) mkdirSync(profDir, { recursive: true });
  const nodeFlags = ['--expose-gc'];
  const gwFlags = profDir === null ? nodeFlags : [...nodeFlags, '--cpu-prof', `--cpu-prof-dir=${profDir}`];
  const started = async (p: ChildProcess, what: string) =>
    nextMessage<ReadyMessage>(p, 'ready', what, 60_000);

  const idle = procs.forkFile(
    here('./soak/idle.ts'),
    'idle',
    { sampleS: SAMPLE_S, heapEvery: HEAP_EVERY, phaseMs: heapPhaseMs(K) },
    nodeFlags,
  );
  const gws: ChildProcess[] = [];
  for (let i = 0; i < K; i++) {
    const cfg: GatewayConfig = {
      id: `soak-gw-${i}`,
      ...FLEET,
      redisUrl: server.url,
      prefix: PREFIX,
      sampleS: SAMPLE_S,
      heapEvery: HEAP_EVERY,
      phaseMs: heapPhaseMs(i),
    };
    gws.push(procs.forkFile(here('./soak/gateway.ts'), cfg.id, cfg, gwFlags));
  }
  const ports = (await Promise.all(gws.map((g, i) => started(g, `gateway ${i}`)))).map((m) => m.port!);
  await started(idle, 'the idle sibling');
  const loadCfg: LoadConfig = {
    gatewayPorts: ports,
    honestKeys: HONEST_KEYS,
    honestRate: HONEST_RATE,
    floodKeys: FLOOD_KEYS,
    floodRate: FLOOD_RATE,
    durationMs: minutes * 60_000,
    seed: Number(values.seed),
    sampleS: SAMPLE_S,
    maxInFlight: 2000,
  };
  const load = procs.forkFile(here('./soak/load.ts'), 'load', loadCfg, nodeFlags);
  await started(load, 'the load process');

  const latest = new Map<string, SampleMessage>();
  const heapSeen: Record<string, number> = {};
  for (const p of [...gws, idle, load]) {
    p.on('message', (m: unknown) => {
      const s = m as SampleMessage;
      if (s.type === 'sample') {
        latest.set(s.from, s);
        if (s.sample.heapMB !== null) heapSeen[s.from] = s.sample.heapMB;
      }
    });
  }
  console.log(
    `soak: ${K} gateway processes × ${design}, L=${L} per ${W / 1000} s, Δ=${SYNC} ms, timeout ${TIMEOUT} ms; ` +
      `${HONEST_KEYS} honest keys at ${HONEST_RATE.toFixed(2)}/s, ${FLOOD_KEYS} flood keys at ${FLOOD_RATE}/s ` +
      `(${Math.round(HONEST_KEYS * HONEST_RATE + FLOOD_KEYS * FLOOD_RATE)} req/s); ${minutes} min, Redis restarted every ${restartEvery} min; ` +
      `pids: redis ${server.pid}, gateways ${gws.map((g) => g.pid).join(' ')}, idle ${idle.pid}, load ${load.pid}; load average ${loadavg()[0].toFixed(2)} on ${cpus().length} cores`,
  );

  const loadAvg: { atMin: number; load1: number }[] = [];
  const box = new BoxCpu().start();
  const restarts: { atMin: number; at: number; tookMs: number }[] = [];
  const start = Date.now();
  const end = start + minutes * 60_000;
  const loadDone = nextMessage<LoadReport>(load, 'report', 'the load process', minutes * 60_000 + 60_000);
  load.send({ type: 'start' });
  let nextRestart = start + restartEvery * 60_000;
  let nextPrint = start + SAMPLE_S * 1000 + 500;
  let finished = false;
  void loadDone.then(
    () => {
      finished = true;
    },
    () => {
      finished = true;
    },
  );
  while (!finished) {
    const now = Date.now();
    // no restart within the last window + a margin: the count check at the end reads that window
    if (now >= nextRestart && nextRestart < end - W - 10_000) {
      nextRestart += restartEvery * 60_000;
      const t = Date.now();
      await server.restart();
      restarts.push({ atMin: (t - start) / 60_000, at: t, tookMs: Date.now() - t });
      console.log(`restarted Redis at ${((t - start) / 60_000).toFixed(2)} min in ${Date.now() - t} ms`);
    }
    if (now >= nextPrint) {
      nextPrint += SAMPLE_S * 1000;
      const atMin = (now - start) / 60_000;
      const load1 = loadavg()[0];
      loadAvg.push({ atMin, load1 });
      const gwS = [...latest.entries()].filter(([k]) => k.startsWith('soak-gw-')).map(([, v]) => v);
      const l = latest.get('load')?.counters ?? {};
      const worst = Math.max(0, ...gwS.map((s) => s.sample.eldMaxMs));
      const heaps = gwS.map((s) => heapSeen[s.from]?.toFixed(1) ?? '-').join('/');
      console.log(
        `${atMin.toFixed(1)} min: ${l.requests ?? 0} requests, ${l.ok ?? 0} ok, ${l.limited ?? 0} limited, ${l.failed ?? 0} failed; ` +
          `gateways: event-loop max ${worst.toFixed(0)} ms, cpu ${gwS.map((s) => s.sample.cpuPct.toFixed(0)).join('/')} %, heap ${heaps} MB; ` +
          `idle sibling max ${(latest.get('idle')?.sample.eldMaxMs ?? 0).toFixed(0)} ms; load ${load1.toFixed(2)}`,
      );
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  const loadReport = await loadDone;

  const gwReports = await Promise.all(
    gws.map((g, i) => {
      const r = nextMessage<GatewayReport>(g, 'report', `gateway ${i}`, 30_000);
      g.send({ type: 'report' });
      return r;
    }),
  );
  const idleP = nextMessage<IdleReport>(idle, 'report', 'the idle sibling', 10_000);
  idle.send({ type: 'report' });
  const idleReport = await idleP;

  // nothing lost: the store's count per key at its own now S equals the admits stamped after S − W
  const reader = await ready(gatewayClient(server.url, 2000));
  const keys = [
    ...Array.from({ length: HONEST_KEYS }, (_, i) => `user:${i}`),
    ...Array.from({ length: FLOOD_KEYS }, (_, i) => `flood:${i}`),
  ];
  const read = await new RedisStore(reader, { prefix: PREFIX }).sync(
    {
      gatewayId: 'soak-reader',
      seq: 1,
      policy: { limit: L, windowMs: W, windowKind: 'sliding' },
      leaseTtlMs: 1000,
      horizonMs: 1,
      entries: keys.map((key) => ({ key, admits: [], read: true, release: false, ask: 0 })),
    },
    Date.now(),
  );
  reader.disconnect();
  const S = read.now;
  let mismatchedKeys = 0;
  let countDiff = 0;
  let inLastWindow = 0;
  const examples: { key: string; store: number; admitted: number }[] = [];
  for (let i = 0; i < keys.length; i++) {
    const all = gwReports.flatMap((r) => r.admits[keys[i]] ?? []);
    // a margin of 50 ms either side of S − W: an admit's stamp and its decision can differ by a tick
    const lo = all.filter((t) => t > S - W + 50).length;
    const hi = all.filter((t) => t > S - W - 50).length;
    const c = read.replies[i].count;
    inLastWindow += c;
    if (c < lo || c > hi) {
      mismatchedKeys++;
      countDiff += c < lo ? lo - c : c - hi;
      if (examples.length < 5) examples.push({ key: keys[i], store: c, admitted: lo });
    }
  }
  // each child exits by itself on 'stop' (so --cpu-prof can write its profile); stopAll ends any that hang
  const exits = [...gws, idle, load].map((p) => exitedWithin(p, 15_000));
  for (const p of [...gws, idle, load]) p.send({ type: 'stop' });
  await Promise.all(exits);

  box.stop();
  const results = summarize(gwReports, idleReport, loadReport, {
    box,
    startedAt: start,
    restarts,
    loadAvg,
    inLastWindow,
    mismatchedKeys,
    countDiff,
    examples,
    profDir,
  });
  writeFileSync(values.out!, `${JSON.stringify(results, null, 2)}\n`);
  const c = results.checks;
  const e = results.eventLoop;
  console.log(
    `soak done: ${loadReport.requests} requests, ${loadReport.failed} failed, ${loadReport.skipped} not sent; honest rejected ${results.honestRejectedPct.toFixed(2)} %; ` +
      `${restarts.length} restarts; slowest decision ${results.slowestDecisionMs.toFixed(0)} ms (server side); ` +
      `heap growth per gateway ${results.heap.map((h) => h.growthMB.toFixed(1)).join(' / ')} MB\n` +
      `event loop (gateways): p99 ${e.gateways.map((g) => g.p99Ms.toFixed(1)).join(' / ')} ms, max ${e.gateways.map((g) => g.maxMs.toFixed(0)).join(' / ')} ms; ` +
      `${e.stallsOver50ms} stalls over ${STALL_MS} ms, ${e.ownStallsOver50ms} own (over ${STALL_MS} ms less the waits for a CPU), ` +
      `${e.stallsMostlyWaitingForCpu} mostly waiting for a CPU, ${e.stallsWithMainThreadCpuOver50ms} with over ${STALL_MS} ms of main-thread CPU, ` +
      `${e.stallsWithProcessCpuOver50ms} with over ${STALL_MS} ms of process CPU (all threads), ${e.stallsWithIdleSiblingStalled} while the idle sibling stalled too; ` +
      `most own CPU between two ticks ${e.gateways.map((g) => (g.busiestTick?.cpuMs ?? 0).toFixed(0)).join(' / ')} ms; ` +
      `idle sibling p99 ${e.idle.p99Ms.toFixed(1)} ms, max ${e.idle.maxMs.toFixed(0)} ms, ${e.idle.stallsOver50ms} stalls over ${STALL_MS} ms\n` +
      `nothing lost: ${results.unsyncedAdmitsAfterStop} unsynced after stop, store count = admits in the last window for ${keys.length - mismatchedKeys} of ${keys.length} keys (${inLastWindow} admits)\n` +
      `load average ${loadAvg.length > 0 ? `${Math.min(...loadAvg.map((x) => x.load1)).toFixed(2)}–${Math.max(...loadAvg.map((x) => x.load1)).toFixed(2)}` : '?'}` +
      `${results.box === null ? '' : `; box busy ${results.box.busyPct.toFixed(0)} %, steal ${results.box.stealPct.toFixed(2)} % of ${results.box.cpus} CPUs`}\n` +
      `checks: ${JSON.stringify(c)}\nfigures in ${values.out}`,
  );
  if (!Object.values(c).every(Boolean)) process.exitCode = 1;
}

/** The i-th of the K + 1 forcing processes (gateways, then the idle sibling) forces its GC this far into each heap period. */
function heapPhaseMs(i: number): number {
  return Math.round((i * SAMPLE_S * 1000 * HEAP_EVERY) / (K + 1));
}

function exitedWithin(p: ChildProcess, ms: number): Promise<void> {
  if (p.exitCode !== null || p.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    p.once('exit', () => {
      clearTimeout(t);
      resolve();
    });
  });
}

interface Extra {
  /** Epoch ms the load started (restarts and stalls carry epoch ms too). */
  startedAt: number;
  restarts: { atMin: number; at: number; tookMs: number }[];
  loadAvg: { atMin: number; load1: number }[];
  inLastWindow: number;
  mismatchedKeys: number;
  countDiff: number;
  examples: { key: string; store: number; admitted: number }[];
  profDir: string | null;
  box: BoxCpu;
}

/**
 * What the gap would have been had the machine given the process a CPU whenever one of its threads
 * was ready: the gap less the main thread's run-queue wait, and less the time it slept (mostly in a GC
 * pause, waiting for V8's parallel helpers; or on a vCPU the hypervisor took away, which the guest
 * counts as neither running nor waiting) up to the longest run-queue wait of one of its other threads
 * or the box's steal over the gap, whichever is more. At least the main thread's own CPU (a wait can
 * straddle the gap's start by a tick). The whole gap where schedstat is missing.
 */
export function ownMs(s: Stall, stealMs: number | null, idleStalledMs = 0): number {
  if (s.waitMs === null || s.mainCpuMs === null || s.helperWaitMs === null) return s.gapMs;
  const slept = Math.max(0, s.gapMs - s.mainCpuMs - s.waitMs);
  // A pause of the whole VM shows in the guest as neither running nor waiting, and steal does not
  // always report it: while the idle sibling (which runs nothing) was stalled too, the sleep is the
  // machine's, less whatever CPU the process's other threads used then (GC helpers at work are ours).
  const helperCpu = Math.max(0, s.cpuMs - s.mainCpuMs);
  const away = Math.max(s.helperWaitMs, stealMs ?? 0, idleStalledMs - helperCpu);
  return Math.max(s.mainCpuMs, s.gapMs - s.waitMs - Math.min(slept, away));
}

/** Overlap in ms of [a, a + da) with the union of the stalls' spans. */
function overlapMs(a: number, da: number, stalls: Stall[]): number {
  let o = 0;
  for (const s of stalls) {
    const lo = Math.max(a, s.at);
    const hi = Math.min(a + da, s.at + s.gapMs);
    if (hi > lo) o += hi - lo;
  }
  return Math.min(o, da);
}

function loopFigures(l: LoopSummary) {
  return {
    p50Ms: l.eld.p50Ms,
    p99Ms: l.eld.p99Ms,
    maxMs: l.eld.maxMs,
    stallsOver50ms: l.stalls.filter((s) => s.gapMs > STALL_MS).length,
    busiestTick: l.busiestTick,
    cpuSeconds: l.cpuSeconds,
  };
}

function summarize(gw: GatewayReport[], idle: IdleReport, load: LoadReport, x: Extra) {
  const idleStalls = idle.loop.stalls;
  const stalls = gw.flatMap((r) =>
    r.loop.stalls
      .filter((s) => s.gapMs > STALL_MS)
      .map((s) => ({
        gateway: r.id,
        ...s,
        boxStealMs: x.box.stealMs(s.at, s.at + s.gapMs),
        ownMs: ownMs(s, x.box.stealMs(s.at, s.at + s.gapMs), overlapMs(s.at, s.gapMs, idleStalls)),
        idleSiblingStalledMs: overlapMs(s.at, s.gapMs, idleStalls),
        gcMs: r.loop.gcPauses
          .filter((g) => g.at >= s.at - 1 && g.at <= s.at + s.gapMs)
          .reduce((a, g) => a + g.ms, 0),
      })),
  );
  const heap = gw.map((r) => {
    const hs = r.loop.samples.filter((s) => s.heapMB !== null).map((s) => ({ atS: s.atS, mb: s.heapMB! }));
    const q = Math.max(1, Math.floor(hs.length / 4));
    const mean = (xs: { mb: number }[]) => xs.reduce((a, b) => a + b.mb, 0) / Math.max(1, xs.length);
    const early = mean(hs.slice(q, 2 * q));
    const late = mean(hs.slice(-q));
    return {
      gateway: r.id,
      samples: hs,
      secondQuarterMeanMB: early,
      lastQuarterMeanMB: late,
      growthMB: late - early,
    };
  });
  const unsynced = gw.reduce((a, r) => a + r.unsyncedAdmitsAfterStop, 0);
  const slowest = Math.max(...gw.map((r) => r.serverMs.max));
  const eventLoop = {
    note: `monitorEventLoopDelay in each process, resolution 10 ms (an idle loop reads ≈ 10 ms); a stall is a gap over ${STALL_MS} ms between two ticks of a 10 ms timer, with the process's CPU time over the gap (cpuMs, all threads), the main thread's CPU (mainCpuMs) and its wait for a CPU while runnable (waitMs, Linux schedstat), the longest such wait of one of its other threads (helperWaitMs: GC helpers, compilers), ownMs = the gap had every thread got a CPU whenever it was ready (gapMs − waitMs − the main thread's sleep up to helperWaitMs, the steal, or the idle sibling's simultaneous stall less the other threads' CPU; an own stall is one with ownMs over ${STALL_MS} ms), and the part of it during which the idle sibling was stalled too`,
    gateways: gw.map((r) => ({
      gateway: r.id,
      ...loopFigures(r.loop),
      gcPausesOver10ms: r.loop.gcPauses.length,
    })),
    idle: { ...loopFigures(idle.loop), stalls: idle.loop.stalls.filter((s) => s.gapMs > STALL_MS) },
    load: { ...loopFigures(load.loop), stalls: load.loop.stalls.filter((s) => s.gapMs > STALL_MS) },
    stallsOver50ms: stalls.length,
    ownStallsOver50ms: stalls.filter((s) => s.ownMs > STALL_MS).length,
    stallsWithProcessCpuOver50ms: stalls.filter((s) => s.cpuMs > STALL_MS).length,
    stallsWithMainThreadCpuOver50ms: stalls.filter((s) => (s.mainCpuMs ?? s.cpuMs) > STALL_MS).length,
    stallsMostlyWaitingForCpu: stalls.filter((s) => s.waitMs !== null && s.waitMs > s.gapMs / 2).length,
    stallsMostlyDescheduled: stalls.filter((s) => s.cpuMs < s.gapMs / 2).length,
    stallsWithIdleSiblingStalled: stalls.filter((s) => s.idleSiblingStalledMs > 0).length,
    stalls,
  };
  const checks = {
    heapFlat: heap.every((h) => h.growthMB < 5),
    noStallOver50ms: stalls.length === 0,
    noOwnStallOver50ms: eventLoop.ownStallsOver50ms === 0,
    noFailedRequests: load.failed === 0 && load.skipped === 0,
    noWaitPastTimeout: slowest <= TIMEOUT + SLACK_MS,
    nothingLost: unsynced === 0 && x.mismatchedKeys === 0 && gw.every((r) => r.stoppedCleanly),
  };
  return {
    settings: {
      ...FLEET,
      minutes,
      restartEveryMinutes: restartEvery,
      honestKeys: HONEST_KEYS,
      honestRatePerKey: HONEST_RATE,
      floodKeys: FLOOD_KEYS,
      floodRatePerKey: FLOOD_RATE,
      cpus: cpus().length,
      cpuProfiles: x.profDir,
    },
    load: { ...load, loop: undefined },
    honestRejectedPct: (100 * load.honestRejected) / Math.max(1, load.honestRequests),
    gateways: gw.map((r) => ({ ...r, admits: undefined, loop: undefined })),
    slowestDecisionMs: slowest,
    startedAt: x.startedAt,
    restarts: x.restarts,
    box: x.box.summary(),
    loadAverage: x.loadAvg,
    heap,
    eventLoop,
    unsyncedAdmitsAfterStop: unsynced,
    storeCount: {
      keys: HONEST_KEYS + FLOOD_KEYS,
      admitsInLastWindow: x.inLastWindow,
      mismatchedKeys: x.mismatchedKeys,
      admitsOff: x.countDiff,
      examples: x.examples,
    },
    perProcessSamples: {
      ...Object.fromEntries(gw.map((r) => [r.id, r.loop.samples])),
      idle: idle.loop.samples,
      load: load.loop.samples,
    },
    gcPauses: Object.fromEntries(gw.map((r) => [r.id, r.loop.gcPauses])),
    checks,
  };
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 2;
});
