/**
 * `advise --traffic FILE`: the honest side of each row measured on the team's own traffic instead of a
 * Poisson client. The log is replayed (src/replay/run/) once per Δ through every design of the rows at
 * that Δ; a row's honest rejection is the replay's — requests the central log admits and the design
 * rejects — and its round trips per request are the replay's (read as `fleetlimit replay` reads it: the same
 * log flags). The flood side stays simulated.
 */
import type { ArrivalSource } from '../replay/arrival.js';
import { replay } from '../replay/run/engine.js';
import type { DesignResult } from '../replay/run/result.js';
import { METRIC_KEYS } from '../sim/run.js';
import type { RunMetrics } from '../sim/types.js';
import type { PlannedRow } from './plan.js';
import type { AdviceInput } from './types.js';

export interface TrafficSummary {
  files: string[];
  /** requests replayed (each Δ's pass reads them all) */
  requests: number;
  /** the central log's rejections of them, percent: what no design can avoid */
  centralRejectedPct: number;
}

/** Replays the traffic at each Δ of the rows; returns each row's replayed figures, in row order. */
export async function replayRows(
  open: () => ArrivalSource,
  input: Pick<AdviceInput, 'gateways' | 'limit' | 'windowS' | 'reads'>,
  rows: readonly PlannedRow[],
  seed = 1,
): Promise<{ perRow: DesignResult[]; summary: TrafficSummary }> {
  const perRow = new Array<DesignResult>(rows.length);
  let summary: TrafficSummary = { files: [], requests: 0, centralRejectedPct: 0 };
  // the Δ a row is simulated at (a design that never syncs: the smallest; its decisions do not depend on it)
  const deltas = [...new Set(rows.map((r) => r.flood.syncS))];
  for (const syncS of deltas) {
    const at = rows.map((r, i) => [r, i] as const).filter(([r]) => r.flood.syncS === syncS);
    const result = await replay(open(), {
      designs: at.map(([r]) => r.design),
      gateways: input.gateways,
      limit: input.limit,
      windowMs: input.windowS * 1000,
      syncMs: syncS * 1000,
      seed,
      top: 1,
      ...(input.reads === undefined || input.reads === 'every-sync' ? {} : { reads: input.reads }),
    });
    for (const [r, i] of at) perRow[i] = result.designs.find((d) => d.design === r.design)!;
    summary = {
      files: result.read?.files ?? [],
      requests: result.arrivals,
      centralRejectedPct: result.arrivals > 0 ? (100 * result.centralRejected) / result.arrivals : 0,
    };
  }
  return { perRow, summary };
}

/**
 * A row's honest "run" from its replay: the figures a row reads (rejectedPct, roundTripsPerRequest) and
 * the counts; the rest, which describe a simulated window, are 0.
 */
export function honestFromReplay(d: DesignResult): RunMetrics {
  const m = Object.fromEntries(METRIC_KEYS.map((k) => [k, 0])) as unknown as RunMetrics;
  m.rejectedPct = d.honestRejectedPct;
  m.honestRejectedPct = d.honestRejectedPct;
  m.roundTripsPerRequest = d.roundTripsPerRequest;
  m.requests = d.requests;
  m.admitted = d.admitted;
  m.storeOpsPerSec = d.storeCallsPerSec;
  return m;
}
