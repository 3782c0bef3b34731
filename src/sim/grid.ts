import { DESIGN_IDS, type DesignId } from '../config.js';
import type { RunParams, RunRow } from './types.js';

export interface GridRun {
  group: RunRow['group'];
  params: RunParams;
}

export type GridName = 'full' | 'quick';

/** Simulated minutes for a flood run: long enough to span many windows when Δ is long. */
function floodMinutes(syncS: number, quick: boolean): number {
  if (quick) return syncS >= 10 ? 20 : 10;
  return syncS >= 10 ? 60 : syncS >= 3 ? 40 : 20;
}

const defaults = {
  limit: 100,
  windowS: 60,
  windowKind: 'sliding',
  alignedSyncs: false,
  routing: 'even',
} as const;

/**
 * The study's grid (limit 100 per 60 s sliding window unless said). The quick grid keeps every
 * section of the report but fewer K, Δ, loads and seeds, and shorter runs.
 */
export function buildGrid(name: GridName): GridRun[] {
  const quick = name === 'quick';
  const designs: DesignId[] = [...DESIGN_IDS];
  const Ks = quick ? [2, 8, 32] : [2, 4, 8, 16, 32];
  const deltas = quick ? [0.1, 1, 10] : [0.1, 0.3, 1, 3, 10];
  const floods = quick ? [1.5, 10, 100, 1000] : [1.5, 3, 10, 30, 100, 300, 1000];
  const floodSeeds = quick ? 2 : 3;
  const honestSeeds = quick ? 2 : 5;
  const honestMinutes = quick ? 60 : 300;
  const runs: GridRun[] = [];

  for (const design of designs) {
    for (const gateways of Ks) {
      for (const syncS of deltas) {
        for (const load of floods) {
          const variants: Partial<RunParams>[] = [{}];
          if (design === 'shared-counter') variants.push({ windowKind: 'fixed' }, { alignedSyncs: true });
          for (const v of variants) {
            for (let seed = 1; seed <= floodSeeds; seed++) {
              runs.push({
                group: 'flood',
                params: {
                  ...defaults,
                  ...v,
                  design,
                  gateways,
                  syncS,
                  traffic: 'flood',
                  load,
                  minutes: floodMinutes(syncS, quick),
                  seed,
                },
              });
            }
          }
        }
        const honest: [RunParams['traffic'], number][] = [
          ['steady', 0.5],
          ['steady', 0.8],
          ['steady', 1],
          ['pageload', 0.5],
          ['pageload', 0.8],
        ];
        for (const [traffic, load] of honest) {
          for (const routing of ['even', 'uneven'] as const) {
            for (let seed = 1; seed <= honestSeeds; seed++) {
              runs.push({
                group: 'honest',
                params: {
                  ...defaults,
                  design,
                  gateways,
                  syncS,
                  traffic,
                  load,
                  routing,
                  minutes: honestMinutes,
                  seed,
                },
              });
            }
          }
        }
      }
    }
  }

  const busyDesigns: DesignId[] = ['central-log', 'split', 'shared-counter', 'leases', 'leases-ask'];
  for (const design of busyDesigns) {
    for (const gateways of quick ? [2, 32] : [2, 8, 32]) {
      for (const syncS of [1, 10]) {
        for (const load of [0.8, 1]) {
          for (const routing of ['even', 'uneven'] as const) {
            for (let seed = 1; seed <= (quick ? 1 : 3); seed++) {
              runs.push({
                group: 'busy',
                params: {
                  ...defaults,
                  limit: 10_000,
                  design,
                  gateways,
                  syncS,
                  traffic: 'steady',
                  load,
                  routing,
                  minutes: quick ? 20 : 60,
                  seed,
                },
              });
            }
          }
        }
      }
    }
  }
  return runs;
}

/** `--only designs=a,b,gateways=8,16`: keeps runs whose fields match every given list. */
export function parseOnly(spec: string): Record<string, string[]> {
  const filter: Record<string, string[]> = {};
  let field = '';
  for (const part of spec.split(',')) {
    const eq = part.indexOf('=');
    let value = part;
    if (eq >= 0) {
      field = part.slice(0, eq).trim();
      value = part.slice(eq + 1);
    }
    if (field === '') throw new Error(`--only: expected field=value[,value...], got "${spec}"`);
    (filter[field] ??= []).push(value.trim());
  }
  return filter;
}

const onlyFields: Record<string, keyof RunParams | 'group'> = {
  designs: 'design',
  design: 'design',
  gateways: 'gateways',
  k: 'gateways',
  sync: 'syncS',
  syncs: 'syncS',
  loads: 'load',
  load: 'load',
  traffic: 'traffic',
  routing: 'routing',
  group: 'group',
  groups: 'group',
};

export function filterGrid(runs: GridRun[], filter: Record<string, string[]>): GridRun[] {
  const tests = Object.entries(filter).map(([name, values]) => {
    const field = onlyFields[name];
    if (field === undefined) {
      throw new Error(`--only: unknown field "${name}"; use one of ${Object.keys(onlyFields).join(', ')}`);
    }
    return (r: GridRun) => {
      const v = field === 'group' ? r.group : r.params[field];
      return values.some((x) => String(v) === x || (typeof v === 'number' && Number(x) === v));
    };
  });
  return runs.filter((r) => tests.every((t) => t(r)));
}
