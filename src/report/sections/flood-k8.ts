/** Admitted per window under a flood at K = 8, Δ = 1 s: a table of means ± se and their lines. */
import type { RunRow } from '../../sim/types.js';
import type { Block, Section } from '../document.js';
import { designLines, floodRows, loadLabel, logLines, missing, section } from './common.js';
import { designPivot, meanSe, tableBlocks } from './pivot.js';

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
  const t = designPivot(rows, 'load', loadLabel, 'design · flood rate →', meanSe('admittedPerWindow'));
  return section(id, title, [
    intro,
    ...tableBlocks(t),
    logLines(id, 'Admitted per window vs flood rate, K = 8, Δ = 1 s', {
      title: 'Admitted per window vs flood rate (K = 8, Δ = 1 s)',
      x: 'flood rate (× L per window)',
      y: 'admitted per window (× L)',
      series: designLines(rows, (r) => r.load, 'admittedPerWindow'),
      limit: true,
    }),
  ]);
}
