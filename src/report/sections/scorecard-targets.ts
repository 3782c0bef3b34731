/**
 * The targets a design that beats the seven must meet, each a verdict on a set of the study's runs: the
 * scorecard's own (Δ = 1 s, the extended grid) or one Δ of the main grid (the report's verdict). One set of
 * rules serves both, so the verdict and the scorecard cannot disagree.
 */
import type { DesignId } from '../../config.js';
import type { RunRow } from '../../sim/types.js';
import { formatNumber, formatPercent } from '../../util/format.js';
import { groupBy } from '../../util/group-by.js';
import { distinct, type MetricKey } from '../aggregate.js';
import { attackOf, delayOf, meanOf } from './common.js';

/** Groups rows by a key and returns each group's mean of a metric (or, `over: 'max'`, its largest seed's). */
function cells(
  rows: readonly RunRow[],
  key: (r: RunRow) => string,
  m: MetricKey,
  over: 'mean' | 'max' = 'mean',
): Map<string, number> {
  const out = new Map<string, number>();
  for (const [k, g] of groupBy(rows, key))
    out.set(k, over === 'max' ? Math.max(...g.map((r) => r[m])) : meanOf(g, m));
  return out;
}

/** The largest cell and its key ('' and −∞ when there is none). */
function largest(c: Map<string, number>): { key: string; value: number } {
  let key = '';
  let value = Number.NEGATIVE_INFINITY;
  for (const [k, v] of c)
    if (v > value) {
      value = v;
      key = k;
    }
  return { key, value };
}

export interface Verdict {
  pass: boolean;
  /** the figure that decided it, in words: `value` and where it was measured */
  figure: string;
  /** the figure alone, e.g. "2.45 × L" */
  value: string;
}

function verdict(pass: boolean, value: string, where: string): Verdict {
  return { pass, value, figure: `${value} ${where}` };
}

/** The runs targets are judged on. */
export interface TargetRuns {
  /** floods (spread evenly or, `attack: 'pick'`, sent to one gateway) and honest clients at 80 %, every K */
  runs: readonly RunRow[];
  /** the store-delay runs (0, 1 and 10 ms) at K = 8; empty when the study has none at this setting */
  delay: readonly RunRow[];
  /** floods coming on at t = 2W on an empty key (load 0) and a busy one (an honest client at 80 %); may be empty */
  onset: readonly RunRow[];
  /** a 1,000× flood for 2 s every 120 s on an honest client at 80 %; may be empty */
  pulsed: readonly RunRow[];
}

export interface ScorecardTarget {
  id: string;
  title: string;
  /** a few words for the verdict's sentences */
  short: string;
  /** null: the runs cannot judge this target (none of the kind it needs) */
  verdict: (design: DesignId, on: TargetRuns) => Verdict | null;
}

export const FLOOD_TARGET = 1.1;
/** the most a window may hold, × L: every window, the onset's too, judged by the worst seed */
export const WORST_TARGET = 1.2;
/** a pulsed flood: the honest client's rejections at most this many times the central log's */
export const PULSED_RATIO = 2;
export const HONEST_PP = 0.5;
/** the honest client's load every honest target is judged at, × L */
export const HONEST_LOAD = 0.8;
export const TRIPS_TARGET = 0.01;
const OPS_TARGET = 2;
const DELAY_FLOOD = 0.05;

/** The scorecard's own runs: the extended grid's, at Δ = 1 s. */
export function scorecardRuns(all: readonly RunRow[]): TargetRuns {
  return {
    runs: all.filter((r) => r.group === 'scorecard'),
    delay: all.filter((r) => r.group === 'delay'),
    onset: all.filter((r) => r.group === 'onset'),
    pulsed: all.filter((r) => r.group === 'hard' && r.traffic === 'pulsed'),
  };
}

/** The same runs at one Δ only. */
export function runsAtDelta(on: TargetRuns, syncS: number): TargetRuns {
  const at = (rows: readonly RunRow[]) => rows.filter((r) => r.syncS === syncS);
  return { runs: at(on.runs), delay: at(on.delay), onset: at(on.onset), pulsed: at(on.pulsed) };
}

/**
 * The main grid's runs at one Δ in the scorecard's set-up: floods spread evenly (sliding window, each gateway
 * at its own sync phase) and honest steady and page-load clients at 80 %. No picked-gateway floods and no
 * store delay: those targets are not judged here.
 */
export function gridRunsAt(all: readonly RunRow[], syncS: number): TargetRuns {
  const runs = all.filter(
    (r) =>
      r.syncS === syncS &&
      ((r.group === 'flood' && r.windowKind === 'sliding' && !r.alignedSyncs) ||
        (r.group === 'honest' && r.load === HONEST_LOAD)),
  );
  return { runs, delay: [], onset: [], pulsed: [] };
}

/** The Δ values the main grid judged at (those with flood or honest runs), ascending. */
export function gridDeltas(all: readonly RunRow[]): number[] {
  return distinct(
    all.filter((r) => r.group === 'flood' || r.group === 'honest'),
    'syncS',
  );
}

/** Every target's verdict for one design on one set of runs, in SCORECARD_TARGETS order. */
export function judge(
  design: DesignId,
  on: TargetRuns,
): { target: ScorecardTarget; verdict: Verdict | null }[] {
  return SCORECARD_TARGETS.map((target) => ({ target, verdict: target.verdict(design, on) }));
}

function floodVerdict(attack: 'even' | 'pick') {
  return (design: DesignId, on: TargetRuns): Verdict | null => {
    const mine = on.runs.filter(
      (r) => r.design === design && r.traffic === 'flood' && attackOf(r) === attack,
    );
    if (mine.length === 0) return null;
    const c = cells(mine, (r) => `K = ${r.gateways}, ${formatNumber(r.load)}×`, 'admittedPerWindow');
    const { key, value } = largest(c);
    return verdict(value <= FLOOD_TARGET, `${formatNumber(value)} × L`, `(${key})`);
  };
}

/** The worst window under a flood (spread evenly, or sent to one gateway): the worst seed of the worst setting. */
function worstVerdict(attack: 'even' | 'pick') {
  return (design: DesignId, on: TargetRuns): Verdict | null => {
    const mine = on.runs.filter(
      (r) => r.design === design && r.traffic === 'flood' && attackOf(r) === attack,
    );
    if (mine.length === 0) return null;
    const c = cells(mine, (r) => `K = ${r.gateways}, ${formatNumber(r.load)}×`, 'worstWindow', 'max');
    const { key, value } = largest(c);
    return verdict(value <= WORST_TARGET + EPS, `${formatNumber(value)} × L`, `(${key}, worst seed)`);
  };
}

// a window's admits over L are whole numbers: 1.2 × L computed as 120 / 100 must meet 1.2
const EPS = 1e-9;

/** the key before the onset: empty (no honest client) or busy (an honest client at HONEST_LOAD) */
export type OnsetKey = 'empty' | 'busy';
export const onsetKeyOf = (r: RunRow): OnsetKey => (r.load > 0 ? 'busy' : 'empty');

/**
 * The worst window at a flood's onset on an empty or a busy key: the most admitted in a W-long span ending
 * within W of the onset, over every K, flood rate and routing (spread, one gateway); the worst seed.
 */
function onsetVerdict(key: OnsetKey) {
  return (design: DesignId, on: TargetRuns): Verdict | null => {
    const mine = on.onset.filter(
      (r) => r.design === design && onsetKeyOf(r) === key && (key === 'empty' || r.load === HONEST_LOAD),
    );
    if (mine.length === 0) return null;
    const c = cells(
      mine,
      (r) =>
        `K = ${r.gateways}, ${formatNumber(r.floodLoad ?? 0)}× ${attackOf(r) === 'pick' ? 'to one gateway' : 'spread'}`,
      'onsetWorst',
      'max',
    );
    const { key: where, value } = largest(c);
    return verdict(value <= WORST_TARGET + EPS, `${formatNumber(value)} × L`, `(${where}, worst seed)`);
  };
}

/** A pulsed flood on an honest client at 80 %: its rejections against the central log's, at each K. */
function pulsedVerdict(design: DesignId, on: TargetRuns): Verdict | null {
  const rows = on.pulsed.filter((r) => r.load === HONEST_LOAD);
  const base = cells(
    rows.filter((r) => r.design === 'central-log'),
    (r) => `K = ${r.gateways}`,
    'honestRejectedPct',
  );
  const mine = cells(
    rows.filter((r) => r.design === design),
    (r) => `K = ${r.gateways}`,
    'honestRejectedPct',
  );
  if (mine.size === 0 || base.size === 0) return null;
  let max = Number.NEGATIVE_INFINITY;
  let where = '';
  for (const [k, v] of mine) {
    const b = base.get(k);
    if (b === undefined) continue;
    // the central log turning nobody away leaves any rejection infinitely worse, and none as good
    const ratio = b > 0 ? v / b : v > 0 ? Number.POSITIVE_INFINITY : 0;
    if (ratio > max) {
      max = ratio;
      where = `${k}: ${formatPercent(v)} vs ${formatPercent(b)}`;
    }
  }
  if (max === Number.NEGATIVE_INFINITY) return null;
  return verdict(max <= PULSED_RATIO + EPS, `${formatNumber(max)}× central-log's`, `(${where})`);
}

const honestKey = (r: RunRow) => `K = ${r.gateways}, ${r.traffic} ${r.routing}`;

function honestVerdict(design: DesignId, on: TargetRuns): Verdict | null {
  const all = on.runs.filter(
    (r) => (r.traffic === 'steady' || r.traffic === 'pageload') && r.load === HONEST_LOAD,
  );
  const mine = all.filter((r) => r.design === design);
  const base = cells(
    all.filter((r) => r.design === 'central-log'),
    honestKey,
    'rejectedPct',
  );
  if (mine.length === 0 || base.size === 0) return null;
  let max = Number.NEGATIVE_INFINITY;
  let min = Number.POSITIVE_INFINITY;
  let worst = '';
  for (const [k, v] of cells(mine, honestKey, 'rejectedPct')) {
    const b = base.get(k);
    if (b === undefined) continue;
    const d = v - b;
    if (d > max) {
      max = d;
      worst = k;
    }
    if (d < min) min = d;
  }
  return verdict(max <= HONEST_PP, `${signed(max)} pp`, `(${worst}); least ${signed(min)} pp`);
}

function signed(v: number): string {
  return v >= 0 ? `+${formatNumber(v)}` : `−${formatNumber(-v)}`;
}

function tripsVerdict(design: DesignId, on: TargetRuns): Verdict | null {
  const mine = on.runs.filter((r) => r.design === design);
  if (mine.length === 0) return null;
  const c = cells(
    mine,
    (r) =>
      `K = ${r.gateways}, ${r.traffic} ${formatNumber(r.load)}×${r.traffic === 'flood' ? ` ${attackOf(r)}` : ''}`,
    'roundTripsPerRequest',
  );
  let max = 0;
  let worst = 'none';
  for (const [k, v] of c)
    if (v > max) {
      max = v;
      worst = k;
    }
  return verdict(max <= TRIPS_TARGET, `${formatPercent(100 * max)} of requests`, `(${worst})`);
}

const configKeyOf = (r: RunRow) =>
  r.traffic === 'flood'
    ? `K = ${r.gateways}, flood ${formatNumber(r.load)}× ${attackOf(r)}`
    : `K = ${r.gateways}, ${r.traffic} ${r.routing}`;

function opsVerdict(design: DesignId, on: TargetRuns): Verdict | null {
  const sc = on.runs;
  const mine = cells(
    sc.filter((r) => r.design === design),
    configKeyOf,
    'storeOpsPerSec',
  );
  const base = cells(
    sc.filter((r) => r.design === 'shared-counter'),
    configKeyOf,
    'storeOpsPerSec',
  );
  if (mine.size === 0 || base.size === 0) return null;
  let max = 0;
  let worst = '';
  for (const [k, v] of mine) {
    const b = base.get(k);
    if (b === undefined || b === 0) continue;
    if (v / b > max) {
      max = v / b;
      worst = k;
    }
  }
  return verdict(max <= OPS_TARGET, `${formatNumber(max)}× shared-counter's`, `(${worst})`);
}

function delayVerdict(design: DesignId, on: TargetRuns): Verdict | null {
  const mine = on.delay.filter((r) => r.design === design);
  if (mine.length === 0) return null;
  const at = (ms: number, traffic: string, load: number, m: MetricKey) => {
    const c = mine.filter((r) => delayOf(r) === ms && r.traffic === traffic && r.load === load);
    return c.length === 0 ? Number.NaN : meanOf(c, m);
  };
  let floodUp = Number.NEGATIVE_INFINITY;
  let honestUp = Number.NEGATIVE_INFINITY;
  for (const ms of [1, 10]) {
    for (const load of distinct(
      mine.filter((r) => r.traffic === 'flood'),
      'load',
    )) {
      const d = at(ms, 'flood', load, 'admittedPerWindow') / at(0, 'flood', load, 'admittedPerWindow') - 1;
      if (d > floodUp) floodUp = d;
    }
    for (const traffic of ['steady', 'pageload']) {
      const d = at(ms, traffic, 0.8, 'rejectedPct') - at(0, traffic, 0.8, 'rejectedPct');
      if (d > honestUp) honestUp = d;
    }
  }
  if (!Number.isFinite(floodUp) && !Number.isFinite(honestUp)) return null;
  return verdict(
    floodUp <= DELAY_FLOOD && honestUp <= HONEST_PP,
    `floods ${signed(100 * floodUp)} %, honest ${signed(honestUp)} pp`,
    '(worst of 1 and 10 ms vs 0)',
  );
}

export const SCORECARD_TARGETS: readonly ScorecardTarget[] = [
  {
    id: 'floods-even',
    title: `even floods 1.5×–1,000×: admitted per window ≤ ${FLOOD_TARGET} × L`,
    short: 'even floods',
    verdict: floodVerdict('even'),
  },
  {
    id: 'floods-pick',
    title: `picked-gateway floods 1.5×–1,000×: ≤ ${FLOOD_TARGET} × L`,
    short: 'picked-gateway floods',
    verdict: floodVerdict('pick'),
  },
  {
    id: 'worst-even',
    title: `even floods 1.5×–1,000×: worst window ≤ ${WORST_TARGET} × L (worst seed)`,
    short: 'worst window under even floods',
    verdict: worstVerdict('even'),
  },
  {
    id: 'worst-pick',
    title: `picked-gateway floods 1.5×–1,000×: worst window ≤ ${WORST_TARGET} × L (worst seed)`,
    short: 'worst window under picked-gateway floods',
    verdict: worstVerdict('pick'),
  },
  {
    id: 'onset-empty',
    title: `onset on an empty key, floods 1.5×–1,000× spread and to one gateway: worst window ≤ ${WORST_TARGET} × L`,
    short: 'onset on an empty key',
    verdict: onsetVerdict('empty'),
  },
  {
    id: 'onset-busy',
    title: `onset on a busy key (honest client at ${100 * HONEST_LOAD} %), floods 1.5×–1,000× spread and to one gateway: worst window ≤ ${WORST_TARGET} × L`,
    short: 'onset on a busy key',
    verdict: onsetVerdict('busy'),
  },
  {
    id: 'honest',
    title: `honest steady and page-load at ${100 * HONEST_LOAD} %, even and uneven: rejections ≤ central-log's + ${HONEST_PP} pp`,
    short: 'honest rejections',
    verdict: honestVerdict,
  },
  {
    id: 'pulsed',
    title: `pulsed flood (1,000× for 2 s every 120 s) on an honest client at ${100 * HONEST_LOAD} %: its rejections ≤ ${PULSED_RATIO} × central-log's`,
    short: 'pulsed flood',
    verdict: pulsedVerdict,
  },
  {
    id: 'round-trips',
    title: `round trips on the request path ≤ ${100 * TRIPS_TARGET} % of requests`,
    short: 'round trips',
    verdict: tripsVerdict,
  },
  {
    id: 'store-ops',
    title: `store operations per second ≤ ${OPS_TARGET} × shared-counter's`,
    short: 'store operations',
    verdict: opsVerdict,
  },
  {
    id: 'delay',
    title: `store delay 1 and 10 ms: admitted under floods ≤ +${100 * DELAY_FLOOD} %, honest ≤ +${HONEST_PP} pp vs no delay`,
    short: 'store delay',
    verdict: delayVerdict,
  },
];
