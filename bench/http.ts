/**
 * HTTP: requests/s and p99 latency of each server in bench/http-servers.ts (one child process),
 * loaded by autocannon in another child process, over loopback only, each run bounded in time.
 * Rounds are interleaved (every server once per round, in the same order), so each ratio compares
 * runs made minutes apart at most; medians over rounds, and the median of the per-round ratios.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import { exited, killChild, load1, median } from './util.js';

export interface HttpRun {
  reqPerSec: number;
  p99Ms: number;
  non2xx: number;
  errors: number;
  /** CPU of the server process per request answered over the run, µs (its capacity: 1e6 / this per core). */
  serverCpuUs: number;
  /** CPU of redis-server per request answered over the run, µs (NaN when Redis is not ours to read). */
  redisCpuUs: number;
}

export interface HttpBench {
  connections: number;
  durationS: number;
  rounds: number;
  /** The server process ran on CPU 0 and autocannon on CPU 1 (taskset), Redis unpinned. */
  pinned: boolean;
  /** Median requests/s by server. */
  reqPerSec: Record<string, number>;
  /** Median p99 latency by server, ms. */
  p99Ms: Record<string, number>;
  /** Median of the per-round ratios server / its bare server (node:http, or Express for Express servers). */
  ratioToBare: Record<string, number>;
  /** Median server CPU per request, µs, by server (Redis's own CPU not included). */
  serverCpuUs: Record<string, number>;
  /**
   * Median of the per-round ratios bare CPU per request / server CPU per request: the share of bare
   * node:http's capacity the server keeps when the server, not the load generator, is the bottleneck.
   */
  capacityToBare: Record<string, number>;
  /** Median of the per-round ratios shared-counter / each per-request Redis limiter. */
  sharedCounterOver: Record<string, number>;
  /** Median redis-server CPU per request, µs, by server: the work a per-request limiter moves to Redis. */
  redisCpuUs: Record<string, number>;
  /**
   * Median of the per-round ratios peer (server + Redis) CPU per request / shared-counter's: how many
   * times more requests shared-counter serves than each per-request Redis limiter when CPU is the limit.
   */
  sharedCounterCapacityOver: Record<string, number>;
  /** Responses other than 2xx and socket errors, summed over rounds. */
  non2xx: Record<string, number>;
  errors: Record<string, number>;
  runs: Record<string, HttpRun[]>;
  load1: number[];
}

const require = createRequire(import.meta.url);
const AUTOCANNON = join(dirname(require.resolve('autocannon/package.json')), 'autocannon.js');

/**
 * Unpinned, the scheduler moves the server and autocannon between the 2 cores, and how often they
 * share one swings a server's CPU per request by ±30 % from run to run (bare node:http: 15–32 µs),
 * which buries a 5 % difference. Pinned apart (server on CPU 0, load on CPU 1) the spread is about
 * half. Pinning needs taskset (util-linux) and two CPUs; without them the runs are unpinned.
 */
function pinning(): { server: string[]; load: string[] } | null {
  if (availableParallelism() < 2) return null;
  const probe = spawnSync('taskset', ['-c', '0', 'true'], { stdio: 'ignore' });
  if (probe.status !== 0) return null;
  return { server: ['taskset', '-c', '0'], load: ['taskset', '-c', '1'] };
}

/** argv through taskset when pinned: [command, ...args]. */
function pinned(prefix: string[] | undefined, args: string[]): [string, string[]] {
  const all = [...(prefix ?? []), process.execPath, ...args];
  return [all[0], all.slice(1)];
}

interface Servers {
  child: ChildProcess;
  ports: Record<string, number>;
  /** The server process's CPU (µs) and requests answered per server, now. */
  usage(): Promise<{ cpuUs: number; served: Record<string, number> }>;
}

function startServers(redisPort: number, pin: string[] | undefined): Promise<Servers> {
  return new Promise((resolve, reject) => {
    const [cmd, args] = pinned(pin, ['--import', 'tsx', 'bench/http-servers.ts', String(redisPort)]);
    const child = spawn(cmd, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    let waiting: ((u: { cpuUs: number; served: Record<string, number> }) => void) | null = null;
    const usage = () =>
      new Promise<{ cpuUs: number; served: Record<string, number> }>((r) => {
        waiting = r;
        child.stdin!.write('cpu\n');
      });
    let out = '';
    let err = '';
    const timer = setTimeout(() => {
      killChild(child);
      reject(new Error(`http servers did not start: ${err}`));
    }, 30_000);
    child.stderr.on('data', (d) => {
      err += d.toString();
    });
    let ports: Record<string, number> | null = null;
    child.stdout.on('data', (d) => {
      out += d.toString();
      for (let nl = out.indexOf('\n'); nl >= 0; nl = out.indexOf('\n')) {
        const msg = JSON.parse(out.slice(0, nl));
        out = out.slice(nl + 1);
        if (ports === null) {
          ports = msg as Record<string, number>;
          clearTimeout(timer);
          resolve({ child, ports, usage });
        } else if (waiting !== null) {
          const w = waiting;
          waiting = null;
          w(msg);
        }
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`http servers exited ${code}: ${err}`));
    });
  });
}

function autocannon(
  port: number,
  connections: number,
  durationS: number,
  pin: string[] | undefined,
): Promise<HttpRun> {
  return new Promise((resolve, reject) => {
    const [cmd, args] = pinned(pin, [
      AUTOCANNON,
      '-c',
      String(connections),
      '-d',
      String(durationS),
      '-j',
      `http://127.0.0.1:${port}/`,
    ]);
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => {
      out += d.toString();
    });
    const timer = setTimeout(() => killChild(child), (durationS + 30) * 1000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      try {
        const j = JSON.parse(out) as {
          requests: { total: number };
          duration: number;
          latency: { p99: number };
          non2xx: number;
          errors: number;
          timeouts: number;
          '2xx': number;
        };
        resolve({
          reqPerSec: j['2xx'] / j.duration,
          p99Ms: j.latency.p99,
          non2xx: j.non2xx,
          errors: j.errors + j.timeouts,
          serverCpuUs: Number.NaN,
          redisCpuUs: Number.NaN,
        });
      } catch {
        reject(new Error(`autocannon exited ${code}: ${out.slice(0, 300)}`));
      }
    });
  });
}

export const PER_REQUEST_PEERS = ['central-log', 'rlf-redis', 'express-rate-limit'];

/** A process's CPU time so far (user + system), µs, from /proc; NaN where that cannot be read. */
function processCpuUs(pid: number | null): number {
  if (pid === null) return Number.NaN;
  try {
    // the fields after the command name, which is in parentheses and may hold spaces
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(f[11]) + Number(f[12]); // utime, stime (fields 14 and 15 of proc(5))
    return (ticks * 1e6) / CLOCK_TICKS;
  } catch {
    return Number.NaN;
  }
}
/** USER_HZ: 100 on every Linux that Node supports. */
const CLOCK_TICKS = 100;

export async function benchHttp(opts: {
  quick: boolean;
  redisPort: number;
  /** redis-server's PID, to read its CPU per request (null: not ours). */
  redisPid?: number | null;
}): Promise<HttpBench> {
  const connections = 32;
  // many short rounds rather than a few long ones: the noise is between runs, not within one
  const durationS = opts.quick ? 2 : 3;
  const rounds = opts.quick ? 1 : 12;
  const pin = pinning();
  const { child, ports, usage } = await startServers(opts.redisPort, pin?.server);
  /** One autocannon run against server n, with the server's CPU per request over it. */
  const measured = async (n: string): Promise<HttpRun> => {
    const before = await usage();
    const redisBefore = processCpuUs(opts.redisPid ?? null);
    const run = await autocannon(ports[n], connections, durationS, pin?.load);
    const after = await usage();
    const redisAfter = processCpuUs(opts.redisPid ?? null);
    const answered = after.served[n] - before.served[n];
    return {
      ...run,
      serverCpuUs: answered > 0 ? (after.cpuUs - before.cpuUs) / answered : Number.NaN,
      redisCpuUs: answered > 0 ? (redisAfter - redisBefore) / answered : Number.NaN,
    };
  };
  const names = Object.keys(ports);
  const runs: Record<string, HttpRun[]> = Object.fromEntries(names.map((n) => [n, []]));
  const loads: number[] = [];
  try {
    // warm up every server (the quick bench's single round is its own warm-up)
    if (!opts.quick) for (const n of names) await autocannon(ports[n], connections, 2, pin?.load);
    for (let r = 0; r < rounds; r++) {
      loads.push(load1());
      // each round starts one server later, so no server always runs right after the same one
      const results: Record<string, HttpRun> = {};
      for (let i = 0; i < names.length; i++) {
        const n = names[(r + i) % names.length];
        results[n] = await measured(n);
      }
      for (const n of names) runs[n].push(results[n]);
    }
  } finally {
    killChild(child);
    await exited(child);
  }
  const bareOf = (n: string) => (n.startsWith('express') ? 'express-bare' : 'bare');
  const perRound = (a: string, b: string) =>
    median(runs[a].map((x, i) => x.reqPerSec / runs[b][i].reqPerSec));
  const reqPerSec: Record<string, number> = {};
  const p99Ms: Record<string, number> = {};
  const ratioToBare: Record<string, number> = {};
  const non2xx: Record<string, number> = {};
  const errors: Record<string, number> = {};
  const serverCpuUs: Record<string, number> = {};
  const redisCpuUs: Record<string, number> = {};
  const capacityToBare: Record<string, number> = {};
  for (const n of names) {
    serverCpuUs[n] = median(runs[n].map((x) => x.serverCpuUs));
    redisCpuUs[n] = median(runs[n].map((x) => x.redisCpuUs));
    const b = bareOf(n);
    capacityToBare[n] = median(runs[n].map((x, i) => runs[b][i].serverCpuUs / x.serverCpuUs));
    reqPerSec[n] = median(runs[n].map((x) => x.reqPerSec));
    p99Ms[n] = median(runs[n].map((x) => x.p99Ms));
    ratioToBare[n] = perRound(n, bareOf(n));
    non2xx[n] = runs[n].reduce((s, x) => s + x.non2xx, 0);
    errors[n] = runs[n].reduce((s, x) => s + x.errors, 0);
  }
  const sharedCounterOver: Record<string, number> = {};
  for (const p of PER_REQUEST_PEERS) sharedCounterOver[p] = perRound('shared-counter', p);
  const cpuOf = (x: HttpRun) => x.serverCpuUs + x.redisCpuUs;
  const sharedCounterCapacityOver: Record<string, number> = {};
  for (const p of PER_REQUEST_PEERS) {
    sharedCounterCapacityOver[p] = median(runs[p].map((x, i) => cpuOf(x) / cpuOf(runs['shared-counter'][i])));
  }
  sharedCounterCapacityOver['express-rate-limit (Express vs Express)'] = median(
    runs['express-rate-limit'].map((x, i) => cpuOf(x) / cpuOf(runs['express-shared-counter'][i])),
  );
  sharedCounterOver['express-rate-limit (Express vs Express)'] = perRound(
    'express-shared-counter',
    'express-rate-limit',
  );
  return {
    connections,
    durationS,
    rounds,
    pinned: pin !== null,
    reqPerSec,
    p99Ms,
    ratioToBare,
    serverCpuUs,
    capacityToBare,
    sharedCounterOver,
    redisCpuUs,
    sharedCounterCapacityOver,
    non2xx,
    errors,
    runs,
    load1: loads,
  };
}
