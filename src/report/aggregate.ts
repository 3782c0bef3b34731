/** Per-seed rows reduced to means and standard errors. */
import { METRIC_KEYS } from '../sim/run.js';
import type { KeyCostMetrics, RunMetrics, RunParams, RunRow } from '../sim/types.js';
import type { CoversEvery } from '../util/covers-every.js';
import { groupBy } from '../util/group-by.js';

// the metrics are the simulator's own list, so a new metric reaches the report without a second edit
export { METRIC_KEYS };
export type MetricKey = (typeof METRIC_KEYS)[number];

/** Every field that identifies a configuration: all parameters except the seed, plus the study group. */
export const CONFIG_KEYS = [
  'group',
  'design',
  'gateways',
  'syncS',
  'limit',
  'windowS',
  'windowKind',
  'alignedSyncs',
  'traffic',
  'load',
  'routing',
  'minutes',
  'storeDelayMs',
  'storeJitterMs',
  'syncLoss',
  'attack',
  'floodLoad',
  'keys',
  'popularity',
  'floodKeys',
  'floodPick',
  'reads',
] as const satisfies readonly (keyof RunRow)[];

// A compile-time check that a parameter added to RunParams is not silently left out of the grouping.
export const CONFIG_KEYS_COVER_EVERY_PARAM: CoversEvery<RunParams, (typeof CONFIG_KEYS)[number] | 'seed'> =
  true;

export interface Stat {
  mean: number;
  /** standard error of the mean (sample standard deviation / √n); NaN with fewer than two values */
  se: number;
  n: number;
  min: number;
  max: number;
}

export function summarize(values: readonly number[]): Stat {
  const n = values.length;
  if (n === 0) return { mean: Number.NaN, se: Number.NaN, n: 0, min: Number.NaN, max: Number.NaN };
  let sum = 0;
  let min = Number.POSITIVE_INFINITY;
  let max = Number.NEGATIVE_INFINITY;
  for (const v of values) {
    sum += v;
    if (v < min) min = v;
    if (v > max) max = v;
  }
  const mean = sum / n;
  if (n < 2) return { mean, se: Number.NaN, n, min, max };
  let squares = 0;
  for (const v of values) squares += (v - mean) * (v - mean);
  return { mean, se: Math.sqrt(squares / (n - 1) / n), n, min, max };
}

export function configKey(row: RunRow): string {
  return JSON.stringify(CONFIG_KEYS.map((k) => row[k]));
}

/** Runs of one configuration (every seed of it), with each metric summarized over the seeds. */
export interface Aggregate {
  config: Omit<RunRow, keyof RunMetrics | keyof KeyCostMetrics | 'seed' | 'version'>;
  seeds: number[];
  stats: Record<MetricKey, Stat>;
}

/** Groups by every parameter except the seed, keeping the order in which configurations first appear. */
export function aggregateRuns(rows: readonly RunRow[]): Aggregate[] {
  return [...groupBy(rows, configKey).values()].map((list) => {
    const first = list[0]!;
    const config = Object.fromEntries(CONFIG_KEYS.map((k) => [k, first[k]])) as Aggregate['config'];
    const stats = Object.fromEntries(METRIC_KEYS.map((m) => [m, summarize(list.map((r) => r[m]))])) as Record<
      MetricKey,
      Stat
    >;
    return { config, seeds: list.map((r) => r.seed), stats };
  });
}

/** One table cell's rows: the summary of a metric, and how many configurations it pools. */
export interface CellStat extends Stat {
  configs: number;
}

export function cellStat(rows: readonly RunRow[], metric: MetricKey): CellStat {
  const configs = new Set(rows.map(configKey)).size;
  return { ...summarize(rows.map((r) => r[metric])), configs };
}

/** Distinct values of a field, ascending for numbers, in first-seen order otherwise. */
export function distinct<K extends keyof RunRow>(rows: readonly RunRow[], key: K): RunRow[K][] {
  const seen = [...new Set(rows.map((r) => r[key]))];
  if (seen.every((v) => typeof v === 'number')) (seen as number[]).sort((a, b) => a - b);
  return seen;
}
