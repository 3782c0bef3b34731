import type { ChildProcess } from 'node:child_process';
import { floodedKeys, runManyKeysSeeds } from '../sim/many-keys.js';
import { runSeeds } from '../sim/run.js';
import type { KeyCostMetrics, RunMetrics, RunParams } from '../sim/types.js';
import { nextMessage, ProcessSet } from './children.js';
import { FaultProxy, type FaultProxyStats } from './fault-proxy.js';
import type {
  ChildReady,
  GatewayConfig,
  GatewayReport,
  LatencySummary,
  LoadConfig,
  LoadReport,
  UpstreamReport,
} from './protocol.js';
import { type IdleExpiry, type RedisKeyFigures, RedisProbe, type RedisSnapshot } from './redis-probe.js';
import { type RedisServer, startRedisServer } from './redis-server.js';
import {
  arrivalRate,
  DEFAULT_EXPIRY_MARGIN_MS,
  expectedRequests,
  type FleetSettings,
  floodOnset,
  loadOverKeys,
  maxGateways,
  onsetAtMs,
} from './settings.js';
import { summarize, windowFigures } from './stats.js';

/** What the live fleet measured. The first four keys are the simulator's, with its definitions. */
export interface LiveFigures {
  admittedPerWindow: number;
  worstWindow: number;
  rejectedPct: number;
  roundTripsPerRequest: number;
  /** onset traffic: the most admitted in a W-long span ending within W of the flood's onset, × L (the simulator's onsetWorst); 0 otherwise */
  onsetWorst: number;
  /** roundTripsPerRequest without the asks made while another ask for the key was waiting */
  roundTripsPerRequestSingleFlight: number;
  /** requests sent through the gateways */
  requests: number;
  /** reached the upstream within [0, duration) */
  admitted: number;
  windowsOverLimit: number;
  /**
   * The same log placed at the instants requests reached the upstream rather than when their gateway
   * admitted them: the forwarding delay's jitter moves admits across window edges.
   */
  byArrival: {
    admittedPerWindow: number;
    worstWindow: number;
    onsetWorst: number;
    windowsOverLimit: number;
    overLimitByMs: number;
  };
  /** how far the tightest span of L + 1 admits falls short of W, ms (see stats.ts) */
  overLimitByMs: number;
  /** upstream arrival − gateway admission, ms */
  forwardDelay: LatencySummary;
  /** every request the upstream logged from a gateway, and what the gateways say they admitted */
  upstreamLogged: number;
  gatewaysAdmitted: number;
  /** admitted requests a gateway could not forward to the upstream */
  forwardErrors: number;
  arrivals: {
    /** load × L per W */
    nominalPerS: number;
    /** the seeded Poisson arrivals in [0, duration): what the load process had to send */
    scheduledPerS: number;
    /** sent through the gateways per second */
    achievedPerS: number;
    scheduled: number;
    /** arrivals not sent because maxInFlight requests were already waiting */
    skipped: number;
    failed: number;
    /** sent no later than lateAfterMs after the scheduled instant, % of scheduled */
    onTimePct: number;
    lateAfterMs: number;
    /** how late sends left against their scheduled instants, ms */
    lag: LatencySummary;
    /** connections the load process opened to the gateways */
    connections: number;
  };
  /** CPU the run's processes used, in cores (CPU seconds per second of the run's duration) */
  cpu: { load: number; gateways: number; upstream: number };
  /** leases-ask: requests that waited on their gateway's ask in flight for the key instead of asking */
  coalescedAsks: number;
  /** the gateways' store-clock offsets at the end: the largest possible error (half the best round trip), ms */
  clockErrorMs: number;
  /** response times in ms, seen by the load process */
  latency: {
    viaGateway: LatencySummary;
    admittedViaGateway: LatencySummary;
    limitedViaGateway: LatencySummary;
    direct: LatencySummary;
    /**
     * median admitted via a gateway minus median straight to the upstream. Only the median: a
     * difference of two p99s is no percentile of anything and can fall below the p50's.
     */
    addedByGateway: { p50: number };
  };
  sync: {
    /** round trip of the answered syncs, ms */
    latency: LatencySummary;
    syncs: number;
    timeouts: number;
    /** the store was not reachable (see FailureCause) */
    refusals: number;
    errors: number;
    /** request-path store calls that failed or timed out */
    storeCallFailures: number;
    degradedDecisions: number;
  };
  inject: FaultProxyStats | null;
  /** many keys only (settings.keys) */
  keys?: ManyKeysLive;
}

/** What many keys cost, live; each has a simulator counterpart in sim (KeyCostMetrics). */
export interface ManyKeysLive {
  /** keys carried by the gateways' syncs per second, from one window into the run on (sim: syncKeysPerSec) */
  keySyncsPerSec: number;
  /** keys a gateway held at the end of the load, mean over gateways (sim: keysPerGateway) */
  heldKeysPerGateway: number;
  /** V8 heap growth from the start of the run to the end of the load per held key, bytes (sim: bytesPerGateway / keysPerGateway, a model) */
  heapBytesPerHeldKey: number;
  /** Redis's CPU, MEMORY USAGE and used_memory over the run (sim: storeKeys for the key count) */
  redis: RedisKeyFigures;
  /** rejected honest requests on keys no flood hits, % of those answered (sim: unfloodedRejectedPct) */
  unfloodedRejectedPct: number;
  /** keys flooded (settings.keys.flood; 0: none), and the flood's requests rejected, % of those answered */
  floodedKeys: number;
  floodRejectedPct: number;
  /**
   * After the load: how long the idle keys took to leave Redis, against the bound W + 2 × margin from
   * the last admit (a key expires `margin` after the last instant anything in it counts, up to one
   * margin later on Redis's clock; times are ms after the last admit, or after the end of the load's
   * schedule if that is later). Grants (lease designs) can hold a key up to their lapse longer.
   */
  idle: IdleExpiry & { marginMs: number; boundMs: number };
}

export type SimFigures = RunMetrics &
  Partial<KeyCostMetrics> & { seeds: number; perSeed: Record<keyof RunMetrics, number[]> };

export interface FleetResult {
  settings: FleetSettings & { arrivalRatePerS: number; simMinutes: number };
  live: LiveFigures;
  sim: SimFigures;
}

export interface RunOptions {
  /** progress lines (stderr in the CLI) */
  log?: (line: string) => void;
  /** aborts the run (SIGINT): every child is still ended by PID before the promise rejects */
  signal?: AbortSignal;
}

// generous: on a busy machine starting a Node process with ioredis takes seconds
const READY_MS = 60_000;
/** A send more than this late against its scheduled instant is not on time, ms. */
export const LATE_AFTER_MS = 10;
/** After the load's duration, how long it waits for answers still in flight, ms. */
const DRAIN_MS = 3000;
const WARMUP_MS = 1000;
/**
 * When the keys went idle (wall-clock ms): the last admit a gateway stamped on a logged request, or
 * the end of the load's schedule if that is later (sends that ran late admit after the schedule's end).
 */
function lastAdmit(endOfSchedule: number, up: UpstreamReport): number {
  let last = endOfSchedule;
  for (const t of up.admittedAt) if (t > last) last = t;
  return last;
}

/** How long past its bound the idle-key watch waits before it reports keys left, ms. */
const IDLE_SLACK_MS = 10_000;

/** The load's many-keys settings: the flooded keys named as the simulator picks them (floodedKeys). */
function loadKeys(s: FleetSettings): NonNullable<LoadConfig['keys']> {
  const k = s.keys!;
  if (k.flood === undefined || k.flood.keys === 0) return { count: k.count, popularity: k.popularity };
  return {
    count: k.count,
    popularity: k.popularity,
    flooded: floodedKeys(k.count, k.flood.keys, k.flood.pick, s.seed),
    floodLoad: k.flood.load,
  };
}

/** Starts the fleet, drives it, measures it, ends every process it started, and runs the simulator. */
export async function runFleet(settings: FleetSettings, opts: RunOptions = {}): Promise<FleetResult> {
  const log = opts.log ?? (() => {});
  const procs = new ProcessSet();
  let redis: RedisServer | null = null;
  let proxy: FaultProxy | null = null;
  let probe: RedisProbe | null = null;
  const abort = abortPromise(opts.signal);
  const step = <T>(p: Promise<T>): Promise<T> => Promise.race([p, abort.promise]);
  let scaleTimers: ReturnType<typeof setTimeout>[] = [];
  try {
    let redisUrl = settings.redisUrl;
    if (redisUrl === null) {
      redis = await step(startRedisServer());
      if (redis.process !== null) procs.adopt(redis.process, 'redis-server');
      redisUrl = redis.url;
      log(`redis-server pid ${redis.pid} on ${redis.url}`);
    }
    proxy = await step(startProxy(settings, redisUrl));
    const gatewayRedisUrl = proxy === null ? redisUrl : proxy.url;

    const upstream = procs.fork('upstream-process', 'upstream', {});
    const upstreamPort = (await step(nextMessage<ChildReady>(upstream, 'ready', 'the upstream', READY_MS)))
      .port!;

    const run = `${process.pid}-${Date.now().toString(36)}`;
    const gateways: ChildProcess[] = [];
    // with settings.scale, processes beyond the first `gateways` stay idle until they join
    for (let i = 0; i < maxGateways(settings); i++) {
      const cfg: GatewayConfig = {
        id: `gw-${i}`,
        design: settings.design,
        limit: settings.limit,
        windowMs: settings.windowMs,
        gateways: settings.autoGateways === true ? 'auto' : settings.gateways,
        idle: i >= settings.gateways,
        syncMs: settings.syncMs,
        storeTimeoutMs: settings.storeTimeoutMs,
        redisUrl: gatewayRedisUrl,
        prefix: `fl:fleet:${run}:`,
        key: 'k',
        upstreamPort,
        ...(settings.keys !== undefined ? { keyCount: settings.keys.count } : {}),
        ...(settings.expiryMarginMs !== undefined ? { expiryMarginMs: settings.expiryMarginMs } : {}),
        ...(settings.reads !== undefined ? { reads: settings.reads } : {}),
      };
      // many keys: a full GC before each heap reading, so heap per held key is not the collector's timing
      const flags = settings.keys !== undefined ? ['--expose-gc'] : [];
      gateways.push(procs.fork('gateway-process', `gateway ${cfg.id}`, cfg, flags));
    }
    const ports = await step(
      Promise.all(gateways.map((g, i) => nextMessage<ChildReady>(g, 'ready', `gateway gw-${i}`, READY_MS))),
    );
    log(
      `${gateways.length} gateways on ports ${ports.map((p) => p.port).join(', ')}; upstream on ${upstreamPort}`,
    );

    const rate = arrivalRate(settings);
    const expected = expectedRequests(settings);
    const onset = floodOnset(settings);
    const loadCfg: LoadConfig = {
      traffic: settings.traffic,
      load: loadOverKeys(settings),
      limit: settings.limit,
      windowMs: settings.windowMs,
      routing: settings.routing,
      durationMs: settings.durationMs,
      seed: settings.seed,
      ...(settings.keys !== undefined ? { keys: loadKeys(settings) } : {}),
      ...(onset !== undefined ? { onset } : {}),
      gatewayPorts: ports.map((p) => p.port!),
      upstreamPort,
      directRate: 20,
      // 4 standard deviations above the Poisson mean: the count bound never cuts a run short by chance
      maxRequests: Math.ceil(expected + 4 * Math.sqrt(expected) + 100),
      maxInFlight: 2000,
      drainMs: DRAIN_MS,
      lateAfterMs: LATE_AFTER_MS,
      warmupMs: settings.warmupMs ?? WARMUP_MS,
    };
    if ((settings.scale ?? []).length > 0) {
      loadCfg.live = [
        { atMs: 0, count: settings.gateways },
        ...settings.scale!.map((x) => ({ atMs: x.atMs, count: x.gateways })),
      ];
    }
    const load = procs.fork('load-process', 'load', loadCfg);
    await step(nextMessage<ChildReady>(load, 'ready', 'the load process', READY_MS));
    log(
      `load: ${settings.traffic === 'onset' ? 'an honest client' : settings.traffic} at ${settings.load}× (${Math.round(rate).toLocaleString('en-US')} req/s) for ${settings.durationMs / 1000} s` +
        (onset === undefined
          ? ''
          : `, a ${onset.load}× flood (${onset.pick ? 'to one gateway' : 'spread'}) from ${onset.atMs / 1000} s`),
    );
    if (loadCfg.warmupMs > 0) {
      log(`warm-up: ${loadCfg.warmupMs / 1000} s of the same traffic on a key of its own`);
      const warm = nextMessage<{ type: 'warm' }>(
        load,
        'warm',
        'the load process',
        loadCfg.warmupMs + DRAIN_MS + 15_000,
      );
      load.send({ type: 'warmup' });
      await step(warm);
    }
    // every gateway counts from here: the warm-up's decisions, store calls and syncs are not the run's
    await step(
      Promise.all(
        gateways.map((g, i) => {
          const marked = nextMessage<{ type: 'marked' }>(g, 'marked', `gateway gw-${i}`, 10_000);
          g.send({ type: 'mark' });
          return marked;
        }),
      ),
    );
    const loadDone = nextMessage<LoadReport>(
      load,
      'report',
      'the load process',
      settings.durationMs + loadCfg.drainMs + 15_000,
    );
    let before: RedisSnapshot | null = null;
    if (settings.keys !== undefined) {
      probe = new RedisProbe(redisUrl);
      before = await step(probe.snapshot());
    }
    load.send({ type: 'go' });
    for (const f of settings.inject) if (f.kind === 'down') proxy!.scheduleDown(f.atMs, f.forMs);
    scaleTimers = scheduleScale(settings, gateways, log);
    const loadReport = await step(loadDone);
    let redisKeys: RedisKeyFigures | null = null;
    if (probe !== null && before !== null) {
      const after = await step(probe.snapshot());
      redisKeys = await step(probe.keyFigures(`fl:fleet:${run}:`, before, after));
      log(`redis: ${redisKeys.userKeys.toLocaleString('en-US')} keys held at the end of the load`);
    }

    // stop() in each gateway makes its last sync; the upstream log is complete once the load had its answers
    const gwReports = await step(
      Promise.all(
        gateways.map((g, i) => {
          const r = nextMessage<GatewayReport>(g, 'report', `gateway gw-${i}`, 10_000);
          g.send({ type: 'report' });
          return r;
        }),
      ),
    );
    const upDone = nextMessage<UpstreamReport>(upstream, 'report', 'the upstream', 10_000);
    upstream.send({ type: 'report' });
    const upReport = await step(upDone);
    let idle: ManyKeysLive['idle'] | null = null;
    if (probe !== null) {
      // the gateways have stopped (their last syncs are in): the keys are idle from the end of the load on
      const marginMs = settings.expiryMarginMs ?? DEFAULT_EXPIRY_MARGIN_MS;
      const boundMs = settings.windowMs + 2 * marginMs;
      const end = lastAdmit(loadReport.startedAt + settings.durationMs, upReport);
      log(
        `idle keys: waiting for them to leave Redis (bound: W + 2 × margin = ${boundMs / 1000} s after the last admit)`,
      );
      const watched = await step(probe.idleExpiry(`fl:fleet:${run}:`, end, end + boundMs + IDLE_SLACK_MS));
      idle = { ...watched, marginMs, boundMs };
      log(
        watched.goneAtMs === null
          ? `idle keys: ${watched.left} records still in Redis ${((Date.now() - end) / 1000).toFixed(1)} s after the last admit`
          : `idle keys: all gone ${(watched.goneAtMs / 1000).toFixed(2)} s after the last admit`,
      );
    }
    if (process.env.FLEET_DUMP) {
      const { writeFileSync } = await import('node:fs');
      writeFileSync(process.env.FLEET_DUMP, JSON.stringify({ load: loadReport, up: upReport }));
    }
    const live = liveFigures(settings, loadReport, gwReports, upReport, proxy?.stats() ?? null);
    if (redisKeys !== null && idle !== null)
      live.keys = manyKeysLive(settings, loadReport, gwReports, redisKeys, idle);
    for (const p of [upstream, load, ...gateways]) if (p.connected) p.send({ type: 'stop' });
    await procs.stopAll();
    log('fleet stopped; running the simulator');
    const simMinutes = settings.durationMs / 60_000;
    const sim = simulate(settings, simMinutes);
    return { settings: { ...settings, arrivalRatePerS: rate, simMinutes }, live, sim };
  } finally {
    for (const t of scaleTimers) clearTimeout(t);
    abort.dispose();
    probe?.close();
    await procs.stopAll();
    if (proxy !== null) await proxy.close();
    if (redis !== null) await redis.stop();
  }
}

/**
 * settings.scale: at each step's instant (from the load's start), the gateways above the new count
 * leave (stop(): their last sync, out of the live count at once) and those below it join.
 */
function scheduleScale(
  settings: FleetSettings,
  gateways: ChildProcess[],
  log: (line: string) => void,
): ReturnType<typeof setTimeout>[] {
  let live = settings.gateways;
  return (settings.scale ?? []).map((x) =>
    setTimeout(() => {
      for (let i = live; i < x.gateways; i++) gateways[i].send({ type: 'join' });
      for (let i = x.gateways; i < live; i++) gateways[i].send({ type: 'leave' });
      log(`scale: ${live} → ${x.gateways} gateways at ${x.atMs / 1000} s`);
      live = x.gateways;
    }, x.atMs),
  );
}

async function startProxy(s: FleetSettings, redisUrl: string): Promise<FaultProxy | null> {
  if (s.inject.length === 0) return null;
  const u = new URL(redisUrl);
  let latency = 0;
  let loss: { fraction: number; holdMs: number } | undefined;
  for (const f of s.inject) {
    if (f.kind === 'latency') latency += f.ms;
    else if (f.kind === 'loss') loss = { fraction: f.fraction, holdMs: f.holdMs };
  }
  return FaultProxy.start({
    targetHost: u.hostname,
    targetPort: Number(u.port || 6379),
    latencyUpMs: latency / 2,
    latencyDownMs: latency / 2,
    loss,
  });
}

export function simParamsOf(s: FleetSettings, minutes: number): Omit<RunParams, 'seed'> {
  return {
    design: s.design,
    gateways: s.gateways,
    syncS: s.syncMs / 1000,
    limit: s.limit,
    windowS: s.windowMs / 1000,
    windowKind: 'sliding',
    alignedSyncs: false,
    traffic: s.traffic,
    load: s.load,
    routing: s.routing,
    minutes,
    ...(s.traffic === 'onset' ? { floodLoad: s.floodLoad ?? 100 } : {}),
    ...(s.attack !== undefined ? { attack: s.attack } : {}),
    // the simulator's gateways read as the live ones do
    ...(s.reads !== undefined ? { reads: s.reads } : {}),
  };
}

function simulate(s: FleetSettings, minutes: number): SimFigures {
  const seeds = Array.from({ length: s.simSeeds }, (_, i) => i + 1);
  if (s.keys !== undefined) {
    // the simulator's many-keys mode on the same settings, the same keys flooded (or none)
    const f = s.keys.flood;
    const params = {
      ...simParamsOf(s, minutes),
      keys: s.keys.count,
      popularity: s.keys.popularity,
      floodKeys: f?.keys ?? 0,
      ...(f !== undefined ? { floodLoad: f.load, floodPick: f.pick } : {}),
    };
    const r = runManyKeysSeeds(params, seeds);
    return { ...r.mean, seeds: seeds.length, perSeed: r.perSeed };
  }
  const r = runSeeds(simParamsOf(s, minutes), seeds);
  return { ...r.mean, seeds: seeds.length, perSeed: r.perSeed };
}

function manyKeysLive(
  s: FleetSettings,
  load: LoadReport,
  gws: GatewayReport[],
  redis: RedisKeyFigures,
  idle: ManyKeysLive['idle'],
): ManyKeysLive {
  const sum = (f: (g: GatewayReport) => number) => gws.reduce((a, g) => a + f(g), 0);
  const steadyS = sum((g) => g.steadyMs) / gws.length / 1000;
  const held = sum((g) => g.heldKeys);
  const pct = (x: { answered: number; limited: number } | undefined) =>
    x === undefined || x.answered === 0 ? 0 : (100 * x.limited) / x.answered;
  return {
    keySyncsPerSec: steadyS > 0 ? sum((g) => g.steadyKeySyncs) / steadyS : 0,
    heldKeysPerGateway: held / gws.length,
    heapBytesPerHeldKey: held > 0 ? sum((g) => g.heapAtEnd - g.heapAtMark) / held : 0,
    redis,
    unfloodedRejectedPct: pct(load.calm),
    floodedKeys: s.keys?.flood?.keys ?? 0,
    floodRejectedPct: pct(load.flood),
    idle,
  };
}

export function liveFigures(
  s: FleetSettings,
  load: LoadReport,
  gws: GatewayReport[],
  up: UpstreamReport,
  inject: FaultProxyStats | null,
): LiveFigures {
  const arrived = up.times.map((t) => t - load.startedAt);
  // a request without the gateway's stamp (never expected) counts at its arrival
  const admittedAt = up.admittedAt.map((t, i) => (Number.isFinite(t) ? t - load.startedAt : arrived[i]));
  const onsetAt = onsetAtMs(s);
  const w = windowFigures(admittedAt, s.windowMs, s.limit, s.durationMs, onsetAt);
  const a = windowFigures(arrived, s.windowMs, s.limit, s.durationMs, onsetAt);
  const sum = (f: (g: GatewayReport) => number) => gws.reduce((a, g) => a + f(g), 0);
  const gwRequests = sum((g) => g.requests);
  const syncLat = summarize(gws.flatMap((g) => g.syncLatencies));
  const l = load;
  return {
    admittedPerWindow: w.admittedPerWindow,
    worstWindow: w.worstWindow,
    onsetWorst: w.onsetWorst,
    rejectedPct: l.sent > 0 ? (100 * (l.sent - up.times.length)) / l.sent : 0,
    roundTripsPerRequest: gwRequests > 0 ? sum((g) => g.storeCalls) / gwRequests : 0,
    roundTripsPerRequestSingleFlight:
      gwRequests > 0 ? sum((g) => g.storeCalls - g.overlappingAsks) / gwRequests : 0,
    requests: l.sent,
    admitted: w.admitted,
    windowsOverLimit: w.windowsOverLimit,
    byArrival: {
      admittedPerWindow: a.admittedPerWindow,
      worstWindow: a.worstWindow,
      onsetWorst: a.onsetWorst,
      windowsOverLimit: a.windowsOverLimit,
      overLimitByMs: a.overLimitByMs,
    },
    overLimitByMs: w.overLimitByMs,
    forwardDelay: summarize(arrived.map((t, i) => t - admittedAt[i])),
    upstreamLogged: up.times.length,
    gatewaysAdmitted: sum((g) => g.allowed + g.degradedAllowed),
    forwardErrors: sum((g) => g.forwardErrors),
    arrivals: {
      nominalPerS: expectedRequests(s) / (s.durationMs / 1000),
      scheduledPerS: l.scheduled / (s.durationMs / 1000),
      achievedPerS: l.sent / (s.durationMs / 1000),
      scheduled: l.scheduled,
      skipped: l.skipped,
      failed: l.failed,
      onTimePct: l.scheduled > 0 ? (100 * (l.sent - l.lateSends)) / l.scheduled : 100,
      lateAfterMs: LATE_AFTER_MS,
      lag: l.lag,
      connections: l.connections,
    },
    cpu: {
      // per second of load: the load's CPU from go to its report (the drain adds little), the others' from ready
      load: l.cpuMs / s.durationMs,
      gateways: sum((g) => g.cpuMs) / s.durationMs,
      upstream: up.cpuMs / s.durationMs,
    },
    coalescedAsks: sum((g) => g.coalescedAsks),
    clockErrorMs: Math.max(0, ...gws.map((g) => (Number.isFinite(g.offsetErrorMs) ? g.offsetErrorMs : 0))),
    latency: {
      viaGateway: l.viaGateway,
      admittedViaGateway: l.admittedViaGateway,
      limitedViaGateway: l.limitedViaGateway,
      direct: l.direct,
      addedByGateway: {
        p50: l.admittedViaGateway.p50 - l.direct.p50,
      },
    },
    sync: {
      latency: syncLat,
      syncs: sum((g) => g.syncs),
      timeouts: sum((g) => g.syncTimeouts),
      refusals: sum((g) => g.syncRefusals),
      errors: sum((g) => g.syncErrors),
      storeCallFailures: sum((g) => g.storeCallFailures),
      degradedDecisions: sum((g) => g.degradedAllowed + g.degradedLimited),
    },
    inject,
  };
}

function abortPromise(signal: AbortSignal | undefined): { promise: Promise<never>; dispose: () => void } {
  if (signal === undefined) return { promise: new Promise<never>(() => {}), dispose: () => {} };
  let onAbort = () => {};
  const promise = new Promise<never>((_, reject) => {
    onAbort = () => reject(new Error('interrupted'));
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  // a rejection nobody awaits (the run finished first) must not crash the process
  promise.catch(() => {});
  return { promise, dispose: () => signal.removeEventListener('abort', onAbort) };
}
