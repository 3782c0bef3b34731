import type { AdviceRow } from '../../src/advise/types.js';

/** An advise row that meets its targets (leases at Δ = 1 s, 8 store ops per second), with `over` set. */
export function adviceRow(over: Partial<AdviceRow>): AdviceRow {
  return {
    design: 'leases',
    syncS: 1,
    floodMultiple: 1,
    worstWindow: 1,
    honestRejectedPct: 0.5,
    roundTripsPerRequest: 0,
    storeOpsPerSec: 8,
    storeOps: { syncsPerSec: 8, requestPathPerSec: 0 },
    meetsTargets: true,
    misses: [],
    flood: {} as AdviceRow['flood'],
    honest: {} as AdviceRow['honest'],
    ...over,
  };
}
