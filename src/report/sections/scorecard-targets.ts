/** The targets a design that beats the seven must meet, each a verdict on the study's rows. */
import type { DesignId } from '../../config.js';
import type { RunRow } from '../../sim/types.js';
import { distinct, type MetricKey } from '../aggregate.js';
import { formatNumber, formatPercent } from '../format.js';
import { attackOf, delayOf, meanOf } from './common.js';

/** Groups rows by a key and returns each group's mean of a metric. */
function cells(rows: readonly RunRow[], key: (r: RunRow) => string, m: MetricKey): Map<string, number> {
  const groups = new Map<string, RunRow[]>();
  for (const r of rows) {
    const k = key(r);
    const g = groups.get(k);
    if (g) g.push(r);
    else groups.set(k, [r]);
  }
  const out = new Map<string, number>();
  for (const [k, g] of groups) out.set(k, meanOf(g, m));
  return out;
}

export interface Verdict {
  pass: boolean;
  /** the figure that decided it, in words */
  figure: string;
}

export interface ScorecardTarget {
  id: string;
  title: string;
  verdict: (design: DesignId, rows: readonly RunRow[]) => Verdict | null;
}

const FLOOD_TARGET = 1.1;
const HONEST_PP = 0.5;
const TRIPS_TARGET = 0.01;
const OPS_TARGET = 2;
const DELAY_FLOOD = 0.05;

function scoreRows(rows: readonly RunRow[]): RunRow[] {
  return rows.filter((r) => r.group === 'scorecard');
}

function floodVerdict(attack: 'even' | 'pick') {
  return (design: DesignId, rows: readonly RunRow[]): Verdict | null => {
    const mine = scoreRows(rows).filter(
      (r) => r.design === design && r.traffic === 'flood' && attackOf(r) === attack,
    );
    if (mine.length === 0) return null;
    const c = cells(mine, (r) => `K = ${r.gateways}, ${formatNumber(r.load)}×`, 'admittedPerWindow');
    let worst = '';
    let max = Number.NEGATIVE_INFINITY;
    for (const [k, v] of c)
      if (v > max) {
        max = v;
        worst = k;
      }
    return { pass: max <= FLOOD_TARGET, figure: `${formatNumber(max)} × L (${worst})` };
  };
}

const honestKey = (r: RunRow) => `K = ${r.gateways}, ${r.traffic} ${r.routing}`;

function honestVerdict(design: DesignId, rows: readonly RunRow[]): Verdict | null {
  const all = scoreRows(rows).filter((r) => r.traffic === 'steady' || r.traffic === 'pageload');
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
  return {
    pass: max <= HONEST_PP,
    figure: `${signed(max)} pp (${worst}); least ${signed(min)} pp`,
  };
}

function signed(v: number): string {
  return v >= 0 ? `+${formatNumber(v)}` : `−${formatNumber(-v)}`;
}

function tripsVerdict(design: DesignId, rows: readonly RunRow[]): Verdict | null {
  const mine = scoreRows(rows).filter((r) => r.design === design);
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
  return { pass: max <= TRIPS_TARGET, figure: `${formatPercent(100 * max)} of requests (${worst})` };
}

const configKeyOf = (r: RunRow) =>
  r.traffic === 'flood'
    ? `K = ${r.gateways}, flood ${formatNumber(r.load)}× ${attackOf(r)}`
    : `K = ${r.gateways}, ${r.traffic} ${r.routing}`;

function opsVerdict(design: DesignId, rows: readonly RunRow[]): Verdict | null {
  const sc = scoreRows(rows);
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
  return { pass: max <= OPS_TARGET, figure: `${formatNumber(max)}× shared-counter's (${worst})` };
}

function delayVerdict(design: DesignId, rows: readonly RunRow[]): Verdict | null {
  const mine = rows.filter((r) => r.group === 'delay' && r.design === design);
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
  return {
    pass: floodUp <= DELAY_FLOOD && honestUp <= HONEST_PP,
    figure: `floods ${signed(100 * floodUp)} %, honest ${signed(honestUp)} pp (worst of 1 and 10 ms vs 0)`,
  };
}

export const SCORECARD_TARGETS: readonly ScorecardTarget[] = [
  {
    id: 'floods-even',
    title: `even floods 1.5×–1,000×: admitted per window ≤ ${FLOOD_TARGET} × L`,
    verdict: floodVerdict('even'),
  },
  {
    id: 'floods-pick',
    title: `picked-gateway floods 1.5×–1,000×: ≤ ${FLOOD_TARGET} × L`,
    verdict: floodVerdict('pick'),
  },
  {
    id: 'honest',
    title: `honest steady and page-load at 80 %, even and uneven: rejections ≤ central-log's + ${HONEST_PP} pp`,
    verdict: honestVerdict,
  },
  {
    id: 'round-trips',
    title: 'round trips on the request path ≤ 1 % of requests',
    verdict: tripsVerdict,
  },
  { id: 'store-ops', title: "store operations per second ≤ 2 × shared-counter's", verdict: opsVerdict },
  {
    id: 'delay',
    title: `store delay 1 and 10 ms: admitted under floods ≤ +${100 * DELAY_FLOOD} %, honest ≤ +${HONEST_PP} pp vs no delay`,
    verdict: delayVerdict,
  },
];
