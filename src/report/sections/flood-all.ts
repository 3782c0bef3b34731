/** Every flood run's mean against the flood's arrivals per sync interval, all K and Δ in one chart. */

import { asScatter, type ChartSeries } from '../../chart/spec.js';
import type { RunRow } from '../../sim/types.js';
import { formatNumber } from '../../util/format.js';
import { aggregateRuns, distinct } from '../aggregate.js';
import type { Block, Section } from '../document.js';
import { chart, designStyle, designsIn, floodRows, type SectionHead, sectionOver } from './common.js';

const HEAD: SectionHead = {
  id: 'flood-all',
  title: 'Admitted per window for every K and Δ, against the flood’s arrivals per Δ',
  intro:
    'Every flood run (sliding window, own sync phases) for every K and Δ, one point per configuration (the mean ' +
    'over its seeds). The x axis is what the flood sends in one sync interval, in units of L: load × Δ / W. A ' +
    'gateway cannot see what the others admitted during that interval, so for the synced designs this is the ' +
    'quantity that should set the over-admission: points of one design that fall on one curve whatever K and Δ ' +
    'say it does; a vertical spread at one x is the part K adds. Designs with a hard bound stay on the dashed ' +
    'line or under it.',
  needs: 'flood runs.',
};

export function floodAllSection(all: readonly RunRow[]): Section {
  const { id } = HEAD;
  return sectionOver(HEAD, floodRows(all), (rows) => {
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
    return [span, chart(id, 'Admitted per window vs flood arrivals per Δ, every K and Δ', drawn)];
  });
}
