import { type EngineOptions, runSimulation } from './engine.js';
import { seedMeans } from './seed-means.js';
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
  return { params, seeds, ...seedMeans(runs, METRIC_KEYS), version: VERSION };
}
