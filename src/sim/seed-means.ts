import type { RunParams } from './types.js';

/** Each metric's value per seed, and its mean over the seeds: what a multi-seed run reports. */
export interface SeedMeans<M> {
  mean: M;
  perSeed: Record<keyof M, number[]>;
}

/** The mean over `runs` (one a seed) of every metric in `keys`, with each seed's value kept. */
export function seedMeans<M extends Record<K, number>, K extends keyof M>(
  runs: readonly M[],
  keys: readonly K[],
): SeedMeans<M> {
  const mean = {} as M;
  const perSeed = {} as Record<keyof M, number[]>;
  for (const k of keys) {
    perSeed[k] = runs.map((r) => r[k]);
    mean[k] = (perSeed[k].reduce((a, b) => a + b, 0) / runs.length) as M[K];
  }
  return { mean, perSeed };
}

/** A setting run over several seeds: its parameters, the seeds, the metrics' means and each seed's values. */
export interface SeedsResult<M> extends SeedMeans<M> {
  params: Omit<RunParams, 'seed'>;
  seeds: number[];
  version: string;
}
