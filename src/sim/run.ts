import { type EngineOptions, runSimulation } from './engine.js';
import type { RunMetrics, RunParams } from './types.js';

export const VERSION = '0.1.0';

export const METRIC_KEYS = [
  'admittedPerWindow',
  'worstWindow',
  'rejectedPct',
  'roundTripsPerRequest',
  'syncs',
  'requests',
  'admitted',
  'windowsOverLimit',
  'strandedPct',
  'latencyMs',
  'storeOpsPerSec',
  'honestRejectedPct',
  'onsetWorst',
] as const satisfies readonly (keyof RunMetrics)[];

export interface MultiSeedResult {
  params: Omit<RunParams, 'seed'>;
  seeds: number[];
  /** the mean over seeds of every metric */
  mean: RunMetrics;
  /** each seed's value of every metric */
  perSeed: Record<keyof RunMetrics, number[]>;
  version: string;
}

/** Runs the same setting over several seeds; metrics are means, with each seed's value kept. */
export function runSeeds(
  params: Omit<RunParams, 'seed'>,
  seeds: number[],
  opts?: EngineOptions,
): MultiSeedResult {
  const runs = seeds.map((seed) => runSimulation({ ...params, seed }, opts));
  const mean = {} as RunMetrics;
  const perSeed = {} as Record<keyof RunMetrics, number[]>;
  for (const k of METRIC_KEYS) {
    perSeed[k] = runs.map((r) => r[k]);
    mean[k] = perSeed[k].reduce((a, b) => a + b, 0) / runs.length;
  }
  return { params, seeds, mean, perSeed, version: VERSION };
}
