/** One key with a high limit: every configuration's figures in one table. */
import { DESIGN_IDS } from '../../config.js';
import type { RunRow } from '../../sim/types.js';
import { formatMeanSe, formatNumber } from '../../util/format.js';
import { aggregateRuns, distinct } from '../aggregate.js';
import type { Block, Section } from '../document.js';
import type { Table } from '../tables.js';
import { missing, percentLoad, seconds } from './common.js';

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
