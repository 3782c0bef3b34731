import type { DesignId } from '../config.js';
import { DESIGNS } from '../designs/index.js';
import type { GridRun } from '../sim/grid.js';
import type { AdviceInput, SimSetting } from './types.js';

/** The Δ values the study uses; advise tries those no longer than W. */
export const DEFAULT_DELTAS_S = [0.1, 0.3, 1, 3, 10] as const;

/** A design that never syncs (central-log, split): one simulation serves every Δ. */
export function syncsMatter(design: DesignId): boolean {
  return DESIGNS[design].syncs !== 'never';
}

/** One row to fill: a design at a Δ, and the flood and honest settings that measure it. */
export interface PlannedRow {
  design: DesignId;
  syncS: number | null;
  flood: SimSetting;
  honest: SimSetting;
}

export function planRows(input: AdviceInput): PlannedRow[] {
  const rows: PlannedRow[] = [];
  for (const design of input.designs) {
    // a design that never syncs is simulated at the smallest Δ; its decisions do not depend on it
    const deltas = syncsMatter(design) ? input.deltasS : [Math.min(...input.deltasS)];
    for (const syncS of deltas) {
      const common = {
        design,
        gateways: input.gateways,
        syncS,
        limit: input.limit,
        windowS: input.windowS,
        windowKind: 'sliding',
        alignedSyncs: false,
        // set only away from the default, as sim's --reads: a default row's settings are as before
        ...(input.reads === undefined || input.reads === 'every-sync' ? {} : { reads: input.reads }),
      } as const;
      rows.push({
        design,
        syncS: syncsMatter(design) ? syncS : null,
        // an attacker behind a load balancer reaches every gateway alike
        flood: {
          ...common,
          traffic: 'flood',
          load: input.attack,
          routing: 'even',
          minutes: input.floodMinutes,
        },
        honest: {
          ...common,
          traffic: 'steady',
          load: input.honestLoad,
          routing: input.routing,
          minutes: input.honestMinutes,
        },
      });
    }
  }
  return rows;
}

/** Every simulation the rows need, seed by seed: flood then honest for each row, in row order. */
export function planRuns(rows: PlannedRow[], seeds: readonly number[]): GridRun[] {
  const runs: GridRun[] = [];
  for (const r of rows) {
    for (const seed of seeds) runs.push({ group: 'flood', params: { ...r.flood, seed } });
    for (const seed of seeds) runs.push({ group: 'honest', params: { ...r.honest, seed } });
  }
  return runs;
}

/** Default run lengths, in windows so that they scale with W: floods settle fast; rejections are rare. */
export function defaultMinutes(windowS: number): { flood: number; honest: number } {
  return { flood: (20 * windowS) / 60, honest: (200 * windowS) / 60 };
}
