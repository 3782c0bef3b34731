/**
 * npm run bench -- --only sidecar [--quick]: the sidecar (`fleetlimit sidecar`, built, adaptive, K = 4,
 * Δ = 1 s, L = 100 per minute per key) beside a per-request central service on the same Redis (one
 * INCRBY + EXPIRE round trip per request, as Envoy's reference service: bench/sidecar-baseline.ts),
 * each behind both doors (HTTP /decide as NGINX's auth_request calls it, gRPC ShouldRateLimit as
 * Envoy calls it). For each: the decision latency on loopback at a fixed offered rate (p50, p99), the
 * server's CPU per decision, the Redis commands per second it causes, and the most requests per second
 * a closed loop of 32 gets. Keys: 10 or 1,000, uniform (each well under its limit: these are decisions, not
 * rejections). Bounded in count and time; every process is ended by PID.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { Redis } from 'ioredis';
import { startRedisServer } from '../src/fleet/redis-server.js';
import { loadRateLimitService } from '../src/sidecar/grpc-server.js';
import { exited, killChild } from './util.js';

export interface SidecarRow {
  service: 'sidecar' | 'central';
  /** Distinct keys the requests spread over, uniformly. */
  keys: number;
  protocol: 'http' | 'grpc';
  offeredPerS: number;
  achievedPerS: number;
  p50Ms: number;
  p99Ms: number;
  /** Server process CPU per answered request, µs. */
  cpuUsPerDecision: number;
  /** Store round trips per second during the fixed-rate run: the sidecar's sync requests (adaptive makes no request-path calls), the central service's one pipeline per request. */
  roundTripsPerS: number;
  /** Redis commands processed per second during the fixed-rate run (INFO total_commands_processed: the commands inside the sidecar's Lua scripts count too). */
  redisCommandsPerS: number;
  /** Closed loop of `concurrency` requests in flight: answers per second. */
  maxPerS: number;
  errors: number;
}

export interface SidecarBench {
  rows: SidecarRow[];
  settings: { keys: number[]; ratePerS: number; seconds: number; concurrency: number; closedSeconds: number };
}

/** Few busy keys (each key's requests well above one per Δ) and many quiet ones (below one per Δ). */
const KEY_COUNTS = [10, 1000];
const LIMIT = 100;
const WINDOW_MS = 60_000;

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
  keys: number,
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
        send(`key-${(n * 7919) % keys}`).then((ok) => {
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

/** Closed loop: `concurrency` workers, each sending its next request when the last is answered. */
async function closedLoop(send: Send, keys: number, concurrency: number, ms: number): Promise<number> {
  let count = 0;
  const end = performance.now() + ms;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async (_, w) => {
      let i = w;
      while (performance.now() < end) {
        if (await send(`key-${(i * 7919) % keys}`)) count++;
        i += concurrency;
      }
    }),
  );
  return count / ((performance.now() - start) / 1000);
}

function pct(xs: number[], q: number): number {
  if (xs.length === 0) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)];
}

export async function benchSidecar(opts: {
  quick: boolean;
  log: (s: string) => void;
}): Promise<SidecarBench> {
  const seconds = opts.quick ? 2 : 4;
  const closedSeconds = opts.quick ? 1 : 2;
  // below what either service answers on a loaded 2-core box, so the latency is the service's, not a queue's
  const ratePerS = 100;
  const concurrency = 32;
  // one redis-server each, so the Redis commands each service causes are its own (the sidecar keeps
  // syncing its keys for a window after their last request)
  const redis = await startRedisServer();
  const centralRedis = await startRedisServer();
  const children: ChildProcess[] = [];
  const probes = { sidecar: new Redis(redis.url), central: new Redis(centralRedis.url) };
  try {
    // a fresh sidecar for each row: one that served the row before would still sync that row's keys
    let row = 0;
    const startSc = async () => {
      // its own id and key prefix too: nothing in Redis from the rows before
      row++;
      const cfgFile = join(tmpdir(), `fleetlimit-bench-sidecar-${process.pid}-${row}.json`);
      writeFileSync(
        cfgFile,
        JSON.stringify({
          id: `bench-${row}`,
          design: 'adaptive',
          limit: LIMIT,
          windowMs: WINDOW_MS,
          gateways: 4,
          syncMs: 1000,
          redis: { prefix: `bench-${row}:` },
          sidecar: { http: { port: 0 }, grpc: { port: 0, domain: 'edge', descriptors: [['api_key']] } },
        }),
      );
      const sc = spawn(process.execPath, ['dist/cli/main.js', 'sidecar', cfgFile, '--redis', redis.url], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      children.push(sc);
      const m = await waitForLine(sc, /http http:\/\/127\.0\.0\.1:(\d+), grpc (\S+) \(/, 'sidecar');
      return {
        service: 'sidecar' as const,
        pid: sc.pid as number,
        http: Number(m[1]),
        grpc: m[2],
        child: sc,
      };
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
    const targets = [
      null,
      {
        service: 'central' as const,
        pid: central.pid as number,
        http: Number(cReady[1]),
        grpc: `127.0.0.1:${cReady[2]}`,
      },
    ];
    const rows: SidecarRow[] = [];
    for (const keys of KEY_COUNTS)
      for (const protocol of ['http', 'grpc'] as const) {
        for (const fixed of targets) {
          const t = fixed ?? (await startSc());
          const s = protocol === 'http' ? httpSender(t.http) : grpcSender(t.grpc);
          try {
            opts.log(`sidecar bench: ${t.service} over ${protocol}, ${keys} keys`);
            await openLoop(s.send, keys, ratePerS, 1000); // warm-up: JIT, connections
            const cpu0 = cpuMs(t.pid);
            const cmd0 = await redisCommands(probes[t.service]);
            const syncs0 = t.service === 'sidecar' ? await sidecarSyncs(t.http) : 0;
            const t0 = performance.now();
            const r = await openLoop(s.send, keys, ratePerS, seconds * 1000);
            const wall = (performance.now() - t0) / 1000;
            const cpu = cpuMs(t.pid) - cpu0;
            const cmds = (await redisCommands(probes[t.service])) - cmd0 - 1;
            const trips = t.service === 'sidecar' ? (await sidecarSyncs(t.http)) - syncs0 : r.done;
            const maxPerS = await closedLoop(s.send, keys, concurrency, closedSeconds * 1000);
            rows.push({
              service: t.service,
              keys,
              protocol,
              offeredPerS: ratePerS,
              achievedPerS: r.lat.length / wall,
              p50Ms: pct(r.lat, 0.5),
              p99Ms: pct(r.lat, 0.99),
              cpuUsPerDecision: (cpu * 1000) / Math.max(1, r.lat.length),
              roundTripsPerS: trips / wall,
              redisCommandsPerS: cmds / wall,
              maxPerS,
              errors: r.errors,
            });
          } finally {
            s.close();
            // its last sync is made before it exits: nothing of this row reaches the next one's count
            if ('child' in t) {
              killChild(t.child);
              await exited(t.child);
            }
          }
        }
      }
    return { rows, settings: { keys: KEY_COUNTS, ratePerS, seconds, concurrency, closedSeconds } };
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
  const lines = [
    `Offered ${b.settings.ratePerS} req/s for ${b.settings.seconds} s (open loop) over ${b.settings.keys.join(' or ')} keys, then a closed loop of ${b.settings.concurrency} for ${b.settings.closedSeconds} s; each service on its own redis-server.`,
    'sidecar: `fleetlimit sidecar` (adaptive, K = 4, Δ = 1 s, L = 100/min per key); central: one INCRBY + EXPIRE round trip to Redis per request (bench/sidecar-baseline.ts).',
    '',
    '| keys | door | service | p50 ms | p99 ms | CPU µs / decision | store round trips/s | Redis commands/s | req/s answered (offered) | max req/s (closed loop) |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
  ];
  for (const r of b.rows) {
    lines.push(
      `| ${r.keys} | ${r.protocol} | ${r.service} | ${f(r.p50Ms, 3)} | ${f(r.p99Ms, 3)} | ${f(r.cpuUsPerDecision, 0)} | ${f(r.roundTripsPerS, 1)} | ${f(r.redisCommandsPerS, 1)} | ${f(r.achievedPerS, 0)} (${r.offeredPerS}) | ${f(r.maxPerS, 0)} |`,
    );
  }
  const ratio = (keys: number, p: 'http' | 'grpc', k: 'p50Ms' | 'roundTripsPerS' | 'redisCommandsPerS') => {
    const s = b.rows.find((r) => r.keys === keys && r.service === 'sidecar' && r.protocol === p);
    const c = b.rows.find((r) => r.keys === keys && r.service === 'central' && r.protocol === p);
    return s !== undefined && c !== undefined ? c[k] / s[k] : Number.NaN;
  };
  lines.push('');
  for (const keys of b.settings.keys)
    lines.push(
      `Central ÷ sidecar, ${keys} keys: p50 ${f(ratio(keys, 'http', 'p50Ms'))}× (http), ${f(ratio(keys, 'grpc', 'p50Ms'))}× (grpc); store round trips/s ${f(ratio(keys, 'http', 'roundTripsPerS'), 1)}× (http), ${f(ratio(keys, 'grpc', 'roundTripsPerS'), 1)}× (grpc); Redis commands/s ${f(ratio(keys, 'http', 'redisCommandsPerS'))}× (http), ${f(ratio(keys, 'grpc', 'redisCommandsPerS'))}× (grpc).`,
    );
  return `${lines.join('\n')}\n`;
}
