/**
 * Issue 32, item 3: with `gateways: 'auto'`, one gateway's liveness window pruned everyone's. Three
 * AsyncGateways with Δ = 1 s and one with a short Δ (20 ms by default), each on its own connection to
 * a private redis-server on loopback, share one limit; a flood of 20 × L per W on one key is spread
 * evenly over the four. Over-admission (admitted per W and the worst W after the first, × L, by each
 * admit's store time) and the mean K each gateway used (the fleet is 4), for a fixed K = 4 and for
 * `gateways: 'auto'`. Issue, on main: auto admitted 1.68 × L per W (worst 1.84); fixed K 1.00.
 *
 *   nice node --import tsx bench/probes/auto-mixed-sync.ts                 # split, Δ = 20 ms, 30 s per run
 *   nice node --import tsx bench/probes/auto-mixed-sync.ts --fast-ms 100 --design assume-others
 *
 * Setting: L = 100 per W = 5 s (sliding), storeTimeoutMs 200. Bounded: --seconds per run (at most
 * 120), requests at most twice the flood's rate over the run.
 */
import { Redis } from 'ioredis';
import type { DesignId } from '../../src/config.js';
import { startRedisServer } from '../../src/fleet/redis-server.js';
import type { Decision } from '../../src/gateway/decision.js';
import { type AsyncGateway, createAsyncGateway } from '../../src/gateway/runtime/index.js';
import { Random } from '../../src/sim/random.js';
import { RedisStore } from '../../src/store/redis/index.js';

const flag = (name: string, def: string): string => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? (process.argv[i + 1] ?? def) : def;
};
const SECONDS = Math.min(120, Number(flag('seconds', '30')));
const FAST_MS = Number(flag('fast-ms', '20'));
const DESIGN = flag('design', 'split') as DesignId;
const L = 100;
const W = 5_000;
const SLOW_MS = 1_000;
const FLOOD = 20;
const TICK_MS = 10;
const SYNC_MS = [SLOW_MS, SLOW_MS, SLOW_MS, FAST_MS];
const MAX_REQUESTS = Math.ceil(((2 * FLOOD * L) / W) * SECONDS * 1000);

async function run(url: string, configured: 4 | 'auto', seed: number) {
  const prefix = `fl:auto-mixed:${process.pid}:${configured}:`;
  const fleet: { gw: AsyncGateway; client: Redis }[] = SYNC_MS.map((syncMs, i) => {
    const client = new Redis(url, { maxRetriesPerRequest: null });
    client.on('error', () => {});
    const gw = createAsyncGateway({
      id: `gw-${i}-${syncMs}ms`,
      design: DESIGN,
      limit: L,
      windowMs: W,
      gateways: configured,
      syncMs,
      storeTimeoutMs: 200,
      store: new RedisStore(client, { prefix }),
    });
    gw.start();
    return { gw, client };
  });
  const rng = new Random(seed);
  const admits: number[] = [];
  const kSum = [0, 0, 0, 0];
  const kN = [0, 0, 0, 0];
  let requests = 0;
  const pending = new Set<Promise<void>>();
  const start = Date.now();
  const end = start + SECONDS * 1000;
  let owed = 0;
  while (Date.now() < end && requests < MAX_REQUESTS) {
    owed += ((FLOOD * L) / W) * TICK_MS;
    for (; owed >= 1 && requests < MAX_REQUESTS; owed--) {
      requests++;
      const i = Math.min(3, Math.floor(rng.uniform() * 4));
      const { gw } = fleet[i];
      kSum[i] += gw.stats().gateways;
      kN[i]++;
      const count = (d: Decision) => {
        if (d.allowed && d.at !== undefined) admits.push(d.at);
      };
      const d = gw.admitNow('k');
      if (d instanceof Promise) {
        const p = d.then(count, () => {}).finally(() => pending.delete(p));
        pending.add(p);
      } else count(d);
    }
    await new Promise((r) => setTimeout(r, TICK_MS));
  }
  await Promise.all(pending);
  for (const m of fleet) {
    await m.gw.stop();
    m.client.disconnect();
  }
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
    meanK: kSum.map((s, i) => (kN[i] > 0 ? s / kN[i] : Number.NaN)),
    requests,
  };
}

const redis = await startRedisServer();
try {
  console.log(
    `${DESIGN}, L = ${L} per ${W / 1000} s, three gateways at Δ = ${SLOW_MS} ms and one at Δ = ${FAST_MS} ms, flood ${FLOOD} × L per W, ${SECONDS} s per run`,
  );
  console.log(
    '| K | admitted per W (× L) | worst W after the first (× L) | mean K used (Δ = 1 s ×3, fast) | requests |',
  );
  console.log('|---|---|---|---|---|');
  for (const configured of [4, 'auto'] as const) {
    const r = await run(redis.url, configured, 1);
    console.log(
      `| ${configured === 'auto' ? 'auto' : '4 fixed'} | ${r.admittedPerWindow.toFixed(3)} | ${r.worstWindow.toFixed(2)} | ` +
        `${r.meanK.map((k) => k.toFixed(2)).join(', ')} | ${r.requests} |`,
    );
  }
} finally {
  await redis.stop();
}
