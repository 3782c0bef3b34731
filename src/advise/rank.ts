import { DESIGN_IDS } from '../config.js';
import { DESIGNS } from '../designs/index.js';
import type { RunMetrics } from '../sim/types.js';
import type { PlannedRow } from './plan.js';
import { syncsMatter } from './plan.js';
import type { AdviceInput, AdviceRow } from './types.js';

/**
 * Store operations per second for one key under the attack, the busiest a key gets:
 * - syncs: every gateway holds the attacked key, so each exchanges it with the store once per Δ,
 *   K/Δ in all (none for central-log and split, whose syncs carry nothing);
 * - request path: round trips per request × the attack's arrival rate (attack · L / W).
 * A store serving n such keys does n times this.
 */
export function storeOps(
  row: Pick<PlannedRow, 'design' | 'syncS'>,
  input: Pick<AdviceInput, 'gateways' | 'attack' | 'limit' | 'windowS'>,
  flood: Pick<RunMetrics, 'roundTripsPerRequest'> & Partial<Pick<RunMetrics, 'storeOpsPerSec'>>,
): { syncsPerSec: number; requestPathPerSec: number } {
  let syncsPerSec = syncsMatter(row.design) && row.syncS !== null ? input.gateways / row.syncS : 0;
  const requestPathPerSec = (flood.roundTripsPerRequest * input.attack * input.limit) / input.windowS;
  // a design that syncs early (off the request path, when a gateway's part of the headroom is spent)
  // syncs more often than every Δ under a flood: its syncs are the flood run's measured store
  // operations less its request-path ones (K/Δ alone understated them)
  if (DESIGNS[row.design].earlySyncs !== null && flood.storeOpsPerSec !== undefined) {
    syncsPerSec = Math.max(syncsPerSec, flood.storeOpsPerSec - requestPathPerSec);
  }
  return { syncsPerSec, requestPathPerSec };
}

// A mean over seeds carries float noise: 1.0000000000000002 × L must still meet --max-mean 1.0.
const EPS = 1e-9;

/** The flags whose target a row misses (empty: it qualifies). */
export function missedTargets(
  input: Pick<AdviceInput, 'maxWorst' | 'maxMean' | 'maxRejectedPct' | 'maxRoundTripsPct'>,
  m: { floodMultiple: number; honestRejectedPct: number; worstWindow: number; roundTripsPerRequest?: number },
): string[] {
  const misses: string[] = [];
  if (input.maxWorst !== undefined && m.worstWindow > input.maxWorst + EPS) misses.push('--max-over');
  if (input.maxMean !== undefined && m.floodMultiple > input.maxMean + EPS) misses.push('--max-mean');
  if (m.honestRejectedPct > input.maxRejectedPct + EPS) misses.push('--max-rejected');
  if (
    input.maxRoundTripsPct !== undefined &&
    100 * (m.roundTripsPerRequest ?? 0) > input.maxRoundTripsPct + EPS
  )
    misses.push('--max-round-trips');
  return misses;
}

/**
 * One row from the flood and honest runs' mean metrics; `worstWindow` is the max over the flood seeds' worst
 * windows (a promise about every window is judged by its worst seed, not their mean).
 */
export function makeRow(
  planned: PlannedRow,
  input: AdviceInput,
  flood: RunMetrics,
  honest: RunMetrics,
  worstWindow: number,
): AdviceRow {
  const ops = storeOps(planned, input, flood);
  const m = {
    floodMultiple: flood.admittedPerWindow,
    worstWindow,
    honestRejectedPct: honest.rejectedPct,
  };
  const misses = missedTargets(input, { ...m, roundTripsPerRequest: honest.roundTripsPerRequest });
  const seeds = [...input.seeds];
  return {
    design: planned.design,
    syncS: planned.syncS,
    ...m,
    roundTripsPerRequest: honest.roundTripsPerRequest,
    storeOpsPerSec: ops.syncsPerSec + ops.requestPathPerSec,
    storeOps: ops,
    meetsTargets: misses.length === 0,
    misses,
    flood: { params: planned.flood, seeds, mean: flood },
    honest: { params: planned.honest, seeds, mean: honest },
  };
}

export const RANKING = [
  'Ranked by store operations per second per key, fewest first (what every attacked key costs the shared',
  'store), then by worst window, mean admitted per window, honest rejection and honest round trips per request,',
  'lowest first.',
].join('\n');

/** Compares rows in the order RANKING states; the design list's order and the longer Δ break exact ties. */
export function compareRows(a: AdviceRow, b: AdviceRow): number {
  return (
    a.storeOpsPerSec - b.storeOpsPerSec ||
    a.worstWindow - b.worstWindow ||
    a.floodMultiple - b.floodMultiple ||
    a.honestRejectedPct - b.honestRejectedPct ||
    a.roundTripsPerRequest - b.roundTripsPerRequest ||
    DESIGN_IDS.indexOf(a.design) - DESIGN_IDS.indexOf(b.design) ||
    (b.syncS ?? 0) - (a.syncS ?? 0)
  );
}

/**
 * The rows that meet every target, best first. `exactFirst` (a small limit, see isSmallLimit): the
 * designs whose bound is L itself come before the others, whatever their cost.
 */
export function rankRows(rows: AdviceRow[], exactFirst = false): AdviceRow[] {
  const rank = (r: AdviceRow) => (exactFirst && DESIGNS[r.design].bound !== 'L' ? 1 : 0);
  return rows.filter((r) => r.meetsTargets).sort((a, b) => rank(a) - rank(b) || compareRows(a, b));
}
