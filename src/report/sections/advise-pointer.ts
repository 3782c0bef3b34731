/**
 * The `fleetlimit advise` commands that ask the scorecard's questions for the study's own K and L/W, so a
 * reader can go from the verdict to a recommendation for one fleet in one step.
 */

import { erlangB } from '../../sim/erlang.js';
import type { RunRow } from '../../sim/types.js';
import { formatNumber, limitFlag } from '../../util/format.js';
import { distinct } from '../aggregate.js';
import { FLOOD_TARGET, HONEST_LOAD, HONEST_PP, TRIPS_TARGET, WORST_TARGET } from './scorecard-targets.js';

/**
 * advise takes an absolute honest rejection; the scorecard's target is relative to the central log's. At 80 %
 * the central log loses B(L, 0.8 L) (Erlang B, which the study's own check compares it with), so the target
 * in advise's terms is that loss + HONEST_PP, in percent.
 */
export function maxRejectedFor(limit: number): number {
  return 100 * erlangB(limit, HONEST_LOAD * limit) + HONEST_PP;
}

export interface AdvisePointer {
  /** one command per (K, L/W) the runs hold */
  commands: string[];
  /** how the flags map the scorecard's targets, with the figures they carry */
  note: string;
}

/** null when the runs hold no flood (nothing to take the attack rate from). */
export function advisePointer(runs: readonly RunRow[]): AdvisePointer | null {
  const floods = runs.filter((r) => r.traffic === 'flood');
  if (floods.length === 0) return null;
  const attack = Math.max(...floods.map((r) => r.load));
  const windows = [...new Map(runs.map((r) => [`${r.limit}/${r.windowS}`, r])).values()];
  const commands: string[] = [];
  const limits = new Set<number>();
  for (const K of distinct(runs, 'gateways'))
    for (const w of windows) {
      limits.add(w.limit);
      commands.push(
        `npx fleetlimit advise --gateways ${K} --limit ${limitFlag(w.limit, w.windowS)} --attack ${attack}x ` +
          `--honest-load ${100 * HONEST_LOAD}% --max-over ${WORST_TARGET} --max-mean ${FLOOD_TARGET} --max-rejected ${formatNumber(maxRejectedFor(w.limit))}% ` +
          `--max-round-trips ${100 * TRIPS_TARGET}%`,
      );
    }
  const floors = [...limits]
    .map(
      (L) =>
        `${formatNumber(100 * erlangB(L, HONEST_LOAD * L))} % at L = ${formatNumber(L)} (Erlang B(${formatNumber(L)}, ${formatNumber(HONEST_LOAD * L)}))`,
    )
    .join(', ');
  return {
    commands,
    note:
      `--max-over and --max-mean are the flood targets (the worst window, judged by the worst seed as the scorecard ` +
      `does, and the mean admitted per window, under a flood spread evenly from an empty key; advise does not run ` +
      `the onsets on a busy key or the picked-gateway floods); --max-rejected is the central log’s loss at ${100 * HONEST_LOAD} % — ${floors} — ` +
      `+ ${HONEST_PP} pp, since advise takes an absolute share; --max-round-trips is the round-trip target. ` +
      'advise then ranks what meets them by store operations, and says why when nothing does.',
  };
}
