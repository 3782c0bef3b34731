/**
 * Engine-only arrivals/s of `fleetlimit replay` (no log reading): generated arrivals on KEYS keys
 * (skewed: key ⌊u²·KEYS⌋), RATE arrivals per second of log time, K = 4, Δ = 1 s, L = 100 per 1 min,
 * one design against the central log. Arrivals are generated as they are fed (a few Random draws each,
 * counted in). min/median/max of RUNS runs, per second of the process's CPU time.
 * The cost is arrivals plus key-syncs (every gateway exchanges every key it holds once per Δ), so
 * many keys at a low rate each cost more per arrival: the line printed says how many per arrival.
 * node --import tsx bench/replay-speed.ts [DESIGN=shared-counter] [ARRIVALS=1000000] [RUNS=3] [KEYS=2000] [RATE=5000]
 */
import type { DesignId } from '../src/config.js';
import type { Arrival } from '../src/replay/arrival.js';
import { ReplayRun } from '../src/replay/run/engine.js';
import { Random } from '../src/sim/random.js';

const design = (process.argv[2] ?? 'shared-counter') as DesignId;
const n = Number(process.argv[3] ?? 1_000_000);
const runs = Number(process.argv[4] ?? 3);
const KEYS = Number(process.argv[5] ?? 2000);
const RATE = Number(process.argv[6] ?? 5000);
const K = 4;

const names = Array.from({ length: KEYS }, (_, i) => `10.0.${i >> 8}.${i & 255}`);

/** The arrivals, made as they are fed (as a log stream would hand them over: young, short-lived objects). */
function* arrivals(): Generator<Arrival> {
  const rng = new Random(7);
  let t = Date.UTC(2026, 0, 1);
  for (let i = 0; i < n; i++) {
    t += rng.exponential(RATE / 1000);
    const u = rng.uniform();
    yield { t, key: names[Math.floor(u * u * KEYS)], gateway: Math.floor(rng.uniform() * K) };
  }
}

// per second of this process's CPU time, so a shared machine's other load does not count against it
const rates: number[] = [];
const walls: number[] = [];
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
  const cpu = process.cpuUsage();
  for (const a of arrivals()) run.push(a);
  run.finish();
  const used = process.cpuUsage(cpu);
  rates.push(n / ((used.user + used.system) / 1e6));
  walls.push(n / ((performance.now() - start) / 1000));
}
rates.sort((a, b) => a - b);
walls.sort((a, b) => a - b);
const f = (v: number) => Math.round(v).toLocaleString('en-US');
console.log(
  `${design} vs central-log, ${n.toLocaleString('en-US')} arrivals on ${KEYS} keys at ${RATE}/s, K = ${K}, ${runs} runs: arrivals per CPU-second min ${f(rates[0])}, median ${f(rates[Math.floor(runs / 2)])}, max ${f(rates[runs - 1])} (wall-clock median ${f(walls[Math.floor(runs / 2)])}/s)`,
);
