/**
 * Synthetic study results: every group of the real grid, with metrics from a made-up but plausible model, so
 * the report can be rendered and checked without running the simulator. Each seed perturbs the figures, so a
 * table cell must be the mean of the seeds and not any one of them.
 */
import { DESIGN_IDS, type DesignId } from '../../src/config.js';
import type { CheckResult, RunParams, RunRow, StudyResults } from '../../src/sim/types.js';
import { withDefaults } from '../../src/sim/types.js';

export interface SyntheticGrid {
  designs: readonly DesignId[];
  gateways: readonly number[];
  syncs: readonly number[];
  floodLoads: readonly number[];
  honestLoads: readonly number[];
  seeds: readonly number[];
  busy: boolean;
  /** also the extended grid's groups: scorecard, store delay, sync loss, the hard cases, the onsets */
  extended?: boolean;
}

export const SMALL_GRID: SyntheticGrid = {
  designs: ['central-log', 'split', 'shared-counter', 'leases', 'leases-ask'],
  gateways: [2, 8],
  syncs: [1, 10],
  floodLoads: [1.5, 10, 100],
  honestLoads: [0.5, 0.8],
  seeds: [1, 2],
  busy: true,
};

/** SMALL_GRID with the extended groups too: every section and chart the report can draw. */
export const SMALL_EXTENDED_GRID: SyntheticGrid = {
  ...SMALL_GRID,
  designs: ['central-log', 'split', 'shared-counter', 'leases-ask', 'adaptive'],
  extended: true,
};

export const FULL_GRID: SyntheticGrid = {
  designs: DESIGN_IDS,
  gateways: [2, 4, 8, 16, 32],
  syncs: [0.1, 0.3, 1, 3, 10],
  floodLoads: [1.5, 3, 10, 30, 100, 300, 1000],
  honestLoads: [0.5, 0.8, 1],
  seeds: [1, 2, 3],
  busy: true,
};

/** Seed 1 is 3 % low, seed 2 3 % high, and so on: a spread the standard error must show. */
function jitter(seed: number): number {
  return 1 + 0.03 * (seed % 2 === 1 ? -1 : 1) * Math.ceil(seed / 2);
}

function metrics(p: RunParams, group: RunRow['group']): Omit<RunRow, keyof RunParams | 'group' | 'version'> {
  const j = jitter(p.seed);
  const x = (p.load * p.syncS) / p.windowS;
  const K = p.gateways;
  const offered = Math.min(p.load, 1);
  let admitted = offered;
  let rejected = 0;
  let stranded = 0;
  let trips = 0;
  const uneven = p.routing === 'uneven' ? 1 : 0;
  if (group === 'flood') {
    const over: Record<DesignId, number> = {
      'central-log': 0,
      split: 0,
      'shared-counter': (x * (K - 1)) / 2,
      'assume-others': x * 0.3,
      'track-share': (x * (K - 1)) / 4,
      leases: 0,
      'leases-ask': 0,
      adaptive: 0.02,
      'adaptive-early': 0.01,
    };
    admitted = Math.min(p.load, 1 + over[p.design]) * (p.design.startsWith('leases') ? 0.97 : 1);
    if (p.windowKind === 'fixed' && p.alignedSyncs && p.load >= 10) admitted = K;
    rejected = 100 * (1 - admitted / p.load);
    trips = p.design === 'central-log' ? 1 : p.design === 'leases-ask' ? 0.002 * K : 0;
  } else {
    const base: Record<DesignId, number> = {
      'central-log': 0.42,
      split: 2 + uneven * (15 + K),
      'shared-counter': 0.45,
      'assume-others': 0.5 + uneven * 4 * Math.sqrt(K),
      'track-share': 0.6 + uneven * 1.5,
      leases: 1 + p.syncS,
      'leases-ask': 0.5 + 0.05 * p.syncS,
      adaptive: 0.44,
      'adaptive-early': 0.45,
    };
    // A client at half the limit is never turned away by the exact designs: zeros the log charts must survive.
    rejected = p.load <= 0.5 && !uneven ? 0 : base[p.design] * p.load;
    admitted = offered * (1 - rejected / 100);
    stranded = p.design.startsWith('leases') ? 20 + 3 * p.syncS + K : 0;
    trips = p.design === 'central-log' ? 1 : p.design === 'leases-ask' ? 0.01 / p.syncS : 0;
  }
  const requests = Math.round(p.load * p.limit * p.minutes * (60 / p.windowS));
  const worst = Math.max(admitted * 1.05, p.design === 'shared-counter' && group === 'honest' ? 1.01 : 0);
  return {
    admittedPerWindow: admitted * j,
    worstWindow:
      (p.design.startsWith('leases') || p.design === 'central-log' ? Math.min(worst, 1) : worst) * j,
    rejectedPct: rejected * j,
    roundTripsPerRequest: trips * j,
    syncs: Math.round((p.minutes * 60) / p.syncS) * K,
    requests: Math.round(requests * j),
    admitted: Math.round(requests * j * (1 - rejected / 100)),
    windowsOverLimit: 0,
    strandedPct: stranded * j,
    latencyMs: 0,
    storeOpsPerSec: (K / p.syncS) * j,
    honestRejectedPct: rejected * j,
    onsetWorst: 0,
  };
}

function row(p: RunParams, group: RunRow['group']): RunRow {
  if (group === 'onset') {
    // a flood of floodLoad on top of the key's load: the onset's window is the flood model's worst window
    const m = metrics({ ...p, traffic: 'flood', load: (p.floodLoad ?? 1000) + p.load }, 'flood');
    return { ...withDefaults(p), ...m, onsetWorst: m.worstWindow, group, version: '0.1.0-test' };
  }
  const extended = group !== 'flood' && group !== 'honest' && group !== 'busy';
  const m = metrics(p, extended ? (p.traffic === 'flood' ? 'flood' : 'honest') : group);
  // a store delay or lost syncs let a little more through; request-path calls wait the delay
  const delay = p.storeDelayMs ?? 0;
  const worse = 1 + delay / 1000 + (p.syncLoss ?? 0) / 10;
  const onPath = p.design === 'central-log' || p.design === 'leases-ask';
  return {
    ...withDefaults(p),
    ...m,
    admittedPerWindow: m.admittedPerWindow * worse,
    latencyMs: onPath ? delay * m.roundTripsPerRequest : 0,
    onsetWorst: p.traffic === 'onset' ? m.worstWindow * 1.2 : 0,
    group,
    version: '0.1.0-test',
  };
}

function extendedRows(grid: SyntheticGrid): RunRow[] {
  const rows: RunRow[] = [];
  const base = { limit: 100, windowS: 60, windowKind: 'sliding' as const, alignedSyncs: false, syncS: 1 };
  for (const design of grid.designs) {
    for (const gateways of [2, 8, 32]) {
      for (const load of [1.5, 10, 100, 1000])
        for (const attack of ['even', 'pick'] as const)
          for (const seed of grid.seeds)
            rows.push(
              row(
                {
                  ...base,
                  design,
                  gateways,
                  traffic: 'flood',
                  load,
                  attack,
                  routing: 'even',
                  minutes: 10,
                  seed,
                },
                'scorecard',
              ),
            );
      for (const traffic of ['steady', 'pageload'] as const)
        for (const routing of ['even', 'uneven'] as const)
          for (const seed of grid.seeds)
            rows.push(
              row(
                { ...base, design, gateways, traffic, load: 0.8, routing, minutes: 120, seed },
                'scorecard',
              ),
            );
      for (const floodLoad of [1.5, 10, 100, 1000])
        for (const load of [0, 0.8])
          for (const attack of ['even', 'pick'] as const)
            for (const seed of grid.seeds)
              rows.push(
                row(
                  {
                    ...base,
                    design,
                    gateways,
                    traffic: 'onset',
                    load,
                    floodLoad,
                    attack,
                    routing: 'even',
                    minutes: 3,
                    seed,
                  },
                  'onset',
                ),
              );
      if (gateways !== 2)
        for (const traffic of ['onset', 'pulsed'] as const)
          for (const seed of grid.seeds)
            rows.push(
              row(
                {
                  ...base,
                  design,
                  gateways,
                  traffic,
                  load: 0.8,
                  routing: 'even',
                  floodLoad: 1000,
                  minutes: 30,
                  seed,
                },
                'hard',
              ),
            );
    }
    for (const storeDelayMs of [0, 1, 10, 100])
      for (const [traffic, load] of [
        ['flood', 100],
        ['flood', 1000],
        ['steady', 0.8],
        ['pageload', 0.8],
      ] as const)
        for (const seed of grid.seeds)
          rows.push(
            row(
              {
                ...base,
                design,
                gateways: 8,
                traffic,
                load,
                routing: traffic === 'flood' ? 'even' : 'uneven',
                storeDelayMs,
                storeJitterMs: storeDelayMs / 2,
                minutes: traffic === 'flood' ? 10 : 60,
                seed,
              },
              'delay',
            ),
          );
    for (const syncLoss of [0, 0.01, 0.1, 0.3])
      for (const [traffic, load] of [
        ['flood', 100],
        ['steady', 0.8],
      ] as const)
        for (const seed of grid.seeds)
          rows.push(
            row(
              {
                ...base,
                design,
                gateways: 8,
                traffic,
                load,
                routing: traffic === 'flood' ? 'even' : 'uneven',
                syncLoss,
                minutes: traffic === 'flood' ? 10 : 60,
                seed,
              },
              'loss',
            ),
          );
  }
  return rows;
}

export function syntheticRows(grid: SyntheticGrid): RunRow[] {
  const rows: RunRow[] = [];
  const base = { limit: 100, windowS: 60, windowKind: 'sliding' as const, alignedSyncs: false };
  for (const design of grid.designs)
    for (const gateways of grid.gateways)
      for (const syncS of grid.syncs) {
        for (const load of grid.floodLoads)
          for (const seed of grid.seeds)
            rows.push(
              row(
                {
                  ...base,
                  design,
                  gateways,
                  syncS,
                  traffic: 'flood',
                  load,
                  routing: 'even',
                  minutes: 20,
                  seed,
                },
                'flood',
              ),
            );
        for (const traffic of ['steady', 'pageload'] as const)
          for (const load of grid.honestLoads)
            for (const routing of ['even', 'uneven'] as const)
              for (const seed of grid.seeds)
                rows.push(
                  row(
                    { ...base, design, gateways, syncS, traffic, load, routing, minutes: 300, seed },
                    'honest',
                  ),
                );
      }
  if (grid.designs.includes('shared-counter'))
    for (const [windowKind, alignedSyncs] of [
      ['fixed', false],
      ['fixed', true],
      ['sliding', true],
    ] as const)
      for (const load of grid.floodLoads)
        for (const seed of grid.seeds)
          rows.push(
            row(
              {
                ...base,
                windowKind,
                alignedSyncs,
                design: 'shared-counter',
                gateways: 8,
                syncS: 1,
                traffic: 'flood',
                load,
                routing: 'even',
                minutes: 20,
                seed,
              },
              'flood',
            ),
          );
  if (grid.busy)
    for (const design of grid.designs.filter((d) =>
      ['central-log', 'split', 'shared-counter', 'leases', 'leases-ask'].includes(d),
    ))
      for (const gateways of [2, 8, 32])
        for (const syncS of [1, 10])
          for (const load of [0.8, 1])
            for (const routing of ['even', 'uneven'] as const)
              for (const seed of grid.seeds)
                rows.push(
                  row(
                    {
                      ...base,
                      limit: 10_000,
                      design,
                      gateways,
                      syncS,
                      traffic: 'steady',
                      load,
                      routing,
                      minutes: 60,
                      seed,
                    },
                    'busy',
                  ),
                );
  if (grid.extended) rows.push(...extendedRows(grid));
  return rows;
}

export const SAMPLE_CHECKS: CheckResult[] = [
  {
    name: 'central log matches Erlang B at 80 %',
    passed: true,
    detail: 'served 99.58 % ± 0.02 %; 1 − B(100, 80) = 99.59 %.',
  },
  {
    name: 'K = 1: synced designs decide like the central log',
    passed: true,
    detail: '3 designs × 200,000 requests, 0 differing decisions.',
  },
  {
    name: 'aligned syncs + fixed window: heavy flood gets K × L',
    passed: false,
    detail: 'measured 7.96 × L per window at K = 8; expected exactly 8 <check the phase>.',
  },
  { name: 'lease designs never exceed L', passed: true, detail: '0 windows over L in 4,200 lease runs.' },
];

export function syntheticResults(grid: SyntheticGrid = SMALL_GRID): StudyResults {
  const rows = syntheticRows(grid);
  return {
    version: '0.1.0-test',
    grid: 'synthetic',
    startedAt: '2026-12-02T16:00:00.000Z',
    wallSeconds: 52.4,
    rows,
    checks: SAMPLE_CHECKS,
  };
}
