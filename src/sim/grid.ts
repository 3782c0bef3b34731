import { DESIGN_IDS, type DesignId } from '../config.js';
import { type RunParams, type RunRow, withDefaults } from './types.js';

export interface GridRun {
  group: RunRow['group'];
  params: RunParams;
}

export type GridName = 'full' | 'quick' | 'extended';

export const GRID_NAMES: readonly GridName[] = ['full', 'quick', 'extended'];

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
  if (name === 'extended') return [...buildGrid('quick'), ...extendedRuns(), ...manyKeysRuns()];
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

/** The scorecard's set-up: K up to 32, Δ = 1 s. */
export const SCORECARD_KS = [2, 8, 32] as const;
export const SCORECARD_FLOODS = [1.5, 3, 10, 30, 100, 300, 1000] as const;
export const STORE_DELAYS_MS = [0, 1, 10, 100] as const;
export const SYNC_LOSSES = [0, 0.01, 0.1, 0.3] as const;
/** The many-keys axis: key populations and Zipf exponents. */
export const KEY_COUNTS = [100, 1_000, 10_000, 100_000] as const;
export const POPULARITIES = [0.8, 1.2] as const;

/**
 * Many keys at K = 8, Δ = 1 s: every design × N × Zipf S, an honest steady client on every key (the
 * hottest at 80 % of L, key r at 0.8/r^S), even routing, and a 100× flood on 5 keys drawn at random.
 * Four minutes: the store's cost and the gateways' memory settle within the first window, and the
 * flood's arrivals (every one through a gateway) are what the runs cost.
 */
export function manyKeysRuns(): GridRun[] {
  const runs: GridRun[] = [];
  for (const design of DESIGN_IDS) {
    for (const keys of KEY_COUNTS) {
      for (const popularity of POPULARITIES) {
        for (let seed = 1; seed <= 2; seed++) {
          runs.push({
            group: 'keys',
            params: {
              ...defaults,
              design,
              gateways: 8,
              syncS: 1,
              traffic: 'steady',
              load: 0.8,
              minutes: 4,
              keys,
              popularity,
              floodKeys: 5,
              floodLoad: 100,
              floodPick: 'random',
              seed,
            },
          });
        }
      }
    }
  }
  return runs;
}

/**
 * The extended grid's own runs (`study --grid extended` adds them to the quick grid): the scorecard
 * (every design at K ∈ {2, 8, 32}, Δ = 1 s: floods from 1.5× to 1,000× spread evenly and sent to one
 * gateway; honest steady and page-load clients at 80 %, even and uneven), a store delay (0, 1, 10,
 * 100 ms, jitter half the delay) and a sync loss (0 to 30 %) at K = 8, and the two hard cases (the
 * worst window at a 1,000× flood's onset on top of an honest client at 80 %; a 1,000× flood for 2 s
 * every 120 s on top of the same client), at K = 8 and 32, and the onsets (onsetRuns: every flood rate on an
 * empty and a busy key, spread and sent to one gateway, at every K). The many-keys runs are manyKeysRuns().
 */
export function extendedRuns(): GridRun[] {
  const runs: GridRun[] = [];
  const base = { ...defaults, syncS: 1 } as const;
  const floodMin = 10;
  for (const design of DESIGN_IDS) {
    for (const gateways of SCORECARD_KS) {
      for (const load of SCORECARD_FLOODS) {
        for (const attack of ['even', 'pick'] as const) {
          for (let seed = 1; seed <= 2; seed++) {
            runs.push({
              group: 'scorecard',
              params: { ...base, design, gateways, traffic: 'flood', load, attack, minutes: floodMin, seed },
            });
          }
        }
      }
      for (const traffic of ['steady', 'pageload'] as const) {
        for (const routing of ['even', 'uneven'] as const) {
          for (let seed = 1; seed <= 3; seed++) {
            runs.push({
              group: 'scorecard',
              params: { ...base, design, gateways, traffic, load: 0.8, routing, minutes: 120, seed },
            });
          }
        }
      }
      runs.push(...onsetRuns(design, gateways));
      if (gateways !== 2) {
        for (const traffic of ['onset', 'pulsed'] as const) {
          for (let seed = 1; seed <= 2; seed++) {
            runs.push({
              group: 'hard',
              params: {
                ...base,
                design,
                gateways,
                traffic,
                load: 0.8,
                floodLoad: 1000,
                minutes: traffic === 'onset' ? 4 : 30,
                seed,
              },
            });
          }
        }
      }
    }
    // the store delay and sync loss runs: K = 8, each case two seeds, one perturbation of the store
    const perturbed = (
      group: 'delay' | 'loss',
      store: { storeDelayMs: number; storeJitterMs: number } | { syncLoss: number },
      cases: readonly (readonly ['flood' | 'steady' | 'pageload', number, 'even' | 'uneven'])[],
    ) => {
      for (const [traffic, load, routing] of cases) {
        for (let seed = 1; seed <= 2; seed++) {
          runs.push({
            group,
            params: {
              ...base,
              ...store,
              design,
              gateways: 8,
              traffic,
              load,
              routing,
              minutes: traffic === 'flood' ? floodMin : 60,
              seed,
            },
          });
        }
      }
    };
    for (const storeDelayMs of STORE_DELAYS_MS) {
      perturbed('delay', { storeDelayMs, storeJitterMs: storeDelayMs / 2 }, [
        ['flood', 100, 'even'],
        ['flood', 1000, 'even'],
        ['steady', 0.8, 'uneven'],
        ['pageload', 0.8, 'uneven'],
      ]);
    }
    for (const syncLoss of SYNC_LOSSES) {
      perturbed('loss', { syncLoss }, [
        ['flood', 100, 'even'],
        ['steady', 0.8, 'uneven'],
      ]);
    }
  }
  return runs;
}

/** The honest client's load on a key before a flood's onset: none (an empty key) and 80 % of L (a busy key). */
export const ONSET_KEY_LOADS = [0, 0.8] as const;

/**
 * The scorecard's onsets (group 'onset'): one design at one K, Δ = 1 s, a flood at every SCORECARD_FLOODS rate
 * starting at t = 2W on an empty key and on a busy one, spread evenly and sent to one gateway. A run ends one
 * window after the onset: `onsetWorst` (the most in a W-long span ending within W of it) is all it is for.
 */
export function onsetRuns(design: DesignId, gateways: number): GridRun[] {
  const runs: GridRun[] = [];
  for (const floodLoad of SCORECARD_FLOODS)
    for (const load of ONSET_KEY_LOADS)
      for (const attack of ['even', 'pick'] as const)
        for (let seed = 1; seed <= 2; seed++)
          runs.push({
            group: 'onset',
            params: {
              ...defaults,
              syncS: 1,
              design,
              gateways,
              traffic: 'onset',
              load,
              floodLoad,
              attack,
              minutes: (3 * defaults.windowS) / 60,
              seed,
            },
          });
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
  flood: 'floodLoad',
  group: 'group',
  groups: 'group',
  attack: 'attack',
  delay: 'storeDelayMs',
  loss: 'syncLoss',
  keys: 'keys',
  popularity: 'popularity',
};

export function filterGrid(runs: GridRun[], filter: Record<string, string[]>): GridRun[] {
  const tests = Object.entries(filter).map(([name, values]) => {
    const field = onlyFields[name];
    if (field === undefined) {
      throw new Error(`--only: unknown field "${name}"; use one of ${Object.keys(onlyFields).join(', ')}`);
    }
    return (r: GridRun) => {
      const v = field === 'group' ? r.group : withDefaults(r.params)[field];
      return values.some((x) => String(v) === x || (typeof v === 'number' && Number(x) === v));
    };
  });
  return runs.filter((r) => tests.every((t) => t(r)));
}
