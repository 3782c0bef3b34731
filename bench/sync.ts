/**
 * Sync cost: keys synced per second through RedisStore (one private redis-server, loopback), for N
 * changed keys each pushing ADMITS_PER_KEY admits (at distinct instants) and reading the window back
 * (a shared-counter sync), in exact and compact (buckets) mode; how long one script call (one chunk
 * of `chunkKeys` keys) holds Redis, from INFO commandstats (mean) and SLOWLOG (longest); what one
 * key-sync costs Redis's CPU (INFO cpu, user + sys, over the timed syncs) and the gateway's
 * (process.cpuUsage around store.sync: building the calls, parsing and applying the replies), with
 * the commands Redis ran per key (INFO commandstats, the ones scripts call included); and beside it
 * the floor: the same keys and admits as one pipeline of the plainest commands that could carry
 * them (exact: ZADD of the admits + ZCARD; buckets: HINCRBY + HGETALL), measured the same way. Then
 * the limit of the same commands on the same server from redis-benchmark: a bare Lua script doing
 * the per-key commands the store's sync did before issue 19 (100 keys per EVALSHA, as one chunk),
 * a trivial EVALSHA, and a plain ZADD.
 */
import { spawnSync } from 'node:child_process';
import { Redis } from 'ioredis';
import type { SyncEntry, SyncRequest } from '../dist/index.js';
import { makePolicy } from '../dist/index.js';
import { RedisStore } from '../dist/store/redis/index.js';
import { HOLD_SLOWLOG_US } from './hold-slowlog.js';
import { median } from './util.js';

export interface SyncModeResult {
  mode: 'exact' | 'buckets';
  changedKeys: number;
  /** Median over repetitions of keys / wall time of one whole sync (all chunks, one pipeline). */
  keysPerSecond: number;
  /** Median wall time of one whole sync, ms. */
  syncMs: number;
  /** Script calls per sync (chunks of chunkKeys keys). */
  callsPerSync: number;
  /** Mean Redis time of one sync script call (one chunk), µs, from INFO commandstats. */
  holdUsMean: number;
  /** Longest single sync script call seen in SLOWLOG, µs. */
  holdUsMax: number;
  /** Redis time per key, µs (commandstats). */
  redisUsPerKey: number;
  /** Admits each key pushes per sync. */
  admitsPerKey: number;
  /** Redis CPU per key-sync, µs: INFO cpu (used_cpu_user + used_cpu_sys) over the timed syncs. */
  redisCpuUsPerKey: number;
  /** The gateway's CPU per key-sync, µs: process.cpuUsage around store.sync. */
  gatewayCpuUsPerKey: number;
  /** Per Redis command (scripts' redis.call included): calls and µs per key-sync (commandstats). */
  commands: Record<string, { callsPerKey: number; usPerKey: number }>;
  /** The same keys and admits as a pipeline of plain commands, measured the same way. */
  floor: FloorResult;
}

export interface FloorResult {
  /** The commands per key, e.g. "ZADD key t m t m t m; ZCARD key". */
  commands: string;
  redisCpuUsPerKey: number;
  gatewayCpuUsPerKey: number;
  /** Redis time per key, µs (commandstats). */
  redisUsPerKey: number;
}

/** Admits each key pushes per sync, at distinct instants (a few: the issue's key-sync). */
export const ADMITS_PER_KEY = 3;

export interface RedisBenchResult {
  /** What redis-benchmark ran. */
  command: string;
  requestsPerSecond: number;
  /** Keys per request (the bare sync scripts do 100 keys per call). */
  keysPerRequest: number;
  /** requestsPerSecond × keysPerRequest. */
  keysPerSecond: number;
  /** Redis time per call, µs (commandstats). */
  usPerCall: number;
}

export interface SyncBench {
  chunkKeys: number;
  redisVersion: string;
  results: SyncModeResult[];
  redisBenchmark: Record<string, RedisBenchResult>;
  /** keysPerSecond by "mode/changedKeys", e.g. "exact/1000". */
  keysPerSecond: Record<string, number>;
  /** Redis CPU per key-sync by "mode/changedKeys", µs; the floor's under "floor/mode/changedKeys". */
  redisCpuUsPerKey: Record<string, number>;
  /** Gateway CPU per key-sync by "mode/changedKeys", µs. */
  gatewayCpuUsPerKey: Record<string, number>;
}

// The commands one key costs in sync.lua (exact): the meta hash read, prune (ZREMRANGEBYSCORE +
// ZRANGEBYSCORE near the window's start + ZCARD), ZADD, the expiries up to the horizon, the meta
// write and two PEXPIREs; without the parsing and bookkeeping. 100 keys per call.
const BARE_EXACT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
for i = 1, #KEYS do
  local k = KEYS[i]
  local m = k .. ':m'
  redis.call('HGETALL', m)
  redis.call('ZREMRANGEBYSCORE', k, '-inf', '(' .. (now - 60000))
  redis.call('ZRANGEBYSCORE', k, '-inf', now - 59000, 'WITHSCORES')
  redis.call('ZCARD', k)
  redis.call('ZADD', k, now, now .. ':' .. ARGV[1])
  redis.call('ZRANGEBYSCORE', k, '-inf', now - 56000, 'WITHSCORES')
  redis.call('HSET', m, 'q:gw', ARGV[1])
  redis.call('PEXPIRE', k, 65000)
  redis.call('PEXPIRE', m, 65000)
end
return now`;
// The same for the compact log: a hash of sub-window counts read whole and one field written.
const BARE_BUCKETS = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
for i = 1, #KEYS do
  local k = KEYS[i]
  local m = k .. ':m'
  redis.call('HGETALL', m)
  redis.call('HGETALL', k)
  redis.call('HSET', k, tostring(math.floor(now / 1000)), '1:' .. now)
  redis.call('HSET', m, 'q:gw', ARGV[1])
  redis.call('PEXPIRE', k, 65000)
  redis.call('PEXPIRE', m, 65000)
end
return now`;

function parseInfo(text: string): Record<string, Record<string, number>> {
  const out: Record<string, Record<string, number>> = {};
  for (const line of text.split('\r\n')) {
    const m = /^cmdstat_([^:]+):(.*)$/.exec(line);
    if (m === null) continue;
    const fields: Record<string, number> = {};
    for (const kv of m[2].split(',')) {
      const [k, v] = kv.split('=');
      fields[k] = Number(v);
    }
    out[m[1]] = fields;
  }
  return out;
}

async function commandStats(client: Redis): Promise<Record<string, Record<string, number>>> {
  return parseInfo(await client.info('commandstats'));
}

/** Seconds of CPU the server has used (user + sys), from INFO cpu. */
async function redisCpuSeconds(client: Redis): Promise<number> {
  const text = await client.info('cpu');
  const user = Number(/used_cpu_user:([\d.]+)/.exec(text)?.[1]);
  const sys = Number(/used_cpu_sys:([\d.]+)/.exec(text)?.[1]);
  return user + sys;
}

function cpuUs(): number {
  const u = process.cpuUsage();
  return u.user + u.system;
}

/** Calls and µs per key-sync of every command commandstats counted (the INFO calls left out). */
function perKey(
  stats: Record<string, Record<string, number>>,
  keySyncs: number,
): Record<string, { callsPerKey: number; usPerKey: number }> {
  const out: Record<string, { callsPerKey: number; usPerKey: number }> = {};
  for (const [cmd, f] of Object.entries(stats)) {
    if (cmd === 'info' || cmd === 'config' || cmd === 'slowlog') continue;
    out[cmd] = { callsPerKey: f.calls / keySyncs, usPerKey: f.usec / keySyncs };
  }
  return out;
}

function entriesFor(prefix: string, n: number, t: number): SyncEntry[] {
  const entries: SyncEntry[] = [];
  for (let i = 0; i < n; i++) {
    const admits: number[] = [];
    for (let a = ADMITS_PER_KEY - 1; a >= 0; a--) admits.push(t - a);
    entries.push({ key: `${prefix}${i}`, admits, read: true, release: false, ask: 0 });
  }
  return entries;
}

/**
 * The floor: the same n keys, ADMITS_PER_KEY admits each, as one ioredis pipeline of the plainest
 * commands that push them and read a count back. Members are made unique by a per-run counter.
 */
async function benchFloor(
  client: Redis,
  mode: 'exact' | 'buckets',
  n: number,
  reps: number,
): Promise<FloorResult> {
  const prefix = `floor:${mode[0]}${n}:`;
  let run = 0;
  const once = async () => {
    run++;
    const t = Date.now();
    const p = client.pipeline();
    for (let i = 0; i < n; i++) {
      const key = `${prefix}${i}`;
      if (mode === 'exact') {
        const args: (string | number)[] = [];
        for (let a = ADMITS_PER_KEY - 1; a >= 0; a--) args.push(t - a, `${run}*${a}`);
        p.zadd(key, ...args);
        p.zcard(key);
      } else {
        p.hincrby(key, String(Math.floor(t / 1000)), ADMITS_PER_KEY);
        p.hgetall(key);
      }
    }
    await p.exec();
  };
  await once();
  await client.config('RESETSTAT');
  let gw = 0;
  const cpu0 = await redisCpuSeconds(client);
  for (let r = 0; r < reps; r++) {
    const c = cpuUs();
    await once();
    gw += cpuUs() - c;
  }
  const cpu1 = await redisCpuSeconds(client);
  const stats = await commandStats(client);
  let usec = 0;
  for (const [cmd, f] of Object.entries(stats)) if (cmd !== 'info' && cmd !== 'config') usec += f.usec;
  return {
    commands:
      mode === 'exact'
        ? `ZADD key${' t m'.repeat(ADMITS_PER_KEY)}; ZCARD key`
        : `HINCRBY key bucket ${ADMITS_PER_KEY}; HGETALL key`,
    redisCpuUsPerKey: ((cpu1 - cpu0) * 1e6) / (reps * n),
    gatewayCpuUsPerKey: gw / (reps * n),
    redisUsPerKey: usec / (reps * n),
  };
}

export async function benchSync(opts: {
  quick: boolean;
  port: number;
  redisBenchmark?: boolean;
}): Promise<SyncBench> {
  const client = new Redis({
    host: '127.0.0.1',
    port: opts.port,
    lazyConnect: false,
    maxRetriesPerRequest: 1,
  });
  try {
    const sizes = [1000, 10_000];
    const reps = opts.quick ? 2 : 9;
    const policy = makePolicy(1_000_000_000, 60_000, 'sliding');
    const results: SyncModeResult[] = [];
    const keysPerSecond: Record<string, number> = {};
    const redisCpuUsPerKey: Record<string, number> = {};
    const gatewayCpuUsPerKey: Record<string, number> = {};
    let chunkKeys = 100;
    await client.config('SET', 'slowlog-max-len', '10000');
    for (const mode of ['exact', 'buckets'] as const) {
      for (const n of sizes) {
        const store = new RedisStore(client, { mode, prefix: `bs${mode[0]}${n}:` });
        chunkKeys = store.options.chunkKeys;
        let seq = 0;
        let gatewayCpu = 0;
        const once = async () => {
          const req: SyncRequest = {
            gatewayId: 'gw-1',
            seq: ++seq,
            policy,
            leaseTtlMs: 3000,
            horizonMs: 4000,
            entries: entriesFor('user:', n, Date.now()),
          };
          const c = cpuUs();
          const t = process.hrtime.bigint();
          await store.sync(req, Date.now());
          const wall = Number(process.hrtime.bigint() - t) / 1e6;
          gatewayCpu += cpuUs() - c;
          return wall;
        };
        await once(); // creates the keys and loads the script
        if (!opts.quick) await once();
        await client.config('RESETSTAT');
        await client.config('SET', 'slowlog-log-slower-than', String(HOLD_SLOWLOG_US));
        await client.slowlog('RESET');
        const ms: number[] = [];
        gatewayCpu = 0;
        const cpu0 = await redisCpuSeconds(client);
        for (let r = 0; r < reps; r++) ms.push(await once());
        const cpu1 = await redisCpuSeconds(client);
        await client.config('SET', 'slowlog-log-slower-than', '10000');
        const all = await commandStats(client);
        const stats = all.evalsha ?? { calls: 0, usec: 0 };
        const slow = (await client.slowlog('GET', 10000)) as [number, number, number, string[]][];
        let holdUsMax = 0;
        for (const e of slow)
          if (String(e[3]?.[0]).toLowerCase() === 'evalsha') holdUsMax = Math.max(holdUsMax, e[2]);
        const med = median(ms);
        const r: SyncModeResult = {
          mode,
          changedKeys: n,
          keysPerSecond: n / (med / 1000),
          syncMs: med,
          callsPerSync: stats.calls / reps,
          holdUsMean: stats.calls > 0 ? stats.usec / stats.calls : Number.NaN,
          holdUsMax,
          redisUsPerKey: stats.usec / (reps * n),
          admitsPerKey: ADMITS_PER_KEY,
          redisCpuUsPerKey: ((cpu1 - cpu0) * 1e6) / (reps * n),
          gatewayCpuUsPerKey: gatewayCpu / (reps * n),
          commands: perKey(all, reps * n),
          floor: await benchFloor(client, mode, n, reps),
        };
        results.push(r);
        keysPerSecond[`${mode}/${n}`] = r.keysPerSecond;
        redisCpuUsPerKey[`${mode}/${n}`] = r.redisCpuUsPerKey;
        redisCpuUsPerKey[`floor/${mode}/${n}`] = r.floor.redisCpuUsPerKey;
        gatewayCpuUsPerKey[`${mode}/${n}`] = r.gatewayCpuUsPerKey;
      }
    }
    const redisBenchmark =
      opts.redisBenchmark === false ? {} : await runRedisBenchmark(client, opts.port, opts.quick);
    const info = await client.info('server');
    const redisVersion = /redis_version:(\S+)/.exec(info)?.[1] ?? 'unknown';
    return {
      chunkKeys,
      redisVersion,
      results,
      redisBenchmark,
      keysPerSecond,
      redisCpuUsPerKey,
      gatewayCpuUsPerKey,
    };
  } finally {
    client.disconnect();
  }
}

async function runRedisBenchmark(
  client: Redis,
  port: number,
  quick: boolean,
): Promise<Record<string, RedisBenchResult>> {
  const n = quick ? 20_000 : 200_000;
  const keys100 = (p: string) => Array.from({ length: 100 }, (_, i) => `${p}${i}`);
  const exactSha = (await client.script('LOAD', BARE_EXACT)) as string;
  const bucketsSha = (await client.script('LOAD', BARE_BUCKETS)) as string;
  const trivialSha = (await client.script('LOAD', 'return 1')) as string;
  const cases: Record<string, { args: string[]; keys: number; n: number; cmd: string }> = {
    'bare-sync-exact': {
      args: ['evalsha', exactSha, '100', ...keys100('rbe:'), '__rand_int__'],
      keys: 100,
      n: Math.max(1000, n / 50),
      cmd: 'evalsha',
    },
    'bare-sync-buckets': {
      args: ['evalsha', bucketsSha, '100', ...keys100('rbb:'), '__rand_int__'],
      keys: 100,
      n: Math.max(1000, n / 50),
      cmd: 'evalsha',
    },
    'evalsha-trivial': { args: ['evalsha', trivialSha, '0'], keys: 1, n, cmd: 'evalsha' },
    zadd: { args: ['zadd', 'rbz:__rand_int__', '__rand_int__', '__rand_int__'], keys: 1, n, cmd: 'zadd' },
  };
  const out: Record<string, RedisBenchResult> = {};
  for (const [name, c] of Object.entries(cases)) {
    await client.config('RESETSTAT');
    const r = spawnSync(
      'redis-benchmark',
      [
        '-h',
        '127.0.0.1',
        '-p',
        String(port),
        '-n',
        String(c.n),
        '-P',
        '16',
        '-c',
        '16',
        '-r',
        '10000',
        '-q',
        ...c.args,
      ],
      { encoding: 'utf8', timeout: 120_000 },
    );
    const text = `${r.stdout}`;
    // -q prints "<cmd>: <rps> requests per second, p50=..." on its last update line
    const m =
      /([\d.]+) requests per second/.exec(text.split('\r').pop() ?? text) ??
      /([\d.]+) requests per second/.exec(text);
    const rps = m === null ? Number.NaN : Number(m[1]);
    const st = (await commandStats(client))[c.cmd] ?? { usec_per_call: Number.NaN };
    out[name] = {
      command: `redis-benchmark -P 16 -c 16 -r 10000 -n ${c.n} ${c.args[0]} ${name.startsWith('bare') ? `<${name} script> 100 <100 keys> __rand_int__` : c.args.slice(1).join(' ')}`,
      requestsPerSecond: rps,
      keysPerRequest: c.keys,
      keysPerSecond: rps * c.keys,
      usPerCall: st.usec_per_call,
    };
  }
  return out;
}
