import { type EngineOptions, runSimulation } from './engine.js';
import { type SeedsResult, seedMeans } from './seed-means.js';
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

/** One setting run over several seeds: every metric's mean over them, and each seed's value. */
export type MultiSeedResult = SeedsResult<RunMetrics>;

/** Runs the same setting over several seeds; metrics are means, with each seed's value kept. */
export function runSeeds(
  params: Omit<RunParams, 'seed'>,
  seeds: number[],
  opts?: EngineOptions,
): MultiSeedResult {
  const runs = seeds.map((seed) => runSimulation({ ...params, seed }, opts));
  return { params, seeds, ...seedMeans(runs, METRIC_KEYS), version: VERSION };
}
