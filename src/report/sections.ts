/** The study report's sections, each a pure function of the rows. */
import { DESIGN_IDS, type DesignId } from '../config.js';
import { DESIGNS } from '../designs/index.js';
import type { CheckResult, RunRow } from '../sim/types.js';
import { aggregateRuns, cellStat, distinct, type MetricKey } from './aggregate.js';
import { asLine, asScatter, type ChartSeries, type ReportChart } from './chart-spec.js';
import type { Block, Section } from './document.js';
import { formatMeanSe, formatNumber, formatPercent } from './format.js';
import type { Table } from './tables.js';

const NONE = '—';
const POOLED = ' †';
const POOLED_NOTE =
  '† This cell pools runs of more than one configuration: the grid varies a parameter this table does not show. ' +
  'results.csv has every run.';

/** Colour, marker and dash follow the design, so a design looks the same in every chart. */
function designStyle(design: DesignId): number {
  return DESIGN_IDS.indexOf(design);
}

function designsIn(rows: readonly RunRow[]): DesignId[] {
  const present = new Set(rows.map((r) => r.design));
  return DESIGN_IDS.filter((d) => present.has(d));
}

function floodRows(rows: readonly RunRow[]): RunRow[] {
  return rows.filter((r) => r.group === 'flood' && r.windowKind === 'sliding' && !r.alignedSyncs);
}

function missing(text: string): Block {
  return { kind: 'missing', text: `Not in this study's results: ${text}` };
}

function seconds(v: number): string {
  return `${formatNumber(v)} s`;
}

function loadLabel(load: number): string {
  return `${formatNumber(load)}× L`;
}

function percentLoad(load: number): string {
  return `${formatNumber(load * 100)} %`;
}

/**
 * A pivot table: one row per row-key, one column per column-key, each cell a function of the rows falling in it.
 * Reports whether any cell pooled several configurations so the section can say so.
 */
function pivot<R, C>(
  rows: readonly RunRow[],
  rowKeys: readonly R[],
  colKeys: readonly C[],
  rowOf: (r: RunRow) => R,
  colOf: (r: RunRow) => C,
  rowLabel: (k: R) => string,
  colLabel: (k: C) => string,
  corner: string,
  cell: (rows: RunRow[]) => { text: string; pooled: boolean },
): { table: Table; pooled: boolean } {
  let pooled = false;
  const body = rowKeys.map((rk) => [
    rowLabel(rk),
    ...colKeys.map((ck) => {
      const inCell = rows.filter((r) => rowOf(r) === rk && colOf(r) === ck);
      if (inCell.length === 0) return NONE;
      const c = cell(inCell);
      pooled ||= c.pooled;
      return c.text + (c.pooled ? POOLED : '');
    }),
  ]);
  return {
    table: {
      columns: [{ title: corner }, ...colKeys.map((k) => ({ title: colLabel(k), align: 'right' as const }))],
      rows: body,
    },
    pooled,
  };
}

function meanSe(metric: MetricKey) {
  return (rows: RunRow[]) => {
    const s = cellStat(rows, metric);
    return { text: formatMeanSe(s.mean, s.se, s.n), pooled: s.configs > 1 };
  };
}

/** "0.42 % [0.98]": rejected percent with the worst window (× L) in brackets. */
function rejectedWithWorst(rows: RunRow[]) {
  const rej = cellStat(rows, 'rejectedPct');
  const worst = cellStat(rows, 'worstWindow');
  return { text: `${formatPercent(rej.mean)} [${formatNumber(worst.mean)}]`, pooled: rej.configs > 1 };
}

function tableBlocks(t: { table: Table; pooled: boolean }): Block[] {
  return t.pooled
    ? [
        { kind: 'table', table: t.table },
        { kind: 'text', text: POOLED_NOTE },
      ]
    : [{ kind: 'table', table: t.table }];
}

function meanOf(rows: readonly RunRow[], metric: MetricKey): number {
  return cellStat(rows, metric).mean;
}

/** Lines of a metric against a numeric parameter, one per design, from the rows' cell means. */
function designLines(rows: readonly RunRow[], xOf: (r: RunRow) => number, metric: MetricKey): ChartSeries[] {
  const xs = [...new Set(rows.map(xOf))].sort((a, b) => a - b);
  return designsIn(rows).map((d) => {
    const mine = rows.filter((r) => r.design === d);
    return {
      name: d,
      style: designStyle(d),
      points: xs
        .map((x) => mine.filter((r) => xOf(r) === x))
        .filter((cell) => cell.length > 0)
        .map((cell) => ({ x: xOf(cell[0]!), y: meanOf(cell, metric) })),
    };
  });
}

function chart(name: string, title: string, drawn: Omit<ReportChart, 'name'>): Block {
  return { kind: 'chart', title, chart: { name, ...drawn } };
}

export function floodAtK8Section(all: readonly RunRow[]): Section {
  const id = 'flood-k8';
  const title = 'Admitted per window under a flood, K = 8, Δ = 1 s';
  const intro: Block = {
    kind: 'text',
    text:
      'A flood spread evenly over K = 8 gateways that sync every Δ = 1 s (sliding window, each gateway at its own ' +
      'sync phase). Each cell is the mean over seeds of the number admitted per window after the first window, as a ' +
      'multiple of the limit L, ± the standard error. 1 means the limit held exactly; below 1 the design turned ' +
      'away requests it could have served; above 1 the flood got through. The chart shows the same means, one line ' +
      'per design, on log–log axes; the dashed line is the limit.',
  };
  const rows = floodRows(all).filter((r) => r.gateways === 8 && r.syncS === 1);
  if (rows.length === 0) return { id, title, blocks: [intro, missing('flood runs with K = 8 and Δ = 1 s.')] };
  const loads = distinct(rows, 'load');
  const t = pivot(
    rows,
    designsIn(rows),
    loads,
    (r) => r.design,
    (r) => r.load,
    (d) => d,
    loadLabel,
    'design · flood rate →',
    meanSe('admittedPerWindow'),
  );
  const drawn = asLine({
    title: 'Admitted per window vs flood rate (K = 8, Δ = 1 s)',
    x: { title: 'flood rate (× L per window)', scale: 'log' },
    y: { title: 'admitted per window (× L)', scale: 'log' },
    series: designLines(rows, (r) => r.load, 'admittedPerWindow'),
    referenceLines: [{ y: 1, label: 'the limit L' }],
  });
  return {
    id,
    title,
    blocks: [intro, ...tableBlocks(t), chart(id, 'Admitted per window vs flood rate, K = 8, Δ = 1 s', drawn)],
  };
}

export function floodAllSection(all: readonly RunRow[]): Section {
  const id = 'flood-all';
  const title = 'Admitted per window for every K and Δ, against the flood’s arrivals per Δ';
  const intro: Block = {
    kind: 'text',
    text:
      'Every flood run (sliding window, own sync phases) for every K and Δ, one point per configuration (the mean ' +
      'over its seeds). The x axis is what the flood sends in one sync interval, in units of L: load × Δ / W. A ' +
      'gateway cannot see what the others admitted during that interval, so for the synced designs this is the ' +
      'quantity that should set the over-admission: points of one design that fall on one curve whatever K and Δ ' +
      'say it does; a vertical spread at one x is the part K adds. Designs with a hard bound stay on the dashed ' +
      'line or under it.',
  };
  const rows = floodRows(all);
  if (rows.length === 0) return { id, title, blocks: [intro, missing('flood runs.')] };
  const aggregates = aggregateRuns(rows);
  const series: ChartSeries[] = designsIn(rows).map((d) => ({
    name: d,
    style: designStyle(d),
    points: aggregates
      .filter((a) => a.config.design === d)
      .map((a) => ({
        x: (a.config.load * a.config.syncS) / a.config.windowS,
        y: a.stats.admittedPerWindow.mean,
      }))
      .sort((p, q) => p.x - q.x),
  }));
  const ks = distinct(rows, 'gateways');
  const ds = distinct(rows, 'syncS');
  const drawn = asScatter({
    title: 'Admitted per window vs flood arrivals per sync interval (all K, Δ)',
    x: { title: 'flood arrivals in one Δ (× L) = load × Δ / W', scale: 'log' },
    y: { title: 'admitted per window (× L)', scale: 'log' },
    series,
    referenceLines: [{ y: 1, label: 'the limit L' }],
  });
  const span: Block = {
    kind: 'text',
    text: `${formatNumber(aggregates.length)} configurations: K ∈ {${ks.join(', ')}}, Δ ∈ {${ds.map((d) => formatNumber(d)).join(', ')}} s, ${distinct(rows, 'load').length} flood rates.`,
  };
  return {
    id,
    title,
    blocks: [intro, span, chart(id, 'Admitted per window vs flood arrivals per Δ, every K and Δ', drawn)],
  };
}

/** The default set-up keeps shared-counter's look from the other charts; the variants take otherwise unused ones. */
const VARIANT_STYLE: Record<string, number> = {
  'sliding window, own sync phases': designStyle('shared-counter'),
  'fixed window, own sync phases': designStyle('track-share'),
  'sliding window, aligned syncs': designStyle('assume-others'),
  'fixed window, aligned syncs': designStyle('split'),
};

function variantLabel(r: RunRow): string {
  return `${r.windowKind} window, ${r.alignedSyncs ? 'aligned syncs' : 'own sync phases'}`;
}

export function sharedCounterVariantsSection(all: readonly RunRow[]): Section {
  const id = 'shared-counter-variants';
  const title = 'shared-counter: sliding vs fixed window, own vs aligned syncs (K = 8, Δ = 1 s)';
  const intro: Block = {
    kind: 'text',
    text:
      'shared-counter under a flood with its default set-up (sliding window, each gateway syncing at its own phase) ' +
      'next to a fixed window and aligned syncs (every gateway syncs at the same instants). Cells are mean admitted ' +
      'per window (× L) ± standard error. Aligned syncs remove the staggering that lets one gateway see part of ' +
      'what the others admitted, so with a fixed window every gateway spends the whole limit in each window: a heavy ' +
      'flood gets K × L (the upper dashed line).',
  };
  const rows = all.filter(
    (r) => r.group === 'flood' && r.design === 'shared-counter' && r.gateways === 8 && r.syncS === 1,
  );
  const variants = [...new Set(rows.map(variantLabel))].sort();
  const hasVariant = rows.some((r) => r.windowKind === 'fixed' || r.alignedSyncs);
  if (!hasVariant)
    return {
      id,
      title,
      blocks: [
        intro,
        missing('shared-counter flood runs with a fixed window or aligned syncs at K = 8, Δ = 1 s.'),
      ],
    };
  const t = pivot(
    rows,
    variants,
    distinct(rows, 'load'),
    variantLabel,
    (r) => r.load,
    (v) => v,
    loadLabel,
    'variant · flood rate →',
    meanSe('admittedPerWindow'),
  );
  const xs = distinct(rows, 'load');
  const series: ChartSeries[] = variants.map((v) => ({
    name: v,
    style: VARIANT_STYLE[v] ?? designStyle('shared-counter'),
    points: xs
      .map((x) => rows.filter((r) => variantLabel(r) === v && r.load === x))
      .filter((c) => c.length > 0)
      .map((c) => ({ x: c[0]!.load, y: meanOf(c, 'admittedPerWindow') })),
  }));
  const drawn = asLine({
    title: 'shared-counter variants: admitted per window vs flood rate (K = 8, Δ = 1 s)',
    x: { title: 'flood rate (× L per window)', scale: 'log' },
    y: { title: 'admitted per window (× L)', scale: 'log' },
    series,
    referenceLines: [
      { y: 1, label: 'the limit L' },
      { y: 8, label: 'K × L' },
    ],
  });
  return {
    id,
    title,
    blocks: [intro, ...tableBlocks(t), chart(id, 'shared-counter variants vs flood rate', drawn)],
  };
}

function honestSteady(all: readonly RunRow[]): RunRow[] {
  return all.filter(
    (r) => r.group === 'honest' && r.traffic === 'steady' && r.load === 0.8 && r.routing === 'uneven',
  );
}

const HONEST_CELL =
  'Each cell: the percentage of the client’s requests rejected (mean over seeds), and in brackets the worst ' +
  'window: the most admitted in any window-long span, × L, mean over seeds.';

export function honestByKSection(all: readonly RunRow[]): Section {
  const id = 'honest-by-k';
  const title = 'Honest rejections by design and K (steady 80 %, uneven routing, Δ = 1 s)';
  const intro: Block = {
    kind: 'text',
    text:
      'A well-behaved client sending Poisson traffic at 80 % of the limit, routed unevenly (gateway i gets a share ' +
      `proportional to 1/i), with gateways syncing every second. ${HONEST_CELL} Even the exact central log ` +
      'rejects a little: a sliding-window log is a loss system with L servers, so Poisson traffic at 80 % loses ' +
      'about the Erlang B rate B(L, 0.8 L). A design far above the central log is punishing honest traffic for ' +
      'uneven routing; a worst window above 1 is over-admission. The chart plots the rejected percentage against K.',
  };
  const rows = honestSteady(all).filter((r) => r.syncS === 1);
  if (rows.length === 0)
    return {
      id,
      title,
      blocks: [intro, missing('honest steady runs at 80 % with uneven routing and Δ = 1 s.')],
    };
  const t = pivot(
    rows,
    designsIn(rows),
    distinct(rows, 'gateways'),
    (r) => r.design,
    (r) => r.gateways,
    (d) => d,
    (k) => `K = ${k}`,
    'design · gateways →',
    rejectedWithWorst,
  );
  const drawn = asLine({
    title: 'Honest requests rejected vs K (steady 80 %, uneven routing, Δ = 1 s)',
    x: { title: 'gateways K', scale: 'log' },
    y: { title: 'requests rejected (%)', scale: 'log' },
    series: designLines(rows, (r) => r.gateways, 'rejectedPct'),
  });
  return { id, title, blocks: [intro, ...tableBlocks(t), chart(id, 'Honest rejections vs K', drawn)] };
}

export function honestByDeltaSection(all: readonly RunRow[]): Section {
  const id = 'honest-by-delta';
  const title = 'Honest rejections by design and Δ (steady 80 %, uneven routing, K = 8)';
  const intro: Block = {
    kind: 'text',
    text:
      'The same client as above at K = 8, for every sync interval Δ. ' +
      `${HONEST_CELL} A longer Δ leaves each gateway longer on an old view of the others; read along a row to see ` +
      'how a design’s rejections and its worst window move as Δ grows.',
  };
  const rows = honestSteady(all).filter((r) => r.gateways === 8);
  if (rows.length === 0)
    return {
      id,
      title,
      blocks: [intro, missing('honest steady runs at 80 % with uneven routing and K = 8.')],
    };
  const t = pivot(
    rows,
    designsIn(rows),
    distinct(rows, 'syncS'),
    (r) => r.design,
    (r) => r.syncS,
    (d) => d,
    (s) => `Δ = ${seconds(s)}`,
    'design · sync interval →',
    rejectedWithWorst,
  );
  const drawn = asLine({
    title: 'Honest requests rejected vs Δ (steady 80 %, uneven routing, K = 8)',
    x: { title: 'sync interval Δ (s)', scale: 'log' },
    y: { title: 'requests rejected (%)', scale: 'log' },
    series: designLines(rows, (r) => r.syncS, 'rejectedPct'),
  });
  return { id, title, blocks: [intro, ...tableBlocks(t), chart(id, 'Honest rejections vs Δ', drawn)] };
}

export function pageLoadSection(all: readonly RunRow[]): Section {
  const id = 'honest-pageloads';
  const title = 'Honest rejections for page loads (K = 8, Δ = 1 s)';
  const intro: Block = {
    kind: 'text',
    text:
      'A client loading pages: bursts of 10 requests spread over one second, the bursts arriving at random so the ' +
      `mean rate is the given share of the limit. Columns are load and routing. ${HONEST_CELL} A burst lands on ` +
      'the gateways within a second, faster than most syncs; compare with the steady client above.',
  };
  const rows = all.filter(
    (r) => r.group === 'honest' && r.traffic === 'pageload' && r.gateways === 8 && r.syncS === 1,
  );
  if (rows.length === 0)
    return { id, title, blocks: [intro, missing('page-load runs at K = 8 and Δ = 1 s.')] };
  const combos = distinct(rows, 'load').flatMap((load) =>
    distinct(rows, 'routing')
      .filter((routing) => rows.some((r) => r.load === load && r.routing === routing))
      .map((routing) => `${percentLoad(load)}, ${routing}`),
  );
  const t = pivot(
    rows,
    designsIn(rows),
    combos,
    (r) => r.design,
    (r) => `${percentLoad(r.load)}, ${r.routing}`,
    (d) => d,
    (c) => c,
    'design · load, routing →',
    rejectedWithWorst,
  );
  return { id, title, blocks: [intro, ...tableBlocks(t)] };
}

const LEASE_DESIGNS: readonly DesignId[] = DESIGN_IDS.filter((d) => DESIGNS[d].grants);

function leaseCell(rows: RunRow[]) {
  const stranded = cellStat(rows, 'strandedPct');
  const trips = cellStat(rows, 'roundTripsPerRequest');
  return {
    text: `${formatPercent(stranded.mean)} · ${formatNumber(trips.mean)}`,
    pooled: stranded.configs > 1,
  };
}

function leaseTable(rows: readonly RunRow[]) {
  const designs = designsIn(rows);
  const keys = designs.flatMap((d) =>
    distinct(
      rows.filter((r) => r.design === d),
      'gateways',
    ).map((k) => `${d}, K = ${k}`),
  );
  return pivot(
    rows,
    keys,
    distinct(rows, 'syncS'),
    (r) => `${r.design}, K = ${r.gateways}`,
    (r) => r.syncS,
    (k) => k,
    (s) => `Δ = ${seconds(s)}`,
    'design, K · sync interval →',
    leaseCell,
  );
}

/** The flood rate shown for the lease designs: 10 × L when the grid has it, else the heaviest flood run. */
function leaseFloodLoad(rows: readonly RunRow[]): number | undefined {
  const loads = distinct(rows, 'load');
  return loads.includes(10) ? 10 : loads[loads.length - 1];
}

export function leasesSection(all: readonly RunRow[]): Section {
  const id = 'leases';
  const title = 'Leases: stranded budget and round trips per request';
  const intro: Block = {
    kind: 'text',
    text:
      'The lease designs never admit more than L in a window; they pay in two other ways. Stranded budget: slots a ' +
      'gateway was granted but handed back unused at a sync, as a percentage of its fair share L/K, mean over ' +
      'syncs and seeds; budget stranded on one gateway cannot serve a request on another. Round trips per request: ' +
      'store calls on the request path, made by leases-ask when a request finds no slot (leases never makes one, ' +
      'it rejects until its next sync). Rows are design and K, columns Δ; each cell reads "stranded % · round trips ' +
      'per request".',
  };
  const lease = all.filter((r) => LEASE_DESIGNS.includes(r.design));
  const honest = honestSteady(lease);
  const floods = floodRows(lease);
  const load = leaseFloodLoad(floods);
  const blocks: Block[] = [intro, { kind: 'heading', text: 'Honest traffic: steady 80 %, uneven routing' }];
  if (honest.length === 0)
    blocks.push(missing('lease runs with honest steady traffic at 80 % and uneven routing.'));
  else blocks.push(...tableBlocks(leaseTable(honest)));
  blocks.push({
    kind: 'heading',
    text: load === undefined ? 'Floods' : `Flood at ${loadLabel(load)} per window, even routing`,
  });
  if (load === undefined) blocks.push(missing('lease runs under a flood.'));
  else blocks.push(...tableBlocks(leaseTable(floods.filter((r) => r.load === load))));
  return { id, title, blocks };
}

export function busyKeySection(all: readonly RunRow[]): Section {
  const id = 'busy-key';
  const title = 'A busy key (limit 10,000 per window)';
  const intro: Block = {
    kind: 'text',
    text:
      'One key with a high limit, under honest steady traffic at the given share of it, for each design, K, Δ and ' +
      'routing. A busy key is where per-request store calls cost most, and where each gateway’s share L/K is large, ' +
      'which gives local decisions room to work. Admitted per window and the worst window are multiples of L (the ' +
      'worst above 1 means over-admission); rejected % and admitted per window carry ± the standard error over seeds.',
  };
  const rows = all.filter((r) => r.group === 'busy');
  if (rows.length === 0) return { id, title, blocks: [intro, missing('busy-key runs.')] };
  const order = (a: RunRow['design']) => DESIGN_IDS.indexOf(a);
  const aggregates = aggregateRuns(rows).sort(
    (a, b) =>
      order(a.config.design) - order(b.config.design) ||
      a.config.gateways - b.config.gateways ||
      a.config.syncS - b.config.syncS ||
      a.config.load - b.config.load ||
      a.config.routing.localeCompare(b.config.routing) ||
      a.config.limit - b.config.limit,
  );
  const limits = distinct(rows, 'limit');
  const showLimit = limits.length > 1;
  const table: Table = {
    columns: [
      { title: 'design' },
      ...(showLimit ? [{ title: 'L', align: 'right' as const }] : []),
      { title: 'K', align: 'right' },
      { title: 'Δ', align: 'right' },
      { title: 'load', align: 'right' },
      { title: 'routing' },
      { title: 'admitted per W (×\u00a0L)', align: 'right' },
      { title: 'worst W (×\u00a0L)', align: 'right' },
      { title: 'rejected', align: 'right' },
      { title: 'round trips per request', align: 'right' },
    ],
    rows: aggregates.map((a) => {
      const s = a.stats;
      return [
        a.config.design,
        ...(showLimit ? [formatNumber(a.config.limit)] : []),
        String(a.config.gateways),
        seconds(a.config.syncS),
        percentLoad(a.config.load),
        a.config.routing,
        formatMeanSe(s.admittedPerWindow.mean, s.admittedPerWindow.se, s.admittedPerWindow.n),
        formatNumber(s.worstWindow.mean),
        `${formatMeanSe(s.rejectedPct.mean, s.rejectedPct.se, s.rejectedPct.n)} %`,
        formatNumber(s.roundTripsPerRequest.mean),
      ];
    }),
  };
  return { id, title, blocks: [intro, { kind: 'table', table }] };
}

export function checksSection(checks: readonly CheckResult[]): Section {
  const id = 'checks';
  const title = 'Checks';
  const passed = checks.filter((c) => c.passed).length;
  const intro: Block = {
    kind: 'text',
    text:
      'Properties the study verifies on its own runs: the central log against the Erlang B loss rate, the synced ' +
      'designs against the central log with one gateway, the K × L bound with aligned syncs and a fixed window, and ' +
      'no lease design ever above L in any window. A FAIL means the code or the simulator is wrong, not that a ' +
      `design is a poor choice. ${passed} of ${checks.length} passed.`,
  };
  if (checks.length === 0) return { id, title, blocks: [intro, missing('checks (none were run).')] };
  const table: Table = {
    columns: [{ title: 'check' }, { title: 'result' }, { title: 'detail' }],
    rows: checks.map((c) => [c.name, c.passed ? 'PASS' : 'FAIL', c.detail]),
  };
  return { id, title, blocks: [intro, { kind: 'table', table }] };
}

export function howToReadSection(): Section {
  return {
    id: 'how-to-read',
    title: 'How to read this',
    blocks: [
      {
        kind: 'text',
        text:
          'Every figure is the mean over the seeds of one configuration; a ± after it is the standard error of that ' +
          'mean. “Admitted per window” and “worst window” are multiples of the limit L: 1 is exactly the limit, 2 ' +
          'is twice what the key was allowed. “Rejected” is the share of all requests refused. “Round trips per ' +
          'request” counts store calls on the request path (1 for central-log, 0 for designs that decide locally). ' +
          'Charts use log scales where values span decades; a point at zero cannot sit on a log scale, so it is left ' +
          'out and a note under the chart says how many. Each design keeps its colour and marker in every chart ' +
          '(and in the static charts of report.md its dash pattern); in report.html, pointing at a point shows ' +
          'its values. Every run, seed by seed, is in results.csv and results.json.',
      },
    ],
  };
}
