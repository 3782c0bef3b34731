/**
 * npm run bench -- --only sidecar [--quick]: the sidecar (`fleetlimit sidecar`, built, adaptive, K = 4,
 * Δ = 1 s, L = 100 per minute per key), with its default reads on request (decision 0016) and with
 * `reads: 'every-sync'` (the library's default), beside a per-request central service on its own
 * Redis (one INCRBY + EXPIRE round trip per request, as Envoy's reference service:
 * bench/sidecar-baseline.ts), each behind both
 * doors (HTTP /decide as NGINX's auth_request calls it, gRPC ShouldRateLimit as Envoy calls it).
 * Keys: 10, 1,000 and 100,000 (quick: 10 and 1,000), zipf popularity (exponent 1), one seeded
 * sequence every service sees in the same order. Each row has two phases, each on a fresh sidecar
 * (a sidecar keeps syncing the keys a phase before touched, for a window):
 * - at 100 requests/s offered (open loop): latency p50/p99, store round trips/s, Redis commands/s,
 *   and Redis CPU per decision (INFO cpu, which stays exact where commandstats runs high under load);
 * - at load (a closed loop of 32): decisions/s, the server's CPU and its Redis's per decision, and
 *   their sum, whose inverse is the decisions per CPU-second the service and its store can serve.
 * Each phase is measured after a warm-up of several syncs at its own rate (JIT warm, keys held).
 * Bounded in count and time; every process is ended by PID.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { Redis } from 'ioredis';
import { ZipfKeys } from '../src/fleet/key-choice.js';
import { startRedisServer } from '../src/fleet/redis-server.js';
import { loadRateLimitService } from '../src/sidecar/grpc-server.js';
import { Random } from '../src/sim/random.js';
import { exited, killChild } from './util.js';

/** The services compared: the per-request central service and the sidecar in each reads mode (its default: on request). */
export const SIDECAR_SERVICES = ['central', 'sidecar', 'sidecar-every-sync'] as const;
export type SidecarService = (typeof SIDECAR_SERVICES)[number];

export interface SidecarRow {
  service: SidecarService;
  /** Distinct keys the requests spread over, zipf popularity. */
  keys: number;
  protocol: 'http' | 'grpc';
  offeredPerS: number;
  achievedPerS: number;
  p50Ms: number;
  p99Ms: number;
  /** Server process CPU per answered request at the offered rate, µs (10 ms ticks: coarse at 100/s). */
  cpuUsPerDecision: number;
  /** Store round trips per second during the fixed-rate run: the sidecar's sync requests (adaptive makes no request-path calls), the central service's one pipeline per request. */
  roundTripsPerS: number;
  /** Redis commands processed per second during the fixed-rate run (INFO total_commands_processed: the commands inside the sidecar's Lua scripts count too). */
  redisCommandsPerS: number;
  /** Redis CPU per answered request at the offered rate, µs (INFO cpu). */
  redisCpuUsPerDecision: number;
  /** Closed loop of `concurrency` requests in flight: answers per second. */
  maxPerS: number;
  /** In the closed loop: the server's CPU per decision, µs (/proc). */
  loadServerCpuUs: number;
  /** In the closed loop: its Redis's CPU per decision, µs (INFO cpu). */
  loadRedisCpuUs: number;
  errors: number;
}

export interface SidecarBench {
  rows: SidecarRow[];
  settings: {
    /** Each redis-server's CPU with no client, ms per second, taken off the rows' Redis CPU. */
    idleRedisMsPerS?: number[];
    keys: number[];
    ratePerS: number;
    seconds: number;
    concurrency: number;
    closedSeconds: number;
    warmSeconds: number;
    zipf: number;
  };
}

/** Few busy keys, and long tails of quiet ones (most below one request per Δ). */
const KEY_COUNTS = [10, 1000, 100_000];
const ZIPF = 1;
const LIMIT = 100;
const WINDOW_MS = 60_000;
/**
 * A sidecar holds a key for a window (60 s) after its last request and, with reads at every sync,
 * reads it every Δ: with a warm-up shorter than that, the keys held at 100,000 keys (and that mode's
 * reads) are below their steady state, so its Redis figures there are lower bounds.
 */
const WARM_NOTE =
  'shorter than the 60 s a key stays held: at many keys the held set, and the every-sync mode’s reads, are below their steady state, so its Redis figures there are lower bounds; `--sidecar-warm 60` waits a window (about 20 minutes in all)';

/** Process CPU so far, ms (utime + stime from /proc). */
export function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime, stime: fields 14 and 15 of the whole line, in clock ticks (100 per second on Linux)
  return ((Number(f[11]) + Number(f[12])) * 1000) / 100;
}

/** The sidecar's sync requests so far (answered + failed), from its /metrics. */
async function sidecarSyncs(httpPort: number): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${httpPort}/metrics`)).text();
  let n = 0;
  for (const m of text.matchAll(/^fleetlimit_(?:syncs_total|sync_failures_total)\{[^}]*\} (\d+)/gm))
    n += Number(m[1]);
  return n;
}

async function redisCommands(r: Redis): Promise<number> {
  const info = await r.info('stats');
  return Number(/total_commands_processed:(\d+)/.exec(info)?.[1] ?? 0);
}

/** redis-server's CPU so far, ms (INFO cpu: user + sys of the main process). */
export async function redisCpuMs(r: Redis): Promise<number> {
  const info = await r.info('cpu');
  const sys = Number(/used_cpu_sys:([\d.]+)/.exec(info)?.[1] ?? 0);
  const user = Number(/used_cpu_user:([\d.]+)/.exec(info)?.[1] ?? 0);
  return (sys + user) * 1000;
}

/** Each redis-server's CPU with nothing but the probe connected, ms per second, measured side by side. */
async function idleRedisCpu(probes: Redis[], ms: number): Promise<number[]> {
  const from = await Promise.all(probes.map(redisCpuMs));
  const t0 = performance.now();
  await new Promise((r) => setTimeout(r, ms));
  const to = await Promise.all(probes.map(redisCpuMs));
  const s = (performance.now() - t0) / 1000;
  return to.map((x, i) => (x - from[i]) / s);
}

/** A seeded zipf sequence of `keys` key names, replayed round the loops: every service sees the same. */
export function keySequence(keys: number, exponent = ZIPF): string[] {
  const zipf = new ZipfKeys(keys, exponent);
  const rng = new Random(1);
  return Array.from({ length: 1 << 18 }, () => `key-${zipf.pick(rng)}`);
}

export function waitForLine(child: ChildProcess, pattern: RegExp, what: string): Promise<RegExpExecArray> {
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`${what}: not ready in 20 s: ${out}`)), 20_000);
    child.stdout?.on('data', (d) => {
      out += d.toString();
      const m = pattern.exec(out);
      if (m !== null) {
        clearTimeout(timer);
        resolve(m);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${what} exited ${code}: ${out}`));
    });
  });
}

export type Send = (key: string) => Promise<boolean>;

export function httpSender(port: number): { send: Send; close: () => void } {
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  const send: Send = (key) =>
    new Promise((resolve) => {
      const req = request(
        { host: '127.0.0.1', port, path: '/decide', headers: { 'x-api-key': key }, agent },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode === 204 || res.statusCode === 429));
        },
      );
      req.on('error', () => resolve(false));
      req.end();
    });
  return { send, close: () => agent.destroy() };
}

export function grpcSender(address: string): { send: Send; close: () => void } {
  const Rls = loadRateLimitService();
  const c = new Rls(address, grpc.credentials.createInsecure()) as unknown as {
    ShouldRateLimit: (r: unknown, cb: (e: Error | null) => void) => void;
    close: () => void;
  };
  const send: Send = (key) =>
    new Promise((resolve) =>
      c.ShouldRateLimit(
        { domain: 'edge', descriptors: [{ entries: [{ key: 'api_key', value: key }] }] },
        (e) => resolve(e === null),
      ),
    );
  return { send, close: () => c.close() };
}

/** Open loop: `ratePerS` evenly spaced for `ms`, at most 512 in flight; latencies of the answered ones. */
async function openLoop(
  send: Send,
  seq: string[],
  ratePerS: number,
  ms: number,
): Promise<{ lat: number[]; errors: number; done: number }> {
  const lat: number[] = [];
  let errors = 0;
  let done = 0;
  let inFlight = 0;
  const pending: Promise<void>[] = [];
  const start = performance.now();
  let n = 0;
  const gap = 1000 / ratePerS;
  while (n * gap < ms) {
    const now = performance.now() - start;
    while (n * gap <= now && n * gap < ms) {
      n++;
      if (inFlight >= 512) {
        errors++;
        continue;
      }
      inFlight++;
      const t = performance.now();
      pending.push(
        send(seq[n % seq.length]).then((ok) => {
          inFlight--;
          done++;
          if (ok) lat.push(performance.now() - t);
          else errors++;
        }),
      );
    }
    await new Promise((r) => setTimeout(r, 1));
  }
  await Promise.race([Promise.all(pending), new Promise((r) => setTimeout(r, 3000))]);
  return { lat, errors, done };
}

/** Closed loop: `concurrency` workers, each sending its next request when the last is answered; answers. */
async function closedLoop(send: Send, seq: string[], concurrency: number, ms: number): Promise<number> {
  let count = 0;
  const end = performance.now() + ms;
  await Promise.all(
    Array.from({ length: concurrency }, async (_, w) => {
      let i = w;
      while (performance.now() < end) {
        if (await send(seq[i % seq.length])) count++;
        i += concurrency;
      }
    }),
  );
  return count;
}

function pct(xs: number[], q: number): number {
  if (xs.length === 0) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)];
}

interface Target {
  service: SidecarService;
  pid: number;
  http: number;
  grpc: string;
  child?: ChildProcess;
}

export async function benchSidecar(opts: {
  quick: boolean;
  log: (s: string) => void;
  /** Seconds of warm-up per phase (default 5, quick 2): see WARM_NOTE. */
  warmSeconds?: number;
}): Promise<SidecarBench> {
  const seconds = opts.quick ? 2 : 4;
  const closedSeconds = opts.quick ? 2 : 5;
  // several syncs at the phase's own rate before it is measured: JIT warm, the keys it touches held
  const warmSeconds = opts.warmSeconds ?? (opts.quick ? 2 : 5);
  const keyCounts = opts.quick ? KEY_COUNTS.slice(0, 2) : KEY_COUNTS;
  // below what either service answers on a loaded 2-core box, so the latency is the service's, not a queue's
  const ratePerS = 100;
  const concurrency = 32;
  // one redis-server each, so the Redis work each service causes is its own (a sidecar keeps
  // syncing its keys for a window after their last request: each phase gets a fresh one)
  const redis = await startRedisServer();
  const centralRedis = await startRedisServer();
  const children: ChildProcess[] = [];
  const probes = { sidecar: new Redis(redis.url), central: new Redis(centralRedis.url) };
  const probeOf = (t: { service: SidecarService }) =>
    t.service === 'central' ? probes.central : probes.sidecar;
  // what each redis-server spends with no client (its cron: at 100 requests/s about as much as the
  // requests), ms per second, taken off each phase's Redis CPU so a figure is the service's own work
  const idle = await idleRedisCpu([probes.sidecar, probes.central], opts.quick ? 1000 : 3000);
  const redisCpuOf = async (t: Target, from: number, seconds: number) =>
    (await redisCpuMs(probeOf(t))) - from - idle[t.service === 'central' ? 1 : 0] * seconds;
  try {
    let started = 0;
    const startSc = async (service: SidecarService): Promise<Target> => {
      // its own id and key prefix too: nothing in Redis from the phases before
      started++;
      const cfgFile = join(tmpdir(), `fleetlimit-bench-sidecar-${process.pid}-${started}.json`);
      writeFileSync(
        cfgFile,
        JSON.stringify({
          id: `bench-${started}`,
          design: 'adaptive',
          limit: LIMIT,
          windowMs: WINDOW_MS,
          gateways: 4,
          syncMs: 1000,
          ...(service === 'sidecar-every-sync' ? { reads: 'every-sync' } : {}),
          redis: { prefix: `bench-${started}:` },
          sidecar: { http: { port: 0 }, grpc: { port: 0, domain: 'edge', descriptors: [['api_key']] } },
        }),
      );
      const sc = spawn(process.execPath, ['dist/cli/main.js', 'sidecar', cfgFile, '--redis', redis.url], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      children.push(sc);
      const m = await waitForLine(sc, /http http:\/\/127\.0\.0\.1:(\d+), grpc (\S+) \(/, 'sidecar');
      return { service, pid: sc.pid as number, http: Number(m[1]), grpc: m[2], child: sc };
    };
    const stop = async (t: Target) => {
      // its last sync is made before it exits: nothing of this phase reaches the next one's count
      if (t.child === undefined) return;
      killChild(t.child);
      await exited(t.child);
    };
    const central = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        'bench/sidecar-baseline.ts',
        JSON.stringify({ redisUrl: centralRedis.url, limit: LIMIT, windowMs: WINDOW_MS }),
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    children.push(central);
    const cReady = await waitForLine(central, /READY (\d+) (\d+)/, 'central service');
    const centralTarget: Target = {
      service: 'central',
      pid: central.pid as number,
      http: Number(cReady[1]),
      grpc: `127.0.0.1:${cReady[2]}`,
    };
    // each phase on an empty server: keys an earlier phase left (TTL about W) would otherwise expire
    // during a later one and charge it their deletion (the grpc rows ran a minute after the http
    // rows' closed loops had made ~100,000 keys: 1.6 to 3 times their Redis CPU per decision at
    // 100,000 keys). Flushed before the warm-up, so a phase still pays for its own keys' upkeep.
    const targetOf = async (service: SidecarService) => {
      await probeOf({ service }).flushall('SYNC');
      return service === 'central' ? centralTarget : startSc(service);
    };
    const senderOf = (t: Target, protocol: 'http' | 'grpc') =>
      protocol === 'http' ? httpSender(t.http) : grpcSender(t.grpc);

    /** At the offered rate: latency, round trips, Redis commands and CPU. */
    const offered = async (service: SidecarService, protocol: 'http' | 'grpc', seq: string[]) => {
      const t = await targetOf(service);
      const s = senderOf(t, protocol);
      try {
        await openLoop(s.send, seq, ratePerS, warmSeconds * 1000);
        const cpu0 = cpuMs(t.pid);
        const cmd0 = await redisCommands(probeOf(t));
        const rcpu0 = await redisCpuMs(probeOf(t));
        const syncs0 = t.service === 'central' ? 0 : await sidecarSyncs(t.http);
        const t0 = performance.now();
        const r = await openLoop(s.send, seq, ratePerS, seconds * 1000);
        const wall = (performance.now() - t0) / 1000;
        const cpu = cpuMs(t.pid) - cpu0;
        // the probe's own INFO calls: two before the run's count, one after
        const rcpu = await redisCpuOf(t, rcpu0, wall);
        const cmds = (await redisCommands(probeOf(t))) - cmd0 - 2;
        const trips = t.service === 'central' ? r.done : (await sidecarSyncs(t.http)) - syncs0;
        const answered = Math.max(1, r.lat.length);
        return {
          achievedPerS: r.lat.length / wall,
          p50Ms: pct(r.lat, 0.5),
          p99Ms: pct(r.lat, 0.99),
          cpuUsPerDecision: (cpu * 1000) / answered,
          roundTripsPerS: trips / wall,
          redisCommandsPerS: cmds / wall,
          redisCpuUsPerDecision: (rcpu * 1000) / answered,
          errors: r.errors,
        };
      } finally {
        s.close();
        await stop(t);
      }
    };

    /** At load: decisions/s and the CPU per decision of the server and of its Redis. */
    const atLoad = async (service: SidecarService, protocol: 'http' | 'grpc', seq: string[]) => {
      const t = await targetOf(service);
      const s = senderOf(t, protocol);
      try {
        await closedLoop(s.send, seq, concurrency, warmSeconds * 1000);
        const cpu0 = cpuMs(t.pid);
        const rcpu0 = await redisCpuMs(probeOf(t));
        const t0 = performance.now();
        const n = Math.max(1, await closedLoop(s.send, seq, concurrency, closedSeconds * 1000));
        const wall = (performance.now() - t0) / 1000;
        const cpu = cpuMs(t.pid) - cpu0;
        const rcpu = await redisCpuOf(t, rcpu0, wall);
        return {
          maxPerS: n / wall,
          loadServerCpuUs: (cpu * 1000) / n,
          loadRedisCpuUs: (rcpu * 1000) / n,
        };
      } finally {
        s.close();
        await stop(t);
      }
    };

    const rows: SidecarRow[] = [];
    for (const keys of keyCounts) {
      const seq = keySequence(keys);
      for (const protocol of ['http', 'grpc'] as const)
        for (const service of SIDECAR_SERVICES) {
          opts.log(`sidecar bench: ${service} over ${protocol}, ${keys} keys`);
          const o = await offered(service, protocol, seq);
          const l = await atLoad(service, protocol, seq);
          rows.push({ service, keys, protocol, offeredPerS: ratePerS, ...o, ...l });
        }
    }
    return {
      rows,
      settings: {
        idleRedisMsPerS: idle,
        keys: keyCounts,
        ratePerS,
        seconds,
        concurrency,
        closedSeconds,
        warmSeconds,
        zipf: ZIPF,
      },
    };
  } finally {
    probes.sidecar.disconnect();
    probes.central.disconnect();
    for (const c of children) killChild(c);
    await Promise.all(children.map(exited));
    await redis.stop();
    await centralRedis.stop();
  }
}

export function renderSidecar(b: SidecarBench): string {
  const f = (x: number, d = 2) => (Number.isFinite(x) ? x.toFixed(d) : '—');
  const st = b.settings;
  const lines = [
    `Keys: ${st.keys.map((k) => k.toLocaleString('en-US')).join(', ')}, zipf popularity (exponent ${st.zipf ?? 1}). Each row: ${st.ratePerS} req/s offered for ${st.seconds} s (open loop), then a closed loop of ${st.concurrency} for ${st.closedSeconds} s, each phase on a fresh sidecar after ${st.warmSeconds ?? 1} s of warm-up at its own rate${(st.warmSeconds ?? 1) < WINDOW_MS / 1000 ? ` (${WARM_NOTE})` : ''}; each service on its own redis-server, whose CPU with no client (${(st.idleRedisMsPerS ?? []).map((x) => `${f(x)} ms/s`).join(', ') || 'not measured'}) is taken off its Redis CPU.`,
    'sidecar: `fleetlimit sidecar` (adaptive, K = 4, Δ = 1 s, L = 100/min per key), reads on request (its default, decision 0016) or `reads: every-sync` (the library’s default); central: one INCRBY + EXPIRE round trip to Redis per request (bench/sidecar-baseline.ts). CPU from /proc (the server) and INFO cpu (Redis).',
    '',
    '| keys | door | service | p50 ms | p99 ms | round trips/s | Redis commands/s | Redis CPU µs / decision (100/s) | max req/s (closed loop) | at load: server CPU µs / decision | at load: Redis CPU µs / decision | at load: total µs / decision |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
  ];
  for (const r of b.rows) {
    lines.push(
      `| ${r.keys.toLocaleString('en-US')} | ${r.protocol} | ${r.service} | ${f(r.p50Ms, 3)} | ${f(r.p99Ms, 3)} | ${f(r.roundTripsPerS, 1)} | ${f(r.redisCommandsPerS, 1)} | ${f(r.redisCpuUsPerDecision ?? Number.NaN, 1)} | ${f(r.maxPerS, 0)} | ${f(r.loadServerCpuUs ?? Number.NaN, 1)} | ${f(r.loadRedisCpuUs ?? Number.NaN, 1)} | ${f((r.loadServerCpuUs ?? Number.NaN) + (r.loadRedisCpuUs ?? Number.NaN), 1)} |`,
    );
  }
  const pick = (keys: number, p: 'http' | 'grpc', service: SidecarService) =>
    b.rows.find((r) => r.keys === keys && r.service === service && r.protocol === p);
  const ratio = (keys: number, p: 'http' | 'grpc', service: SidecarService, v: (r: SidecarRow) => number) => {
    const s = pick(keys, p, service);
    const c = pick(keys, p, 'central');
    // a sidecar whose Redis spent no more than the idle server (its figure ≤ 0 once the idle CPU is
    // taken off) has no ratio: '—', not a negative or infinite one
    return s !== undefined && c !== undefined && v(s) > 0 ? v(c) / v(s) : Number.NaN;
  };
  const total = (r: SidecarRow) => r.loadServerCpuUs + r.loadRedisCpuUs;
  lines.push(
    '',
    "Central ÷ sidecar (above 1: the sidecar spends less; —: the sidecar's Redis spent no more than its idle server):",
    '',
  );
  for (const keys of st.keys)
    for (const service of SIDECAR_SERVICES.slice(1)) {
      const times = (x: number, d: number) => (Number.isFinite(x) ? `${f(x, d)}×` : '—');
      const part = (v: (r: SidecarRow) => number, d = 2) =>
        `${times(ratio(keys, 'http', service, v), d)} (http), ${times(ratio(keys, 'grpc', service, v), d)} (grpc)`;
      lines.push(
        `- ${keys.toLocaleString('en-US')} keys, ${service}: Redis CPU per decision at 100/s ${part((r) => r.redisCpuUsPerDecision)}; at load ${part((r) => r.loadRedisCpuUs)}; capacity (server + Redis CPU per decision at load) ${part(total)}; Redis commands/s ${part((r) => r.redisCommandsPerS)}; p50 ${part((r) => r.p50Ms)}.`,
      );
    }
  return `${lines.join('\n')}\n`;
}
