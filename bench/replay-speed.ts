/**
 * Engine-only arrivals/s of `fleetlimit replay` (no log reading): generated arrivals, 20,000 keys
 * (Zipf-ish: key ⌊u²·N⌋), K = 8, Δ = 1 s, L = 100 per 1 min, ~2,000 arrivals/s of log time, one design
 * against the central log (each arrival decided twice). min/median/max of RUNS runs.
 * node --import tsx bench/replay-speed.ts [DESIGN=shared-counter] [ARRIVALS=1000000] [RUNS=5]
 */
import type { DesignId } from '../src/config.js';
import type { Arrival } from '../src/replay/arrival.js';
import { ReplayRun } from '../src/replay/run/engine.js';
import { Random } from '../src/sim/random.js';

const design = (process.argv[2] ?? 'shared-counter') as DesignId;
const n = Number(process.argv[3] ?? 1_000_000);
const runs = Number(process.argv[4] ?? 5);
const KEYS = 20_000;
const K = 8;

const rng = new Random(7);
const names = Array.from({ length: KEYS }, (_, i) => `10.0.${i >> 8}.${i & 255}`);
const arrivals: Arrival[] = [];
let t = Date.UTC(2026, 0, 1);
for (let i = 0; i < n; i++) {
  t += rng.exponential(2); // 2 per ms of log time
  const u = rng.uniform();
  arrivals.push({ t, key: names[Math.floor(u * u * KEYS)], gateway: Math.floor(rng.uniform() * K) });
}

const rates: number[] = [];
for (let r = 0; r < runs; r++) {
  const run = new ReplayRun({
    designs: [design],
    gateways: K,
    limit: 100,
    windowMs: 60_000,
    syncMs: 1000,
    seed: 1,
    top: 10,
  });
  const start = performance.now();
  for (const a of arrivals) run.push(a);
  run.finish();
  rates.push(n / ((performance.now() - start) / 1000));
}
rates.sort((a, b) => a - b);
const f = (v: number) => Math.round(v).toLocaleString('en-US');
console.log(
  `${design} vs central-log, ${n.toLocaleString('en-US')} arrivals, ${runs} runs: arrivals/s min ${f(rates[0])}, median ${f(rates[Math.floor(runs / 2)])}, max ${f(rates[runs - 1])}`,
);
