/** Pivot tables of the rows, with a mark on cells that pool several configurations, and the cells they hold. */
import type { RunRow } from '../../sim/types.js';
import { formatMeanSe, formatNumber, formatPercent } from '../../util/format.js';
import { cellStat, distinct, type MetricKey } from '../aggregate.js';
import type { Block } from '../document.js';
import { figureColumns, type Table } from '../tables.js';
import { designsIn, NONE } from './common.js';

const POOLED = ' †';
const POOLED_NOTE =
  '† This cell pools runs of more than one configuration: the grid varies a parameter this table does not show. ' +
  'results.csv has every run.';

/**
 * A pivot table: one row per row-key, one column per column-key, each cell a function of the rows falling in it.
 * Reports whether any cell pooled several configurations so the section can say so.
 */
export function pivot<R, C>(
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
      columns: [{ title: corner }, ...figureColumns(...colKeys.map(colLabel))],
      rows: body,
    },
    pooled,
  };
}

/** A pivot of one row per design and one column per value of a numeric parameter (ascending). */
export function designPivot(
  rows: readonly RunRow[],
  col: 'syncS' | 'gateways' | 'load',
  colLabel: (v: number) => string,
  corner: string,
  cell: (rows: RunRow[]) => { text: string; pooled: boolean },
): { table: Table; pooled: boolean } {
  return pivot(
    rows,
    designsIn(rows),
    distinct(rows, col),
    (r) => r.design,
    (r) => r[col],
    (d) => d,
    colLabel,
    corner,
    cell,
  );
}

/** "1.02 ± 0.01": a metric's mean over the cell's rows ± its standard error. */
export function meanSe(metric: MetricKey) {
  return (rows: RunRow[]) => {
    const s = cellStat(rows, metric);
    return { text: formatMeanSe(s.mean, s.se, s.n), pooled: s.configs > 1 };
  };
}

/** "0.42 % [0.98]": rejected percent with the worst window (× L) in brackets. */
export function rejectedWithWorst(rows: RunRow[]) {
  const rej = cellStat(rows, 'rejectedPct');
  const worst = cellStat(rows, 'worstWindow');
  return { text: `${formatPercent(rej.mean)} [${formatNumber(worst.mean)}]`, pooled: rej.configs > 1 };
}

/** The table, and under it the † note when a cell pooled several configurations. */
export function tableBlocks(t: { table: Table; pooled: boolean }): Block[] {
  return t.pooled
    ? [
        { kind: 'table', table: t.table },
        { kind: 'text', text: POOLED_NOTE },
      ]
    : [{ kind: 'table', table: t.table }];
}

/** What a rejectedWithWorst cell holds, in words. */
export const HONEST_CELL =
  'Each cell: the percentage of the client’s requests rejected (mean over seeds), and in brackets the worst ' +
  'window: the most admitted in any window-long span, × L, mean over seeds.';
