import { DESIGN_IDS, type DesignId } from '../../config.js';
import type { RunParams, TrafficKind } from '../../sim/types.js';

/** Everything the page's controls set. */
export interface PageState {
  gateways: number;
  syncS: number;
  limit: number;
  windowS: number;
  honestKind: Exclude<TrafficKind, 'flood'>;
  /** fraction of the limit */
  honestLoad: number;
  routing: RunParams['routing'];
  /** flood multiple of the limit */
  attack: number;
  designs: DesignId[];
  /** which traffic the run over time shows */
  runOf: 'attack' | 'honest';
  minutes: number;
  seed: number;
}

export const DEFAULT_STATE: PageState = {
  gateways: 8,
  syncS: 1,
  limit: 100,
  windowS: 60,
  honestKind: 'steady',
  honestLoad: 0.8,
  routing: 'even',
  attack: 100,
  designs: ['shared-counter', 'assume-others', 'leases'],
  runOf: 'attack',
  minutes: 20,
  seed: 1,
};

/** The slider stops: Δ and the attack on a roughly logarithmic grid. */
export const SYNC_STOPS = [0.1, 0.2, 0.3, 0.5, 1, 2, 3, 5, 10, 20, 30, 60];
export const ATTACK_STOPS = [1.5, 2, 3, 5, 10, 20, 30, 50, 100, 200, 300, 500, 1000];
/** The Δ values the sweep charts use (the study's), those no longer than W. */
export const SWEEP_DELTAS = [0.1, 0.3, 1, 3, 10];

export function sweepDeltas(windowS: number): number[] {
  return SWEEP_DELTAS.filter((d) => d <= windowS);
}

function common(s: PageState, design: DesignId, syncS: number) {
  return {
    design,
    gateways: s.gateways,
    syncS,
    limit: s.limit,
    windowS: s.windowS,
    windowKind: 'sliding',
    alignedSyncs: false,
    routing: s.routing,
    minutes: s.minutes,
    seed: s.seed,
  } as const;
}

/** The run over time for one design: the attack or the honest client, at the chosen Δ. */
export function runParams(s: PageState, design: DesignId): RunParams {
  return s.runOf === 'attack'
    ? { ...common(s, design, s.syncS), traffic: 'flood', load: s.attack }
    : { ...common(s, design, s.syncS), traffic: s.honestKind, load: s.honestLoad };
}

/** A point of the sweep charts: the attack (over-admission) or the honest client (rejection) at Δ. */
export function sweepParams(
  s: PageState,
  design: DesignId,
  syncS: number,
  kind: 'attack' | 'honest',
): RunParams {
  return kind === 'attack'
    ? { ...common(s, design, syncS), traffic: 'flood', load: s.attack }
    : { ...common(s, design, syncS), traffic: s.honestKind, load: s.honestLoad };
}

/** The `fleetlimit sim` command that gives the same numbers. */
export function simCommand(p: RunParams): string {
  return (
    `npx fleetlimit sim --design ${p.design} --gateways ${p.gateways} --sync ${p.syncS} --limit ${p.limit} ` +
    `--window ${p.windowS} --traffic ${p.traffic} --load ${p.load} --routing ${p.routing} ` +
    `--minutes ${p.minutes} --seed ${p.seed} --json`
  );
}

/** Problems with the state, by control; an empty list means it can run. */
export function stateErrors(s: PageState): Record<string, string> {
  const e: Record<string, string> = {};
  if (!Number.isInteger(s.gateways) || s.gateways < 1 || s.gateways > 64) e.gateways = 'K must be 1–64';
  if (!Number.isInteger(s.limit) || s.limit < 1 || s.limit > 1_000_000)
    e.limit = 'L must be a whole number ≥ 1';
  if (!(s.windowS > 0) || s.windowS > 86_400) e.windowS = 'W must be between 0 and 86,400 s';
  else if (!(s.syncS > 0) || s.syncS > s.windowS) e.syncS = 'Δ must not exceed W';
  if (!(s.minutes > 0) || s.minutes > 600) e.minutes = 'minutes must be between 0 and 600';
  else if (s.windowS > 0 && s.minutes * 60 < s.windowS) e.minutes = 'run at least one window W';
  if (!Number.isInteger(s.seed) || s.seed < 0) e.seed = 'seed must be a whole number ≥ 0';
  if (s.designs.length === 0) e.designs = 'choose at least one design';
  return e;
}

const KEYS: (keyof PageState)[] = [
  'gateways',
  'syncS',
  'limit',
  'windowS',
  'honestKind',
  'honestLoad',
  'routing',
  'attack',
  'designs',
  'runOf',
  'minutes',
  'seed',
];

/** The state as a URL fragment, so a setting can be linked to. */
export function encodeState(s: PageState): string {
  const q = new URLSearchParams();
  for (const k of KEYS) q.set(k, Array.isArray(s[k]) ? (s[k] as string[]).join(',') : String(s[k]));
  return q.toString();
}

/** Reads a fragment written by encodeState; anything missing or unreadable keeps its default. */
export function decodeState(hash: string): PageState {
  const q = new URLSearchParams(hash.replace(/^#/, ''));
  const s: PageState = { ...DEFAULT_STATE, designs: [...DEFAULT_STATE.designs] };
  const n = (k: keyof PageState) => {
    const v = q.get(k);
    const x = v === null || v.trim() === '' ? Number.NaN : Number(v);
    if (Number.isFinite(x)) (s as unknown as Record<string, unknown>)[k] = x;
  };
  for (const k of [
    'gateways',
    'syncS',
    'limit',
    'windowS',
    'honestLoad',
    'attack',
    'minutes',
    'seed',
  ] as const)
    n(k);
  const kind = q.get('honestKind');
  if (kind === 'steady' || kind === 'pageload') s.honestKind = kind;
  const routing = q.get('routing');
  if (routing === 'even' || routing === 'uneven') s.routing = routing;
  const runOf = q.get('runOf');
  if (runOf === 'attack' || runOf === 'honest') s.runOf = runOf;
  const designs = q.get('designs');
  if (designs !== null) {
    s.designs = designs
      .split(',')
      .filter((d): d is DesignId => (DESIGN_IDS as readonly string[]).includes(d));
  }
  return s;
}
