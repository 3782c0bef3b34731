/** The over-admission formula fitted to the flood runs (src/sim/fit-over-admission.ts), with its charts. */

import { asScatter, type ChartSeries } from '../../chart/spec.js';
import type { DesignId } from '../../config.js';
import { DESIGNS } from '../../designs/index.js';
import {
  fitOverAdmission,
  type OverFit,
  overAdmission,
  overAdmissionPoints,
} from '../../sim/fit-over-admission.js';
import type { RunRow } from '../../sim/types.js';
import { formatNumber } from '../../util/format.js';
import type { Block, Section } from '../document.js';
import { figureColumns, type Table } from '../tables.js';
import { chart, designsIn, NONE, type SectionHead, sectionOver, tableBlock } from './common.js';

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

const HEAD: SectionHead = {
  id: 'over-admission-formulas',
  title: 'Over-admission as a formula in K, Δ, W, L and the flood rate',
  intro:
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
  needs: 'flood runs.',
};

export function formulaSection(all: readonly RunRow[]): Section {
  const designs = designsIn(all.filter((r) => r.group === 'flood'));
  return sectionOver(HEAD, designs, (designs) => {
    const fits = designs.map((d) => ({ d, f: fitOverAdmission(all, d) }));
    const table: Table = {
      columns: [
        { title: 'design' },
        { title: 'bound / fitted admitted per W (× L)' },
        ...figureColumns('c', 'a', 'b', 'rms', 'points'),
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
    const blocks: Block[] = [tableBlock(table)];
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
    return blocks;
  });
}
