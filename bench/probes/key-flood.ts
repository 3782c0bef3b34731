/**
 * Issue 19, "a key flood must not starve honest keys", on a private redis-server: K gateways
 * (shared-counter, RedisStore, one process) take one honest key at 80 % of its limit (Poisson
 * arrivals, seeded, each to a random gateway) while a flood of new distinct keys (one admit each,
 * round-robin over the gateways) arrives at RATE a second; the same run without the flood, with the
 * same honest schedule, is its twin. Each gateway's sync rounds run as its timer would (every Δ at a
 * random phase, a tick that finds a round running skips). Prints, per seed and run: the honest key's
 * rejections, degraded decisions, store-down time, the sync rounds' durations, the longest gap between
 * two replies the honest key's state applied (its view's age), heap and held keys against maxKeys;
 * then the flood's effect on the honest rejections: the paired difference per BLOCK s block of the
 * same arrivals, mean and 95 % t-interval over every block of every seed.
 *
 *   node --import tsx bench/probes/key-flood.ts [seconds=60] [rate=1000] [k=3] [seeds=1,2]
 *     [limit=100] [windowMs=10000] [syncMs=250] [timeoutMs=200] [maxKeys=40000] [block=10]
 *
 * Bounded: every run ends after `seconds` plus a drain of at most 5 s; the flood sends at most
 * rate × seconds keys.
 */

import { loadavg } from 'node:os';
import type { KeyLimiter } from '../../src/designs/key-limiter.js';
import { startRedisServer } from '../../src/fleet/redis-server.js';
import { type AsyncGateway, createAsyncGateway } from '../../src/gateway/runtime/index.js';
import { Random } from '../../src/sim/random.js';
import { RedisStore } from '../../src/store/redis/index.js';
import { gatewayClient, ready } from '../../test/support/fault-fleet.js';

const arg = (name: string, dflt: string): string => {
  const a = process.argv.slice(2).find((x) => x.startsWith(`${name}=`));
  return a === undefined ? dflt : a.slice(name.length + 1);
};
const SECONDS = Number(arg('seconds', '60'));
const RATE = Number(arg('rate', '1000'));
const K = Number(arg('k', '3'));
const SEEDS = arg('seeds', '1,2').split(',').map(Number);
const LIMIT = Number(arg('limit', '100'));
const WINDOW_MS = Number(arg('windowMs', '10000'));
const SYNC_MS = Number(arg('syncMs', '250'));
const TIMEOUT_MS = Number(arg('timeoutMs', '200'));
const MAX_KEYS = Number(arg('maxKeys', '40000'));
const BLOCK_S = Number(arg('block', '10'));
const TICK_MS = 5;
const LOAD = 0.8;

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

interface RunResult {
  honestSent: number;
  honestRejected: number;
  /** Per block of BLOCK_S s: [sent, rejected]. */
  blocks: [number, number][];
  degraded: number;
  storeDownMs: number;
  floodSent: number;
  floodRejected: number;
  rounds: number[];
  /** The longest gap between two syncs applied to the honest key's state, ms. */
  honestViewGapMs: number;
  heapMaxMB: number;
  heldMax: number;
  partFailures: number;
}

/** The honest arrivals: times (ms from the start) and the gateway each goes to. */
function honestSchedule(seed: number): { at: number; gw: number }[] {
  const rnd = new Random(seed);
  const rate = (LOAD * LIMIT) / WINDOW_MS; // per ms
  const out: { at: number; gw: number }[] = [];
  for (let t = rnd.exponential(rate); t < SECONDS * 1000; t += rnd.exponential(rate))
    out.push({ at: t, gw: Math.floor(rnd.uniform() * K) });
  return out;
}

async function run(url: string, seed: number, flood: boolean): Promise<RunResult> {
  const prefix = `kf${seed}${flood ? 'f' : 'n'}${Date.now() % 1e6}:`;
  const phase = new Random(seed * 7 + 1);
  const clients = await Promise.all(Array.from({ length: K }, () => ready(gatewayClient(url, TIMEOUT_MS))));
  const gws: AsyncGateway[] = clients.map((c, i) =>
    createAsyncGateway({
      id: `gw-${i}`,
      design: 'shared-counter',
      limit: LIMIT,
      windowMs: WINDOW_MS,
      gateways: K,
      syncMs: SYNC_MS,
      storeTimeoutMs: TIMEOUT_MS,
      maxKeys: MAX_KEYS,
      store: new RedisStore(c, { prefix }),
    }),
  );
  let partFailures = 0;
  for (const g of gws) g.on('syncError', () => partFailures++);
  // the first sync brings Redis's clock
  for (const g of gws) for (let i = 0; i < 5 && !(await g.syncNow()); i++);
  partFailures = 0;

  // the honest key's view: when a sync reply reaches its state (see KeyLimiter.applySync)
  let lastApply = Number.NaN;
  let viewGap = 0;
  const watched = new WeakSet<KeyLimiter>();
  const watch = () => {
    for (const g of gws) {
      const lim = g.limiterFor('honest');
      if (lim === undefined || watched.has(lim)) continue;
      watched.add(lim);
      const apply = lim.applySync.bind(lim);
      lim.applySync = (...a: Parameters<KeyLimiter['applySync']>) => {
        const t = performance.now();
        // gaps of any of the K states: each ages between its own replies
        if (!Number.isNaN(lastApply)) viewGap = Math.max(viewGap, t - lastApply);
        lastApply = t;
        return apply(...a);
      };
    }
  };

  const r: RunResult = {
    honestSent: 0,
    honestRejected: 0,
    blocks: Array.from({ length: Math.ceil(SECONDS / BLOCK_S) }, () => [0, 0] as [number, number]),
    degraded: 0,
    storeDownMs: 0,
    floodSent: 0,
    floodRejected: 0,
    rounds: [],
    honestViewGapMs: 0,
    heapMaxMB: 0,
    heldMax: 0,
    partFailures: 0,
  };
  const schedule = honestSchedule(seed);
  const t0 = performance.now();
  const end = t0 + SECONDS * 1000;
  // each gateway's rounds, as its timer runs them (a tick that finds one running skips)
  const running: (Promise<boolean> | null)[] = gws.map(() => null);
  const timers = gws.map((g, i) => {
    const tick = () => {
      if (running[i] !== null) return;
      const s = performance.now();
      running[i] = g.syncNow().finally(() => {
        r.rounds.push(performance.now() - s);
        running[i] = null;
      });
    };
    let every: ReturnType<typeof setInterval> | undefined;
    const first = setTimeout(() => {
      tick();
      every = setInterval(tick, SYNC_MS);
    }, phase.uniform() * SYNC_MS);
    return () => {
      clearTimeout(first);
      if (every !== undefined) clearInterval(every);
    };
  });

  let next = 0;
  let floodN = 0;
  const pending: Promise<unknown>[] = [];
  while (performance.now() < end) {
    const now = performance.now() - t0;
    for (; next < schedule.length && schedule[next].at <= now; next++) {
      const { at, gw } = schedule[next];
      const block = Math.floor(at / (BLOCK_S * 1000));
      pending.push(
        Promise.resolve(gws[gw].admitNow('honest')).then((d) => {
          r.honestSent++;
          r.blocks[block][0]++;
          if (!d.allowed) {
            r.honestRejected++;
            r.blocks[block][1]++;
          }
          if (d.degraded) r.degraded++;
        }),
      );
    }
    if (flood) {
      const due = Math.floor((now * RATE) / 1000);
      for (; floodN < due; floodN++) {
        pending.push(
          Promise.resolve(gws[floodN % K].admitNow(`flood-${floodN}`)).then((d) => {
            r.floodSent++;
            if (!d.allowed) r.floodRejected++;
          }),
        );
      }
    }
    await Promise.all(pending.splice(0));
    watch();
    if (gws.some((g) => g.stats().storeDown)) r.storeDownMs += TICK_MS;
    const held = gws.reduce((m, g) => Math.max(m, g.stats().keys), 0);
    r.heldMax = Math.max(r.heldMax, held);
    r.heapMaxMB = Math.max(r.heapMaxMB, process.memoryUsage().heapUsed / 2 ** 20);
    await sleep(TICK_MS);
  }
  for (const stop of timers) stop();
  const drainEnd = performance.now() + 5_000;
  for (const p of running)
    if (p !== null) await Promise.race([p, sleep(Math.max(0, drainEnd - performance.now()))]);
  for (const g of gws) await Promise.race([g.stop(), sleep(Math.max(0, drainEnd - performance.now()))]);
  for (const c of clients) c.disconnect();
  r.honestViewGapMs = viewGap;
  r.partFailures = partFailures;
  return r;
}

const pct = (a: number, b: number) => (b === 0 ? 0 : (100 * a) / b);
const quantile = (xs: number[], q: number) => {
  if (xs.length === 0) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
};
/** Two-sided 95 % Student t quantiles by degrees of freedom (1..30; 1.96 past). */
const T95 = [
  12.71, 4.3, 3.18, 2.78, 2.57, 2.45, 2.36, 2.31, 2.26, 2.23, 2.2, 2.18, 2.16, 2.14, 2.13, 2.12, 2.11, 2.1,
  2.09, 2.09, 2.08, 2.07, 2.07, 2.06, 2.06, 2.06, 2.05, 2.05, 2.05, 2.04,
];

const server = await startRedisServer();
try {
  console.log(
    `key flood: K=${K}, L=${LIMIT} per ${WINDOW_MS} ms, Δ=${SYNC_MS} ms, store timeout ${TIMEOUT_MS} ms, maxKeys ${MAX_KEYS}; honest ${LOAD * 100} % of L (Poisson), flood ${RATE} new keys/s for ${SECONDS} s; seeds ${SEEDS.join(',')}; load average ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}`,
  );
  console.log(
    'seed | run | honest rejected | degraded | store-down ms | part failures | rounds p50/p99/max ms | honest view gap max ms | flood keys (rejected) | held max / maxKeys | heap max MB',
  );
  const diffs: number[] = [];
  let base = [0, 0];
  let flooded = [0, 0];
  for (const seed of SEEDS) {
    const res: Record<string, RunResult> = {};
    for (const flood of [false, true]) {
      const r = await run(server.url, seed, flood);
      res[flood ? 'flood' : 'none'] = r;
      console.log(
        `${seed} | ${flood ? 'flood' : 'none'} | ${r.honestRejected}/${r.honestSent} = ${pct(r.honestRejected, r.honestSent).toFixed(2)} % | ${r.degraded} | ${r.storeDownMs} | ${r.partFailures} | ${quantile(r.rounds, 0.5).toFixed(0)}/${quantile(r.rounds, 0.99).toFixed(0)}/${Math.max(...r.rounds).toFixed(0)} | ${r.honestViewGapMs.toFixed(0)} | ${r.floodSent} (${r.floodRejected}) | ${r.heldMax} / ${MAX_KEYS} | ${r.heapMaxMB.toFixed(0)}`,
      );
    }
    const a = res.none;
    const b = res.flood;
    base = [base[0] + a.honestRejected, base[1] + a.honestSent];
    flooded = [flooded[0] + b.honestRejected, flooded[1] + b.honestSent];
    // the same arrivals in both runs: a block's difference is the flood's effect on those requests
    for (let i = 0; i < a.blocks.length; i++) {
      if (a.blocks[i][0] === 0 || b.blocks[i][0] === 0) continue;
      diffs.push(pct(b.blocks[i][1], b.blocks[i][0]) - pct(a.blocks[i][1], a.blocks[i][0]));
    }
  }
  const n = diffs.length;
  const mean = diffs.reduce((s, x) => s + x, 0) / n;
  const sd = Math.sqrt(diffs.reduce((s, x) => s + (x - mean) ** 2, 0) / Math.max(1, n - 1));
  const half = (n > 1 ? (T95[n - 2] ?? 1.96) : Number.NaN) * (sd / Math.sqrt(n));
  console.log(
    `honest rejections: no flood ${pct(base[0], base[1]).toFixed(2)} %, flood ${pct(flooded[0], flooded[1]).toFixed(2)} %; flood minus no flood, per ${BLOCK_S} s block of the same arrivals (${n} blocks): ${mean.toFixed(2)} pp, 95 % CI ±${half.toFixed(2)} pp`,
  );
} finally {
  await server.stop();
}
