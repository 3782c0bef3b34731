/**
 * What the report's sections share: the designs present and their look, cell means and lines per design,
 * the row selections several sections start from, labels, and the blocks for a chart and a missing part.
 */

import { asLine, type ChartSeries, type ReportChart } from '../../chart/spec.js';
import { DESIGN_IDS, type DesignId } from '../../config.js';
import type { RunRow } from '../../sim/types.js';
import { formatNumber } from '../../util/format.js';
import { cellStat, type MetricKey } from '../aggregate.js';
import type { Block, Section } from '../document.js';
import { figureColumns, type Table } from '../tables.js';

/** An empty table cell. */
export const NONE = '—';

/** The designs among the rows, in DESIGN_IDS order. */
export function designsIn(rows: readonly RunRow[]): DesignId[] {
  const present = new Set(rows.map((r) => r.design));
  return DESIGN_IDS.filter((d) => present.has(d));
}

/** Colour, marker and dash follow the design, so a design looks the same in every chart. */
export function designStyle(design: DesignId): number {
  return DESIGN_IDS.indexOf(design);
}

/** The mean of a metric over the rows (a table cell's figure). */
export function meanOf(rows: readonly RunRow[], metric: MetricKey): number {
  return cellStat(rows, metric).mean;
}

/**
 * Lines of a metric against a numeric parameter, one per design, from the rows' cell means (or, `over: 'max'`,
 * each cell's largest seed); `keep` picks the x values.
 */
export function designLines(
  rows: readonly RunRow[],
  xOf: (r: RunRow) => number,
  metric: MetricKey,
  keep: (x: number) => boolean = () => true,
  over: 'mean' | 'max' = 'mean',
): ChartSeries[] {
  const xs = [...new Set(rows.map(xOf))].filter(keep).sort((a, b) => a - b);
  return designsIn(rows).map((d) => {
    const mine = rows.filter((r) => r.design === d);
    return {
      name: d,
      style: designStyle(d),
      points: xs
        .map((x) => mine.filter((r) => xOf(r) === x))
        .filter((cell) => cell.length > 0)
        .map((cell) => ({
          x: xOf(cell[0]!),
          y: over === 'max' ? Math.max(...cell.map((r) => r[metric])) : meanOf(cell, metric),
        })),
    };
  });
}

/** A log axis has no place for 0: the x values a log-x chart keeps. */
export const positive = (x: number): boolean => x > 0;

/** The flood runs of the default set-up: sliding window, each gateway at its own sync phase. */
export function floodRows(rows: readonly RunRow[]): RunRow[] {
  return rows.filter((r) => r.group === 'flood' && r.windowKind === 'sliding' && !r.alignedSyncs);
}

/** The honest client most sections compare on: steady at 80 % of L, routed unevenly. */
export function honestSteady(all: readonly RunRow[]): RunRow[] {
  return all.filter(
    (r) => r.group === 'honest' && r.traffic === 'steady' && r.load === 0.8 && r.routing === 'uneven',
  );
}

export const delayOf = (r: RunRow) => r.storeDelayMs ?? 0;
export const attackOf = (r: RunRow) => r.attack ?? 'even';

export function seconds(v: number): string {
  return `${formatNumber(v)} s`;
}

export function loadLabel(load: number): string {
  return `${formatNumber(load)}× L`;
}

export function percentLoad(load: number): string {
  return `${formatNumber(load * 100)} %`;
}

/** The line a section shows in place of what the study did not run. */
export function missing(text: string): Block {
  return { kind: 'missing', text: `Not in this study's results: ${text}` };
}

export function chart(name: string, title: string, drawn: Omit<ReportChart, 'name'>): Block {
  return { kind: 'chart', title, chart: { name, ...drawn } };
}

/**
 * A line chart on log–log axes, the sections' usual one; `limit` draws the dashed line at L (for
 * figures in × L).
 */
export function logLines(
  name: string,
  caption: string,
  o: { title: string; x: string; y: string; series: ChartSeries[]; limit?: boolean },
): Block {
  return chart(
    name,
    caption,
    asLine({
      title: o.title,
      x: { title: o.x, scale: 'log' },
      y: { title: o.y, scale: 'log' },
      series: o.series,
      ...(o.limit === true ? { referenceLines: [{ ...LIMIT_LINE }] } : {}),
    }),
  );
}

/** The dashed line at the limit, on a chart of figures in × L. */
export const LIMIT_LINE = { y: 1, label: 'the limit L' };

/** A table of one row per design and one right-aligned column per x, `corner` above the designs. */
export function designTable<X>(
  corner: string,
  designs: readonly DesignId[],
  xs: readonly X[],
  label: (x: X) => string,
  cell: (d: DesignId, x: X) => string,
): Table {
  return {
    columns: [{ title: corner }, ...figureColumns(...xs.map(label))],
    rows: designs.map((d) => [d, ...xs.map((x) => cell(d, x))]),
  };
}

/** What a section says whatever the study ran: its anchor, title and intro, and what it needs to say more. */
export interface SectionHead {
  id: string;
  title: string;
  intro: string;
  /** the runs the section is drawn from, named in the missing line when the study has none */
  needs: string;
}

/**
 * A section over the rows it is drawn from: the intro, then `body`'s blocks, or, when there are no rows, the
 * line saying what the study did not run.
 */
export function sectionOver<R>(
  head: SectionHead,
  rows: readonly R[],
  body: (rows: readonly R[]) => Block[],
): Section {
  const intro: Block = { kind: 'text', text: head.intro };
  const blocks = rows.length === 0 ? [missing(head.needs)] : body(rows);
  return { id: head.id, title: head.title, blocks: [intro, ...blocks] };
}

/** A section of these blocks, the intro first. */
export function section(id: string, title: string, blocks: Block[]): Section {
  return { id, title, blocks };
}

/** A table as a block. */
export function tableBlock(table: Table): Block {
  return { kind: 'table', table };
}
