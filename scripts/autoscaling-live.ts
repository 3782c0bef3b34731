/**
 * K follows the fleet, in real time on a real redis-server (docs/autoscaling.md): AsyncGateways of
 * this process, each on its own Redis connection, join and stop on a schedule while a flood is spread
 * over the live ones. Over-admission (admitted per W and the worst W, × L, by each admit's store
 * time) and K used ÷ live K, for a fixed K and for `gateways: 'auto'`. A private redis-server on
 * loopback; every run is bounded in time and in requests. Gateway processes starting and stopping:
 * `fleetlimit fleet --scale K@T [--auto-gateways]`.
 *
 *   npx tsx scripts/autoscaling-live.ts                # split and assume-others, 40 s per run
 *   npx tsx scripts/autoscaling-live.ts --seconds 20   # quicker
 *
 * Setting: L = 100 per W = 5 s (sliding), Δ = 250 ms, storeTimeoutMs 200, a flood of 20 × L per W;
 * the fleet runs 4 gateways, 8 from 25 % of the run, 2 from 50 %, 4 again from 75 %.
 */
import { Redis } from 'ioredis';
import type { DesignId } from '../src/config.js';
import { startRedisServer } from '../src/fleet/redis-server.js';
import type { Decision } from '../src/gateway/decision.js';
import { type AsyncGateway, createAsyncGateway } from '../src/gateway/runtime/index.js';
import { Random } from '../src/sim/random.js';
import { RedisStore } from '../src/store/redis/index.js';

const arg = (name: string, def: number): number => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : def;
};
const SECONDS = arg('seconds', 40);
const L = 100;
const W = 5_000;
const D = 250;
const FLOOD = 20;
const TICK_MS = 10;
const K = 4;
const SCHEDULE = [
  { at: 0, k: K },
  { at: 0.25, k: 2 * K },
  { at: 0.5, k: K / 2 },
  { at: 0.75, k: K },
];
/** Hard bound on requests per run: twice what the flood's rate asks for. */
const MAX_REQUESTS = Math.ceil(((2 * FLOOD * L) / W) * SECONDS * 1000);

interface Member {
  gw: AsyncGateway;
  client: Redis;
}

async function run(url: string, design: DesignId, configured: number | 'auto', seed: number) {
  const prefix = `fl:autoscale:${process.pid}:${design}:${configured}:`;
  const live: Member[] = [];
  const join = () => {
    const client = new Redis(url, { maxRetriesPerRequest: null });
    client.on('error', () => {});
    const gw = createAsyncGateway({
      id: `gw-${live.length}-${Math.random().toString(36).slice(2, 8)}`,
      design,
      limit: L,
      windowMs: W,
      gateways: configured,
      syncMs: D,
      storeTimeoutMs: 200,
      store: new RedisStore(client, { prefix }),
    });
    gw.start();
    live.push({ gw, client });
  };
  const leave = async () => {
    const m = live.pop()!;
    await m.gw.stop();
    m.client.disconnect();
  };
  const rng = new Random(seed);
  const admits: number[] = [];
  let requests = 0;
  let kRatioSum = 0;
  let decided = 0;
  const pending = new Set<Promise<void>>();
  const start = Date.now();
  const end = start + SECONDS * 1000;
  let step = 0;
  let owed = 0;
  while (Date.now() < end && requests < MAX_REQUESTS) {
    const t = (Date.now() - start) / (SECONDS * 1000);
    while (step < SCHEDULE.length && SCHEDULE[step].at <= t) {
      const k = SCHEDULE[step++].k;
      while (live.length < k) join();
      while (live.length > k) await leave();
    }
    owed += ((FLOOD * L) / W) * TICK_MS;
    for (; owed >= 1 && requests < MAX_REQUESTS; owed--) {
      requests++;
      const m = live[Math.min(live.length - 1, Math.floor(rng.uniform() * live.length))];
      const k = m.gw.stats().gateways;
      const count = (d: Decision) => {
        decided++;
        kRatioSum += k / live.length;
        if (d.allowed && d.at !== undefined) admits.push(d.at);
      };
      const d = m.gw.admitNow('k');
      if (d instanceof Promise) {
        const p = d.then(count, () => {}).finally(() => pending.delete(p));
        pending.add(p);
      } else count(d);
    }
    await new Promise((r) => setTimeout(r, TICK_MS));
  }
  await Promise.all(pending);
  while (live.length > 0) await leave();
  admits.sort((a, b) => a - b);
  const t0 = admits[0] ?? 0;
  const after = admits.filter((a) => a >= t0 + W);
  const span = SECONDS * 1000 - W;
  let worst = 0;
  for (let i = 0, j = 0; j < after.length; j++) {
    while (after[j] - after[i] >= W) i++;
    worst = Math.max(worst, j - i + 1);
  }
  return {
    admittedPerWindow: after.length / (span / W) / L,
    worstWindow: worst / L,
    kRatio: decided > 0 ? kRatioSum / decided : 1,
    requests,
  };
}

const redis = await startRedisServer();
try {
  console.log(
    '| design | K | flood: admitted per W (× L) | flood: worst W after the first (× L) | K used ÷ live K | requests |',
  );
  console.log('|---|---|---|---|---|---|');
  for (const design of ['split', 'assume-others'] as DesignId[]) {
    for (const configured of [K, 'auto'] as const) {
      const r = await run(redis.url, design, configured, 1);
      console.log(
        `| ${design} | ${configured === 'auto' ? 'auto' : `${configured} fixed`} | ${r.admittedPerWindow.toFixed(3)} | ` +
          `${r.worstWindow.toFixed(2)} | ${r.kRatio.toFixed(2)} | ${r.requests} |`,
      );
    }
  }
} finally {
  await redis.stop();
}
