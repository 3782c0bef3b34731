/** One key with a high limit: every configuration's figures in one table. */
import { DESIGN_IDS } from '../../config.js';
import type { RunRow } from '../../sim/types.js';
import { formatMeanSe, formatNumber } from '../../util/format.js';
import { aggregateRuns, distinct } from '../aggregate.js';
import type { Section } from '../document.js';
import { figureColumns, type Table } from '../tables.js';
import { percentLoad, type SectionHead, seconds, sectionOver, tableBlock } from './common.js';

const HEAD: SectionHead = {
  id: 'busy-key',
  title: 'A busy key (limit 10,000 per window)',
  intro:
    'One key with a high limit, under honest steady traffic at the given share of it, for each design, K, Δ and ' +
    'routing. A busy key is where per-request store calls cost most, and where each gateway’s share L/K is large, ' +
    'which gives local decisions room to work. Admitted per window and the worst window are multiples of L (the ' +
    'worst above 1 means over-admission); rejected % and admitted per window carry ± the standard error over seeds.',
  needs: 'busy-key runs.',
};

export function busyKeySection(all: readonly RunRow[]): Section {
  return sectionOver(
    HEAD,
    all.filter((r) => r.group === 'busy'),
    (rows) => {
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
          ...figureColumns(...(showLimit ? ['L'] : []), 'K', 'Δ', 'load'),
          { title: 'routing' },
          ...figureColumns(
            'admitted per W (×\u00a0L)',
            'worst W (×\u00a0L)',
            'rejected',
            'round trips per request',
          ),
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
      return [tableBlock(table)];
    },
  );
}
