/**
 * The worst window beside the mean under a flood, against the flood rate: a limit promises every window, and a
 * mean near L can hide a window at several times L (a flood's first window, before the gateways have seen it).
 */

import { asLine } from '../../chart/spec.js';
import type { RunRow } from '../../sim/types.js';
import { formatNumber } from '../../util/format.js';
import { distinct } from '../aggregate.js';
import type { Section } from '../document.js';
import {
  chart,
  designLines,
  floodRows,
  LIMIT_LINE,
  loadLabel,
  logLines,
  meanOf,
  sectionOver,
} from './common.js';
import { designPivot, tableBlocks } from './pivot.js';
import { WORST_TARGET } from './scorecard-targets.js';

/** Δ the section is drawn at: the scorecard's. */
const SYNC_S = 1;

export function floodWorstSection(all: readonly RunRow[]): Section {
  const id = 'flood-worst';
  const at = floodRows(all).filter((r) => r.syncS === SYNC_S);
  const K = at.length === 0 ? Number.NaN : Math.max(...distinct(at, 'gateways'));
  const title = `The worst window beside the mean under a flood, K = ${formatNumber(K)}, Δ = 1 s`;
  const head = {
    id,
    title,
    intro:
      `A flood spread evenly over the largest K of the study at Δ = 1 s. Each cell: the worst window — the most ` +
      'admitted in any window-long span of the run, × L, the worst seed (a limit promises every window) — and in ' +
      'brackets the mean admitted per window after the first (mean over seeds). A flood starts on an empty key, ' +
      'so its worst window is usually its first: what gets through before the gateways have seen it. The first ' +
      `chart draws the worst windows against the flood rate, the dashed lines the limit and the scorecard’s ` +
      `${WORST_TARGET} × L; the second the means, as in the section above.`,
    needs: 'flood runs at Δ = 1 s.',
  };
  return sectionOver(head, at, (at) => {
    const rows = at.filter((r) => r.gateways === K);
    const t = designPivot(rows, 'load', loadLabel, 'design · flood rate →', (cell) => ({
      text: `${formatNumber(Math.max(...cell.map((r) => r.worstWindow)))} (${formatNumber(meanOf(cell, 'admittedPerWindow'))})`,
      pooled: false,
    }));
    const axis = { title: 'flood rate (× L per window)', scale: 'log' as const };
    const worst = asLine({
      title: `Worst window vs flood rate (K = ${formatNumber(K)}, Δ = 1 s; worst seed)`,
      x: axis,
      y: { title: 'worst window (× L)', scale: 'log' },
      series: designLines(rows, (r) => r.load, 'worstWindow', undefined, 'max'),
      referenceLines: [{ ...LIMIT_LINE }, { y: WORST_TARGET, label: `target ${WORST_TARGET} × L` }],
    });
    return [
      ...tableBlocks(t),
      chart(id, `Worst window vs flood rate, K = ${formatNumber(K)}, Δ = 1 s`, worst),
      logLines(`${id}-mean`, `Mean admitted per window vs flood rate, K = ${formatNumber(K)}, Δ = 1 s`, {
        title: `Mean admitted per window vs flood rate (K = ${formatNumber(K)}, Δ = 1 s)`,
        x: axis.title,
        y: 'admitted per window (× L)',
        series: designLines(rows, (r) => r.load, 'admittedPerWindow'),
        limit: true,
      }),
    ];
  });
}
