/** Admitted per window under a flood at K = 8, Δ = 1 s: a table of means ± se and their lines. */
import type { RunRow } from '../../sim/types.js';
import type { Section } from '../document.js';
import { designLines, floodRows, loadLabel, logLines, type SectionHead, sectionOver } from './common.js';
import { designPivot, meanSe, tableBlocks } from './pivot.js';

const HEAD: SectionHead = {
  id: 'flood-k8',
  title: 'Admitted per window under a flood, K = 8, Δ = 1 s',
  intro:
    'A flood spread evenly over K = 8 gateways that sync every Δ = 1 s (sliding window, each gateway at its own ' +
    'sync phase). Each cell is the mean over seeds of the number admitted per window after the first window, as a ' +
    'multiple of the limit L, ± the standard error. 1 means the limit held exactly; below 1 the design turned ' +
    'away requests it could have served; above 1 the flood got through. The chart shows the same means, one line ' +
    'per design, on log–log axes; the dashed line is the limit.',
  needs: 'flood runs with K = 8 and Δ = 1 s.',
};

export function floodAtK8Section(all: readonly RunRow[]): Section {
  const { id } = HEAD;
  return sectionOver(
    HEAD,
    floodRows(all).filter((r) => r.gateways === 8 && r.syncS === 1),
    (rows) => {
      const t = designPivot(rows, 'load', loadLabel, 'design · flood rate →', meanSe('admittedPerWindow'));
      return [
        ...tableBlocks(t),
        logLines(id, 'Admitted per window vs flood rate, K = 8, Δ = 1 s', {
          title: 'Admitted per window vs flood rate (K = 8, Δ = 1 s)',
          x: 'flood rate (× L per window)',
          y: 'admitted per window (× L)',
          series: designLines(rows, (r) => r.load, 'admittedPerWindow'),
          limit: true,
        }),
      ];
    },
  );
}
