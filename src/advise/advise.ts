import type { ArrivalSource } from '../replay/arrival.js';
import { METRIC_KEYS, VERSION } from '../sim/run.js';
import { runGrid } from '../sim/study.js';
import type { RunMetrics } from '../sim/types.js';
import { diagnose } from './diagnose.js';
import { reasonSentence } from './format.js';
import { type PlannedRow, planRows, planRuns } from './plan.js';
import { makeRow, RANKING, rankRows } from './rank.js';
import { isSmallLimit, smallLimitNote } from './small-limit.js';
import { honestFromReplay, replayRows, type TrafficSummary } from './traffic.js';
import type { Advice, AdviceInput } from './types.js';

export interface AdviseOptions {
  /** worker threads; 0 runs in this thread. Default: one per core. */
  workers?: number;
  onProgress?: (done: number, total: number, elapsedMs: number) => void;
}

/** The mean over seeds, summed in seed order as runSeeds does, so a row equals `fleetlimit sim` bit for bit. */
function meanOf(runs: RunMetrics[]): RunMetrics {
  const mean = {} as RunMetrics;
  for (const k of METRIC_KEYS) mean[k] = runs.map((r) => r[k]).reduce((a, b) => a + b, 0) / runs.length;
  return mean;
}

/** Simulates every design at every Δ under the attack and for the honest client, then ranks them. */
export async function advise(input: AdviceInput, opts: AdviseOptions = {}): Promise<Advice> {
  const planned = planRows(input);
  const runs = planRuns(planned, input.seeds);
  const metrics = await runGrid(runs, { grid: 'advise', workers: opts.workers, onProgress: opts.onProgress });
  return adviceFrom(input, planned, metrics);
}

/**
 * advise --traffic: the floods simulated as always, the honest side replayed from the team's own log
 * (src/advise/traffic.ts) instead of simulated; then the same rows, ranking and targets.
 */
export async function adviseOnTraffic(
  input: AdviceInput,
  open: () => ArrivalSource,
  opts: AdviseOptions = {},
): Promise<Advice & { traffic: TrafficSummary }> {
  const planned = planRows(input);
  const floods = planRuns(planned, input.seeds).filter((r) => r.group === 'flood');
  const floodMetrics = await runGrid(floods, {
    grid: 'advise',
    workers: opts.workers,
    onProgress: opts.onProgress,
  });
  const { perRow, summary } = await replayRows(open, input, planned);
  // planRuns order: each row's flood seeds, then its honest seeds (the replay, once per seed)
  const n = input.seeds.length;
  const metrics = planned.flatMap((_, i) => [
    ...floodMetrics.slice(n * i, n * (i + 1)),
    ...input.seeds.map(() => honestFromReplay(perRow[i])),
  ]);
  return { ...adviceFrom(input, planned, metrics), traffic: summary };
}

/**
 * The advice from the simulations' metrics, in planRuns order (each row's flood seeds, then its honest seeds):
 * no simulation here, so the same metrics can be judged against any targets.
 */
export function adviceFrom(input: AdviceInput, planned: PlannedRow[], metrics: RunMetrics[]): Advice {
  const n = input.seeds.length;
  const all = planned.map((p, i) => {
    const at = 2 * n * i;
    const flood = metrics.slice(at, at + n);
    const worst = Math.max(...flood.map((m) => m.worstWindow));
    return makeRow(p, input, meanOf(flood), meanOf(metrics.slice(at + n, at + 2 * n)), worst);
  });
  const ranked = rankRows(all, isSmallLimit(input.limit, input.gateways));
  return {
    input,
    smallLimit: smallLimitNote(input.limit, input.gateways),
    ranked,
    all,
    recommendation: ranked[0] ?? null,
    reason: reasonSentence(input, ranked, all),
    diagnosis: diagnose(input, all),
    ranking: RANKING,
    version: VERSION,
  };
}
