import { DESIGNS } from '../../designs/index.js';
import type { RunParams } from '../types.js';
import { type Probe, type RunOutput, simulate } from './simulate.js';
import { scheduledSyncs } from './sync-clock.js';

/**
 * Whether a run's decisions cannot depend on Δ: a design that never syncs (central-log, split) with
 * syncs that take no time and never fail. Only its sync count, and the store load that follows from
 * it, change with Δ; see runAcrossSyncIntervals.
 */
export function decisionsIgnoreSync(p: RunParams): boolean {
  return (
    DESIGNS[p.design].syncs === 'never' &&
    !((p.storeDelayMs ?? 0) > 0 || (p.storeJitterMs ?? 0) > 0 || (p.syncLoss ?? 0) > 0)
  );
}

/**
 * The same run at several sync intervals, simulated once: for a run whose decisions ignore Δ
 * (decisionsIgnoreSync), every draw and decision is the same whatever Δ is (a gateway's sync phase is
 * one uniform draw scaled by Δ), so only `syncs` and `storeOpsPerSec` are recomputed, from the same
 * phase draws. The result for each Δ equals runSimulation's for that Δ exactly (tested).
 */
export function runAcrossSyncIntervals(params: RunParams, syncValues: readonly number[]): RunOutput[] {
  if (!decisionsIgnoreSync(params)) {
    throw new RangeError(
      `runAcrossSyncIntervals: the decisions of ${params.design} here depend on the sync interval`,
    );
  }
  if (syncValues.length === 0) return [];
  const probe: Probe = { phaseDraws: new Float64Array(params.gateways), roundTrips: 0 };
  const first = simulate({ ...params, syncS: syncValues[0] }, {}, probe);
  const end = params.minutes * 60_000;
  return syncValues.map((syncS, i) => {
    if (i === 0) return first;
    const D = syncS * 1000;
    const phase = probe.phaseDraws.map((u) => (params.alignedSyncs ? 0 : u * D));
    const syncs = scheduledSyncs(phase, D, end);
    return { ...first, syncs, storeOpsPerSec: end > 0 ? ((syncs + probe.roundTrips) * 1000) / end : 0 };
  });
}
