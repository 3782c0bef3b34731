/**
 * How far one short live flood may land from the simulator by chance alone: the tolerance behind the
 * two live tests that compare a fleet's admits per window with the simulator's
 * (test/integration/redis-fleet.live.test.ts, test/sidecar/nginx.live.test.ts).
 *
 * A live run is one draw: its arrivals (seeded in both tests) and its gateways' sync phases (seeded
 * where the gateways are in-process; drawn by each sidecar child otherwise) decide how many of its few
 * windows over-admit. The simulator draws both per seed, so `samples` simulated runs of the test's own
 * length give the spread of that statistic around its expected value, the mean over `refSeeds` seeds
 * (what the tests compare with). Printed: the reference, the spread's quantiles of |run / ref − 1|,
 * and the share of runs beyond the tests' tolerance.
 *
 *   npx tsx scripts/live-sim-tolerance.ts [samples]
 */

import { runSimulation } from '../src/sim/index.js';
import { runSeeds } from '../src/sim/run.js';
import type { RunParams } from '../src/sim/types.js';

interface Setting {
  test: string;
  params: Omit<RunParams, 'seed' | 'minutes'>;
  durationMs: number;
  refSeeds: number;
  tolerance: number;
}

export const SETTINGS: Setting[] = [
  {
    test: 'redis-fleet: shared-counter K=4 L=100 W=2 s Δ=100 ms flood 10×, 10 s',
    params: {
      design: 'shared-counter',
      gateways: 4,
      syncS: 0.1,
      limit: 100,
      windowS: 2,
      windowKind: 'sliding',
      alignedSyncs: false,
      traffic: 'flood',
      load: 10,
      routing: 'even',
    },
    durationMs: 10_000,
    refSeeds: 200,
    tolerance: 0.15,
  },
  {
    test: 'nginx: shared-counter K=2 L=20 W=1 s Δ=100 ms flood 10×, 9 s',
    params: {
      design: 'shared-counter',
      gateways: 2,
      syncS: 0.1,
      limit: 20,
      windowS: 1,
      windowKind: 'sliding',
      alignedSyncs: false,
      traffic: 'flood',
      load: 10,
      routing: 'even',
    },
    durationMs: 9_000,
    refSeeds: 200,
    tolerance: 0.15,
  },
];

/** The simulator's admits per window (× L) for a run of the setting's length, one per seed. */
export function shortRuns(s: Setting, seeds: number[]): number[] {
  return runSeeds({ ...s.params, minutes: s.durationMs / 60_000 }, seeds).perSeed.admittedPerWindow;
}

function main(): void {
  const samples = Number(process.argv[2] ?? 2000);
  for (const s of SETTINGS) {
    const ref = mean(shortRuns(s, range(1, s.refSeeds)));
    // seeds apart from the reference's
    const runs = range(100_001, samples).map(
      (seed) => runSimulation({ ...s.params, minutes: s.durationMs / 60_000, seed }).admittedPerWindow,
    );
    const dev = runs.map((x) => Math.abs(x / ref - 1)).sort((a, b) => a - b);
    const q = (p: number) => dev[Math.min(dev.length - 1, Math.ceil(p * dev.length) - 1)];
    const beyond = dev.filter((d) => d > s.tolerance).length;
    const pct = (x: number) => `${(100 * x).toFixed(1)} %`;
    console.log(
      `${s.test}\n  reference ${ref.toFixed(4)} × L (mean of ${s.refSeeds} seeds); ${samples} runs: ` +
        `|run/ref − 1| median ${pct(q(0.5))}, 99 % ${pct(q(0.99))}, 99.9 % ${pct(q(0.999))}, max ${pct(dev[dev.length - 1])}; ` +
        `beyond ${pct(s.tolerance)}: ${beyond} (${pct(beyond / samples)})`,
    );
  }
}

function range(from: number, n: number): number[] {
  return Array.from({ length: n }, (_, i) => from + i);
}

function mean(xs: number[]): number {
  return xs.reduce((a, b) => a + b, 0) / xs.length;
}

if (import.meta.url === `file://${process.argv[1]}`) main();
