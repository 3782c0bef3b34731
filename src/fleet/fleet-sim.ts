// The simulator's run on a live fleet's settings: the figures the live ones are set beside.
import { runManyKeysSeeds } from '../sim/many-keys.js';
import { runSeeds } from '../sim/run.js';
import type { KeyCostMetrics, RunMetrics, RunParams } from '../sim/types.js';
import type { FleetSettings } from './settings.js';

export type SimFigures = RunMetrics &
  Partial<KeyCostMetrics> & { seeds: number; perSeed: Record<keyof RunMetrics, number[]> };

/** The simulator's parameters for the fleet's settings, over `minutes`. */
export function simParamsOf(s: FleetSettings, minutes: number): Omit<RunParams, 'seed'> {
  return {
    design: s.design,
    gateways: s.gateways,
    syncS: s.syncMs / 1000,
    limit: s.limit,
    windowS: s.windowMs / 1000,
    windowKind: 'sliding',
    alignedSyncs: false,
    traffic: s.traffic,
    load: s.load,
    routing: s.routing,
    minutes,
    ...(s.traffic === 'onset' ? { floodLoad: s.floodLoad ?? 100 } : {}),
    ...(s.attack !== undefined ? { attack: s.attack } : {}),
    // the simulator's gateways read as the live ones do
    ...(s.reads !== undefined ? { reads: s.reads } : {}),
  };
}

/** The simulator on the fleet's settings, over `s.simSeeds` seeds (many keys: its many-keys mode). */
export function simulateFleet(s: FleetSettings, minutes: number): SimFigures {
  const seeds = Array.from({ length: s.simSeeds }, (_, i) => i + 1);
  if (s.keys !== undefined) {
    // the simulator's many-keys mode on the same settings, the same keys flooded (or none)
    const f = s.keys.flood;
    const params = {
      ...simParamsOf(s, minutes),
      keys: s.keys.count,
      popularity: s.keys.popularity,
      floodKeys: f?.keys ?? 0,
      ...(f !== undefined ? { floodLoad: f.load, floodPick: f.pick } : {}),
    };
    const r = runManyKeysSeeds(params, seeds);
    return { ...r.mean, seeds: seeds.length, perSeed: r.perSeed };
  }
  const r = runSeeds(simParamsOf(s, minutes), seeds);
  return { ...r.mean, seeds: seeds.length, perSeed: r.perSeed };
}
