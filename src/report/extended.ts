/** The extended study's sections: the scorecard, real-world syncs, picked-gateway attacks, the hard cases, the formulas. */
import { DESIGN_IDS, type DesignId } from '../config.js';
import { DESIGNS } from '../designs/index.js';
import {
  fitOverAdmission,
  type OverFit,
  overAdmission,
  overAdmissionPoints,
} from '../sim/fit-over-admission.js';
import type { RunRow } from '../sim/types.js';
import { cellStat, distinct, type MetricKey } from './aggregate.js';
import { asLine, asScatter, type ChartSeries, type ReportChart } from './chart-spec.js';
import type { Block, Section } from './document.js';
import { formatNumber, formatPercent } from './format.js';
import type { Table } from './tables.js';

const NONE = '—';

function designsIn(rows: readonly RunRow[]): DesignId[] {
  const present = new Set(rows.map((r) => r.design));
  return DESIGN_IDS.filter((d) => present.has(d));
}

function style(d: DesignId): number {
  return DESIGN_IDS.indexOf(d);
}

function mean(rows: readonly RunRow[], m: MetricKey): number {
  return cellStat(rows, m).mean;
}

function missing(text: string): Block {
  return { kind: 'missing', text: `Not in this study's results: ${text}` };
}

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
  for (const [k, g] of groups) out.set(k, mean(g, m));
  return out;
}

/** Lines of a metric against a parameter, one per design. */
function lines(
  rows: readonly RunRow[],
  xOf: (r: RunRow) => number,
  m: MetricKey,
  keep: (x: number) => boolean = () => true,
): ChartSeries[] {
  const xs = [...new Set(rows.map(xOf))].filter(keep).sort((a, b) => a - b);
  return designsIn(rows).map((d) => ({
    name: d,
    style: style(d),
    points: xs
      .map((x) => rows.filter((r) => r.design === d && xOf(r) === x))
      .filter((c) => c.length > 0)
      .map((c) => ({ x: xOf(c[0]!), y: mean(c, m) })),
  }));
}

function chart(name: string, title: string, drawn: Omit<ReportChart, 'name'>): Block {
  return { kind: 'chart', title, chart: { name, ...drawn } };
}

const delayOf = (r: RunRow) => r.storeDelayMs ?? 0;
const lossOf = (r: RunRow) => r.syncLoss ?? 0;
const attackOf = (r: RunRow) => r.attack ?? 'even';

// ---------------------------------------------------------------------------------------------- scorecard

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
    return c.length === 0 ? Number.NaN : mean(c, m);
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

export function scorecardSection(all: readonly RunRow[]): Section {
  const id = 'scorecard';
  const title = 'Scorecard: every design against every target (K ∈ {2, 8, 32}, Δ = 1 s)';
  const intro: Block = {
    kind: 'text',
    text:
      'The issue’s targets for a design that beats the seven, each checked on this study’s own runs at K up to 32 ' +
      'and Δ = 1 s (L = 100 per 60 s sliding window). A cell reads PASS or FAIL and the figure that decided it: the ' +
      'worst configuration’s mean over seeds. Floods: the most admitted per window over every K and flood rate, ' +
      'spread evenly over the gateways or sent whole to one. Honest: the largest excess of a design’s rejections ' +
      'over the central log’s in the same configuration (and the least, which is negative when a design admits ' +
      'more than the exact log, i.e. over-admits). Cost: the share of requests that waited on a store round trip, ' +
      'and store operations per second (syncs + request-path calls) against shared-counter’s in the same ' +
      'configuration. Delay: the change in admitted per window under floods (100×, 1,000×) and in honest rejections ' +
      'when every store call takes 1 or 10 ms more (jitter half of it), at K = 8; the latency the delay adds to ' +
      'request-path calls is charted in “Store delay” below.',
  };
  const sc = all.filter((r) => r.group === 'scorecard' || r.group === 'delay');
  if (sc.length === 0)
    return { id, title, blocks: [intro, missing('the extended grid (study --grid extended).')] };
  const designs = designsIn(sc);
  let passAll: string[] = [];
  const table: Table = {
    columns: [{ title: 'design' }, ...SCORECARD_TARGETS.map((t) => ({ title: t.title }))],
    rows: designs.map((d) => {
      let every = true;
      const row = [
        d,
        ...SCORECARD_TARGETS.map((t) => {
          const v = t.verdict(d, all);
          if (v === null) {
            every = false;
            return NONE;
          }
          if (!v.pass) every = false;
          return `${v.pass ? 'PASS' : 'FAIL'} ${v.figure}`;
        }),
      ];
      if (every) passAll = [...passAll, d];
      return row;
    }),
  };
  const verdict: Block = {
    kind: 'text',
    text:
      passAll.length === 0 ? 'No design meets every target.' : `Meets every target: ${passAll.join(', ')}.`,
  };
  return { id, title, blocks: [intro, { kind: 'table', table }, verdict] };
}

// ---------------------------------------------------------------------------------------------- real world

export function storeDelaySection(all: readonly RunRow[]): Section {
  const id = 'store-delay';
  const title = 'Store delay: a sync’s reply arrives late (K = 8, Δ = 1 s)';
  const intro: Block = {
    kind: 'text',
    text:
      'Every store call takes the given delay plus a uniform jitter of up to half of it: a sync is applied by the ' +
      'store when sent and its reply reaches the gateway that much later, so what a gateway learns is that old, ' +
      'and a request-path call (central-log, leases-ask) keeps its request waiting as long. Lines: admitted per ' +
      'window under a 100× flood, honest rejections (steady 80 %, uneven) and the mean time a request waits on ' +
      'the store, against the delay (log axis; the 0 ms points are in the table).',
  };
  const rows = all.filter((r) => r.group === 'delay');
  if (rows.length === 0)
    return { id, title, blocks: [intro, missing('store-delay runs (--grid extended).')] };
  const delays = distinct(rows, 'storeDelayMs') as number[];
  const designs = designsIn(rows);
  const cell = (
    d: DesignId,
    ms: number,
    traffic: string,
    load: number,
    m: MetricKey,
    fmt: (v: number) => string,
  ) => {
    const c = rows.filter(
      (r) => r.design === d && delayOf(r) === ms && r.traffic === traffic && r.load === load,
    );
    return c.length === 0 ? NONE : fmt(mean(c, m));
  };
  const table: Table = {
    columns: [
      { title: 'design · delay →' },
      ...delays.map((ms) => ({ title: `${formatNumber(ms)} ms`, align: 'right' as const })),
    ],
    rows: designs.map((d) => [
      d,
      ...delays.map(
        (ms) =>
          `${cell(d, ms, 'flood', 100, 'admittedPerWindow', formatNumber)} · ${cell(d, ms, 'steady', 0.8, 'rejectedPct', formatPercent)} · ${cell(d, ms, 'steady', 0.8, 'latencyMs', (v) => `${formatNumber(v)} ms`)}`,
      ),
    ]),
  };
  const note: Block = {
    kind: 'text',
    text: 'Each cell: admitted per window under a 100× flood (× L) · honest rejections (steady 80 %, uneven) · mean wait on the store per honest request.',
  };
  const pos = (x: number) => x > 0;
  const flood = rows.filter((r) => r.traffic === 'flood' && r.load === 100);
  const honest = rows.filter((r) => r.traffic === 'steady');
  return {
    id,
    title,
    blocks: [
      intro,
      { kind: 'table', table },
      note,
      chart(
        'store-delay-flood',
        'Admitted per window under a 100× flood vs store delay',
        asLine({
          title: 'Admitted per window under a 100× flood vs store delay (K = 8, Δ = 1 s)',
          x: { title: 'store delay (ms)', scale: 'log' },
          y: { title: 'admitted per window (× L)', scale: 'log' },
          series: lines(flood, delayOf, 'admittedPerWindow', pos),
          referenceLines: [{ y: 1, label: 'the limit L' }],
        }),
      ),
      chart(
        'store-delay-honest',
        'Honest rejections vs store delay',
        asLine({
          title: 'Honest rejections vs store delay (steady 80 %, uneven, K = 8, Δ = 1 s)',
          x: { title: 'store delay (ms)', scale: 'log' },
          y: { title: 'requests rejected (%)', scale: 'log' },
          series: lines(honest, delayOf, 'rejectedPct', pos),
        }),
      ),
      chart(
        'store-delay-latency',
        'Mean wait on the store per request vs store delay',
        asLine({
          title: 'Mean wait on the store per request vs store delay (steady 80 %, uneven, K = 8)',
          x: { title: 'store delay (ms)', scale: 'log' },
          y: { title: 'mean wait per request (ms)', scale: 'log' },
          series: lines(honest, delayOf, 'latencyMs', pos),
        }),
      ),
    ],
  };
}

export function syncLossSection(all: readonly RunRow[]): Section {
  const id = 'sync-loss';
  const title = 'Sync loss: a sync’s reply is lost (K = 8, Δ = 1 s)';
  const intro: Block = {
    kind: 'text',
    text:
      'Each sync’s reply is lost with the given probability; half of the lost syncs had landed at the store, half ' +
      'had not. As the runtime does, the gateway keeps the failed request whole and resends it (same sequence ' +
      'number, so the store applies its pushes once) at its next sync instant, then sends a fresh sync; its ' +
      'pushes stay counted as its own meanwhile. Lines: admitted per window under a 100× flood and honest ' +
      'rejections (steady 80 %, uneven) against the loss rate (the 0 points are in the table). The lease designs ' +
      'can exceed L here: when a gateway’s syncs fail for longer than the lease TTL and the pushes had not landed, ' +
      'the store lets the grant lapse while the admits spent from it are still unknown to it, and grants those ' +
      'slots again (the windows over L are counted in the table).',
  };
  const rows = all.filter((r) => r.group === 'loss');
  if (rows.length === 0) return { id, title, blocks: [intro, missing('sync-loss runs (--grid extended).')] };
  const losses = distinct(rows, 'syncLoss') as number[];
  const designs = designsIn(rows);
  const table: Table = {
    columns: [
      { title: 'design · loss →' },
      ...losses.map((p) => ({ title: formatPercent(100 * p), align: 'right' as const })),
    ],
    rows: designs.map((d) => [
      d,
      ...losses.map((p) => {
        const f = rows.filter((r) => r.design === d && lossOf(r) === p && r.traffic === 'flood');
        const h = rows.filter((r) => r.design === d && lossOf(r) === p && r.traffic === 'steady');
        if (f.length === 0 || h.length === 0) return NONE;
        const over = f.reduce((a, r) => a + r.windowsOverLimit, 0);
        return `${formatNumber(mean(f, 'admittedPerWindow'))} [${formatNumber(mean(f, 'worstWindow'))}; ${over}] · ${formatPercent(mean(h, 'rejectedPct'))}`;
      }),
    ]),
  };
  const note: Block = {
    kind: 'text',
    text: 'Each cell: admitted per window under a 100× flood (× L) [worst window × L; spans over L, summed over seeds] · honest rejections.',
  };
  const pos = (x: number) => x > 0;
  return {
    id,
    title,
    blocks: [
      intro,
      { kind: 'table', table },
      note,
      chart(
        'sync-loss-flood',
        'Admitted per window under a 100× flood vs sync loss',
        asLine({
          title: 'Admitted per window under a 100× flood vs sync loss (K = 8, Δ = 1 s)',
          x: { title: 'sync replies lost (fraction)', scale: 'log' },
          y: { title: 'admitted per window (× L)', scale: 'log' },
          series: lines(
            rows.filter((r) => r.traffic === 'flood'),
            lossOf,
            'admittedPerWindow',
            pos,
          ),
          referenceLines: [{ y: 1, label: 'the limit L' }],
        }),
      ),
      chart(
        'sync-loss-honest',
        'Honest rejections vs sync loss',
        asLine({
          title: 'Honest rejections vs sync loss (steady 80 %, uneven, K = 8, Δ = 1 s)',
          x: { title: 'sync replies lost (fraction)', scale: 'log' },
          y: { title: 'requests rejected (%)', scale: 'log' },
          series: lines(
            rows.filter((r) => r.traffic === 'steady'),
            lossOf,
            'rejectedPct',
            pos,
          ),
        }),
      ),
    ],
  };
}

export function attackSection(all: readonly RunRow[]): Section {
  const id = 'attack-pick';
  const title = 'A flood sent to one gateway (picked) vs spread evenly (K = 32, Δ = 1 s)';
  const intro: Block = {
    kind: 'text',
    text:
      'The same floods as the scorecard’s, at K = 32, sent whole to one gateway (an attacker who found the ' +
      'gateway that admits, or the least loaded one) instead of spread over all. One gateway sees its own ' +
      'admits at once, so the synced designs hold a picked flood near L; designs that divide the limit ' +
      '(split, assume-others) or lean on a share measured over W (track-share) turn it away well below L for a ' +
      'window or more. Each cell: admitted per window, even / picked.',
  };
  const rows = all.filter((r) => r.group === 'scorecard' && r.traffic === 'flood' && r.gateways === 32);
  if (rows.length === 0) return { id, title, blocks: [intro, missing('scorecard flood runs at K = 32.')] };
  const loads = distinct(rows, 'load');
  const table: Table = {
    columns: [
      { title: 'design · flood rate →' },
      ...loads.map((l) => ({ title: `${formatNumber(l)}×`, align: 'right' as const })),
    ],
    rows: designsIn(rows).map((d) => [
      d,
      ...loads.map((l) => {
        const e = rows.filter((r) => r.design === d && r.load === l && attackOf(r) === 'even');
        const p = rows.filter((r) => r.design === d && r.load === l && attackOf(r) === 'pick');
        return `${e.length ? formatNumber(mean(e, 'admittedPerWindow')) : NONE} / ${p.length ? formatNumber(mean(p, 'admittedPerWindow')) : NONE}`;
      }),
    ]),
  };
  return {
    id,
    title,
    blocks: [
      intro,
      { kind: 'table', table },
      chart(
        id,
        'Admitted per window vs flood rate, picked gateway',
        asLine({
          title: 'Admitted per window vs flood rate, the whole flood on one gateway (K = 32, Δ = 1 s)',
          x: { title: 'flood rate (× L per window)', scale: 'log' },
          y: { title: 'admitted per window (× L)', scale: 'log' },
          series: lines(
            rows.filter((r) => attackOf(r) === 'pick'),
            (r) => r.load,
            'admittedPerWindow',
          ),
          referenceLines: [{ y: 1, label: 'the limit L' }],
        }),
      ),
    ],
  };
}

export function hardCasesSection(all: readonly RunRow[]): Section {
  const id = 'hard-cases';
  const title = 'Two hard cases: a flood’s onset, and a pulsed flood on top of an honest client';
  const intro: Block = {
    kind: 'text',
    text:
      'Onset: an honest client at 80 % (steady, even) has the key for two windows, then a 1,000× flood starts; ' +
      'the figure is the most admitted in any window-long span ending within one window of the onset (× L) — what ' +
      'gets through before the gateways have noticed. Pulsed: the same honest client, plus a 1,000× flood for 2 s ' +
      'every 120 s; the figure is the share of the honest client’s requests rejected, next to the central log’s in ' +
      'the same setting (after a pulse the key is full for a window, so even the exact log turns the client away ' +
      'then), and the worst window of the run. Mean over seeds.',
  };
  const rows = all.filter((r) => r.group === 'hard');
  if (rows.length === 0) return { id, title, blocks: [intro, missing('hard-case runs (--grid extended).')] };
  const ks = distinct(rows, 'gateways');
  const base = (k: number) =>
    rows.filter((r) => r.design === 'central-log' && r.gateways === k && r.traffic === 'pulsed');
  const table: Table = {
    columns: [
      { title: 'design' },
      ...ks.map((k) => ({ title: `onset worst W, K = ${k}`, align: 'right' as const })),
      ...ks.map((k) => ({
        title: `pulsed: honest rejected (central-log), worst W, K = ${k}`,
        align: 'right' as const,
      })),
    ],
    rows: designsIn(rows).map((d) => [
      d,
      ...ks.map((k) => {
        const c = rows.filter((r) => r.design === d && r.gateways === k && r.traffic === 'onset');
        return c.length ? `${formatNumber(mean(c, 'onsetWorst'))} × L` : NONE;
      }),
      ...ks.map((k) => {
        const c = rows.filter((r) => r.design === d && r.gateways === k && r.traffic === 'pulsed');
        const b = base(k);
        if (c.length === 0) return NONE;
        return `${formatPercent(mean(c, 'honestRejectedPct'))} (${b.length ? formatPercent(mean(b, 'honestRejectedPct')) : NONE}), ${formatNumber(mean(c, 'worstWindow'))} × L`;
      }),
    ]),
  };
  return { id, title, blocks: [intro, { kind: 'table', table }] };
}

// ---------------------------------------------------------------------------------------------- formulas

/** What each design's bound is, in words: the hard ones from the code, the statistical ones from the fit. */
export function boundText(design: DesignId, fit: OverFit | null): string {
  switch (DESIGNS[design].bound) {
    case 'L':
      return 'L (hard)';
    case 'share':
      return 'K·ceil(L/K) (hard)';
    case 'none':
      if (fit === null) return NONE;
      return `1 + S·(1 − e^(−${formatNumber(fit.c)}·x/S)), S = ${formatNumber(fit.a)}·(K−1)^${formatNumber(fit.b)}`;
  }
}

export function formulaSection(all: readonly RunRow[]): Section {
  const id = 'over-admission-formulas';
  const title = 'Over-admission as a formula in K, Δ, W, L and the flood rate';
  const intro: Block = {
    kind: 'text',
    text:
      'For every synced design the flood runs (sliding window, own sync phases, every K > 1 and Δ) are fitted to one ' +
      'curve: admitted per window / L = 1 + S·(1 − exp(−c·x/S)), where x = load·Δ/W is what the flood sends in one ' +
      'sync interval in units of L (load × L per W is the flood rate r, so x = r·Δ/L). The initial slope c says ' +
      'how much of a sync interval’s flood gets through (each freed slot is taken by every gateway that sees an ' +
      'arrival before it learns the others took it); S = a·(K − 1)^b is the ceiling, reached when every gateway ' +
      'fills on its own. The fit is least squares on log(admitted); rms is the typical relative error. W and L ' +
      'enter only through x (and L through the honest part, not modelled here); the curve bends where a flood ' +
      'does not fill the window (load near 1); adaptive is fitted on Δ ≤ 1 s only (at Δ = 10 s its blind span, capped at ' +
      'W/6, is shorter than 4Δ and it holds floods below L at K ≤ 8 and near 1.5 × L at K = 32). ' +
      'The chart puts the fitted curve (lines, K = 2, 8, 32) next to the simulated points.',
  };
  const designs = designsIn(all.filter((r) => r.group === 'flood'));
  if (designs.length === 0) return { id, title, blocks: [intro, missing('flood runs.')] };
  const fits = designs.map((d) => ({ d, f: fitOverAdmission(all, d) }));
  const table: Table = {
    columns: [
      { title: 'design' },
      { title: 'bound / fitted admitted per W (× L)' },
      { title: 'c', align: 'right' },
      { title: 'a', align: 'right' },
      { title: 'b', align: 'right' },
      { title: 'rms', align: 'right' },
      { title: 'points', align: 'right' },
    ],
    rows: fits.map(({ d, f }) => {
      const hard = DESIGNS[d].bound !== 'none';
      return [
        d,
        boundText(d, f),
        hard || f === null ? NONE : formatNumber(f.c),
        hard || f === null ? NONE : formatNumber(f.a),
        hard || f === null ? NONE : formatNumber(f.b),
        hard || f === null ? NONE : `${formatNumber(100 * (Math.exp(f.rmsLog) - 1))} %`,
        f === null ? NONE : String(f.points),
      ];
    }),
  };
  const blocks: Block[] = [intro, { kind: 'table', table }];
  for (const { d, f } of fits) {
    if (f === null || DESIGNS[d].bound !== 'none') continue;
    const pts = overAdmissionPoints(all, d);
    const ks = [...new Set(pts.map((p) => p.K))].sort((a, b) => a - b);
    const xs = [...new Set(pts.map((p) => p.x))].sort((a, b) => a - b);
    const series: ChartSeries[] = [];
    ks.forEach((K, i) => {
      series.push({
        name: `K = ${K} simulated`,
        group: `K = ${K}`,
        style: i,
        points: pts.filter((p) => p.K === K).map((p) => ({ x: p.x, y: p.y })),
      });
    });
    const drawn = asScatter({
      title: `${d}: simulated points and the fitted curve`,
      x: { title: 'flood arrivals in one Δ (× L) = load × Δ / W', scale: 'log' },
      y: { title: 'admitted per window (× L)', scale: 'log' },
      series: [
        ...series,
        ...ks.map((K, i) => ({
          name: `K = ${K} fitted`,
          group: `K = ${K}`,
          style: i,
          mark: 'line' as const,
          points: xs.map((x) => ({ x, y: overAdmission(x, K, f) })),
        })),
      ],
      referenceLines: [{ y: 1, label: 'the limit L' }],
    });
    blocks.push(chart(`formula-${d}`, `${d}: fitted over-admission next to the simulated points`, drawn));
  }
  return { id, title, blocks };
}

// ---------------------------------------------------------------------------------------------- many keys

/** One design's many-keys figures at one (N, S): means over seeds. */
export interface KeyCostPoint {
  design: DesignId;
  keys: number;
  popularity: number;
  storeOpsPerSec: number;
  keyOpsPerSec: number;
  keysPerSync: number;
  bytesPerGateway: number;
  storeKeys: number;
  admittedPerWindow: number;
  unfloodedRejectedPct: number;
}

/** The many-keys runs (group 'keys') reduced to one point per design, N and S, in design, N, S order. */
export function keyCostPoints(all: readonly RunRow[]): KeyCostPoint[] {
  const rows = all.filter((r) => r.group === 'keys');
  const avg = (c: readonly RunRow[], f: (r: RunRow) => number | undefined) =>
    c.reduce((a, r) => a + (f(r) ?? Number.NaN), 0) / c.length;
  const out: KeyCostPoint[] = [];
  for (const design of designsIn(rows)) {
    for (const keys of distinct(rows, 'keys') as number[]) {
      for (const popularity of distinct(rows, 'popularity') as number[]) {
        const c = rows.filter((r) => r.design === design && r.keys === keys && r.popularity === popularity);
        if (c.length === 0) continue;
        out.push({
          design,
          keys,
          popularity,
          storeOpsPerSec: avg(c, (r) => r.storeOpsPerSec),
          keyOpsPerSec: avg(c, (r) => r.keyOpsPerSec),
          keysPerSync: avg(c, (r) => r.keysPerSync),
          bytesPerGateway: avg(c, (r) => r.bytesPerGateway),
          storeKeys: avg(c, (r) => r.storeKeys),
          admittedPerWindow: avg(c, (r) => r.admittedPerWindow),
          unfloodedRejectedPct: avg(c, (r) => r.unfloodedRejectedPct),
        });
      }
    }
  }
  return out;
}

function kib(bytes: number): string {
  return `${formatNumber(bytes / 1024)} KiB`;
}

export function manyKeysSection(all: readonly RunRow[]): Section {
  const id = 'many-keys';
  const title = 'Many keys: what syncing a key population costs (K = 8, Δ = 1 s)';
  const first = all.find((r) => r.group === 'keys');
  const flood =
    first === undefined
      ? ''
      : `; ${formatNumber(first.floodKeys ?? 0)} keys (${first.floodPick ?? 'hot'}) also get a ${formatNumber(first.floodLoad ?? 0)}× flood; ${formatNumber(first.minutes)} minutes`;
  const intro: Block = {
    kind: 'text',
    text:
      'N keys with Zipf popularity: key r (1-based rank) gets an honest steady client at 0.8/r^S × L per W (the ' +
      `hottest at 80 %), routed evenly${flood}. Each simulated gateway is ` +
      'the library’s own Gateway over one in-memory store, so the figures count what the code does. Measured over ' +
      'the steady state (after the first window): store calls per second (syncs + request-path calls); keys ' +
      'carried per second (every key of every sync, plus one per request-path call: what the store works ' +
      'through, about 20 µs per key on Redis); keys per sync call; the bytes a gateway holds (its keys held × ' +
      'the design’s bytes per held key, measured on the V8 heap by bench/key-bytes.mjs); the keys the store ' +
      'holds. Only keys with traffic in the last window cost anything, so with a long tail (S = 0.8) the cost ' +
      'grows with N, and with a steep one (S = 1.2) it levels off. central-log holds nothing on a gateway and ' +
      'split carries nothing in its syncs: they are left out of the log-axis charts where their figure is 0. ' +
      'What one key never shows: leases turns away most requests of rarely used keys (a gateway drops a key ' +
      'after W without a request and holds no slot for it until a sync, so a key reaching a gateway less than ' +
      'once per window is refused every time); leases-ask asks the store instead, a round trip per such request.',
  };
  const points = keyCostPoints(all);
  if (points.length === 0)
    return { id, title, blocks: [intro, missing('many-keys runs (--grid extended).')] };
  const ns = [...new Set(points.map((p) => p.keys))].sort((a, b) => a - b);
  const ss = [...new Set(points.map((p) => p.popularity))].sort((a, b) => a - b);
  const designs = [...new Set(points.map((p) => p.design))];
  const at = (d: DesignId, n: number, s: number) =>
    points.find((p) => p.design === d && p.keys === n && p.popularity === s);
  const table: Table = {
    columns: [
      { title: 'design, Zipf S' },
      ...ns.map((n) => ({ title: `N = ${formatNumber(n)}`, align: 'right' as const })),
      { title: 'flooded keys: admitted per W (× L)', align: 'right' as const },
      { title: 'honest rejected, keys no flood hits', align: 'right' as const },
    ],
    rows: designs.flatMap((d) =>
      ss.map((s) => {
        const mine = points.filter((p) => p.design === d && p.popularity === s);
        const m = (f: (p: KeyCostPoint) => number) => mine.reduce((a, p) => a + f(p), 0) / mine.length;
        return [
          `${d}, S = ${formatNumber(s)}`,
          ...ns.map((n) => {
            const p = at(d, n, s);
            return p === undefined
              ? NONE
              : `${formatNumber(p.storeOpsPerSec)} · ${formatNumber(p.keyOpsPerSec)} · ${formatNumber(p.keysPerSync)} · ${kib(p.bytesPerGateway)}`;
          }),
          formatNumber(m((p) => p.admittedPerWindow)),
          formatPercent(m((p) => p.unfloodedRejectedPct)),
        ];
      }),
    ),
  };
  const note: Block = {
    kind: 'text',
    text:
      'Each N cell: store calls/s · keys carried/s · keys per sync · bytes held per gateway. The last two ' +
      'columns are means over N. Keys in the store (S = 0.8): ' +
      ns
        .map((n) => {
          const p = points.find((q) => q.keys === n && q.popularity === ss[0]);
          return p === undefined ? '' : `${formatNumber(p.storeKeys)} at N = ${formatNumber(n)}`;
        })
        .filter((x) => x !== '')
        .join(', ') +
      '.',
  };
  const s0 = ss[0]!;
  const series = (f: (p: KeyCostPoint) => number): ChartSeries[] =>
    designs.map((d) => ({
      name: d,
      style: style(d),
      points: ns
        .map((n) => at(d, n, s0))
        .filter((p): p is KeyCostPoint => p !== undefined && f(p) > 0)
        .map((p) => ({ x: p.keys, y: f(p) })),
    }));
  return {
    id,
    title,
    blocks: [
      intro,
      { kind: 'table', table },
      note,
      chart(
        'many-keys-store',
        'Keys carried per second vs N',
        asLine({
          title: `Store work: keys carried per second (syncs + request-path calls) vs N (Zipf S = ${formatNumber(s0)}, K = 8, Δ = 1 s)`,
          x: { title: 'keys N', scale: 'log' },
          y: { title: 'keys carried per second', scale: 'log' },
          series: series((p) => p.keyOpsPerSec),
        }),
      ),
      chart(
        'many-keys-bytes',
        'Bytes held per gateway vs N',
        asLine({
          title: `Bytes held per gateway vs N (Zipf S = ${formatNumber(s0)}, K = 8, Δ = 1 s)`,
          x: { title: 'keys N', scale: 'log' },
          y: { title: 'bytes held per gateway', scale: 'log' },
          series: series((p) => p.bytesPerGateway),
        }),
      ),
    ],
  };
}
