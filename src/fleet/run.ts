// The live fleet's run: start Redis, the fault proxy, the upstream, the gateways and the load as child
// processes, drive them through warm-up, mark and load, collect their reports, end every process it
// started, and run the simulator on the same settings. The figures are worked out in live-figures.ts.
import type { ChildProcess } from 'node:child_process';
import { floodedKeys } from '../sim/many-keys.js';
import { nextMessage, ProcessSet } from './children.js';
import { FaultProxy } from './fault-proxy.js';
import { type SimFigures, simulateFleet } from './fleet-sim.js';
import {
  LATE_AFTER_MS,
  type LiveFigures,
  liveFigures,
  type ManyKeysLive,
  manyKeysLive,
} from './live-figures.js';
import type {
  ChildReady,
  GatewayConfig,
  GatewayReport,
  LoadConfig,
  LoadReport,
  UpstreamReport,
} from './protocol.js';
import { type RedisKeyFigures, RedisProbe, type RedisSnapshot } from './redis-probe.js';
import { type RedisServer, startRedisServer } from './redis-server.js';
import {
  arrivalRate,
  DEFAULT_EXPIRY_MARGIN_MS,
  expectedRequests,
  type FleetSettings,
  floodOnset,
  loadOverKeys,
  maxGateways,
} from './settings.js';

export type { SimFigures } from './fleet-sim.js';
export type { LiveFigures, ManyKeysLive } from './live-figures.js';

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
      const cfg = gatewayConfig(settings, i, gatewayRedisUrl, run, upstreamPort);
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
    const loadCfg = loadConfig(settings, ports, upstreamPort);
    const load = procs.fork('load-process', 'load', loadCfg);
    await step(nextMessage<ChildReady>(load, 'ready', 'the load process', READY_MS));
    log(loadLine(settings, rate, loadCfg.onset));
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
    await step(askEach<{ type: 'marked' }>(gateways, 'mark', 'marked'));
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
    const gwReports = await step(askEach<GatewayReport>(gateways, 'report', 'report'));
    const upDone = nextMessage<UpstreamReport>(upstream, 'report', 'the upstream', 10_000);
    upstream.send({ type: 'report' });
    const upReport = await step(upDone);
    const idle =
      probe === null ? null : await step(watchIdleKeys(probe, settings, run, loadReport, upReport, log));
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
    const sim = simulateFleet(settings, simMinutes);
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

/** Gateway `i`'s configuration (gw-i; idle until it joins if beyond settings.gateways). */
function gatewayConfig(
  settings: FleetSettings,
  i: number,
  redisUrl: string,
  run: string,
  upstreamPort: number,
): GatewayConfig {
  return {
    id: `gw-${i}`,
    design: settings.design,
    limit: settings.limit,
    windowMs: settings.windowMs,
    gateways: settings.autoGateways === true ? 'auto' : settings.gateways,
    idle: i >= settings.gateways,
    syncMs: settings.syncMs,
    storeTimeoutMs: settings.storeTimeoutMs,
    redisUrl,
    prefix: `fl:fleet:${run}:`,
    key: 'k',
    upstreamPort,
    ...(settings.keys !== undefined ? { keyCount: settings.keys.count } : {}),
    ...(settings.expiryMarginMs !== undefined ? { expiryMarginMs: settings.expiryMarginMs } : {}),
    ...(settings.reads !== undefined ? { reads: settings.reads } : {}),
  };
}

/** The load process's configuration: the traffic, the gateways' ports and its bounds. */
function loadConfig(settings: FleetSettings, ports: ChildReady[], upstreamPort: number): LoadConfig {
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
  return loadCfg;
}

/** The progress line saying what the load sends. */
function loadLine(settings: FleetSettings, rate: number, onset: LoadConfig['onset']): string {
  return (
    `load: ${settings.traffic === 'onset' ? 'an honest client' : settings.traffic} at ${settings.load}× (${Math.round(rate).toLocaleString('en-US')} req/s) for ${settings.durationMs / 1000} s` +
    (onset === undefined
      ? ''
      : `, a ${onset.load}× flood (${onset.pick ? 'to one gateway' : 'spread'}) from ${onset.atMs / 1000} s`)
  );
}

/** Sends every gateway `message` and waits for each one's `reply` (10 s each). */
function askEach<T extends { type: string }>(
  gateways: ChildProcess[],
  message: string,
  reply: string,
): Promise<T[]> {
  return Promise.all(
    gateways.map((g, i) => {
      const answered = nextMessage<T>(g, reply, `gateway gw-${i}`, 10_000);
      g.send({ type: message });
      return answered;
    }),
  );
}

/**
 * After the load, the gateways stopped (their last syncs are in): how long the keys, idle from the
 * end of the load on, take to leave Redis, against the bound W + 2 × margin.
 */
async function watchIdleKeys(
  probe: RedisProbe,
  settings: FleetSettings,
  run: string,
  loadReport: LoadReport,
  upReport: UpstreamReport,
  log: (line: string) => void,
): Promise<ManyKeysLive['idle']> {
  const marginMs = settings.expiryMarginMs ?? DEFAULT_EXPIRY_MARGIN_MS;
  const boundMs = settings.windowMs + 2 * marginMs;
  const end = lastAdmit(loadReport.startedAt + settings.durationMs, upReport);
  log(
    `idle keys: waiting for them to leave Redis (bound: W + 2 × margin = ${boundMs / 1000} s after the last admit)`,
  );
  const watched = await probe.idleExpiry(`fl:fleet:${run}:`, end, end + boundMs + IDLE_SLACK_MS);
  log(
    watched.goneAtMs === null
      ? `idle keys: ${watched.left} records still in Redis ${((Date.now() - end) / 1000).toFixed(1)} s after the last admit`
      : `idle keys: all gone ${(watched.goneAtMs / 1000).toFixed(2)} s after the last admit`,
  );
  return { ...watched, marginMs, boundMs };
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
