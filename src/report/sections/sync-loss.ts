/** Sync loss: what lost sync replies let through, and what they cost honest traffic. */
import type { RunRow } from '../../sim/types.js';
import { formatNumber, formatPercent } from '../../util/format.js';
import { distinct } from '../aggregate.js';
import type { Block, Section } from '../document.js';
import {
  designLines,
  designsIn,
  designTable,
  logLines,
  meanOf,
  missing,
  NONE,
  positive,
  section,
  tableBlock,
} from './common.js';

const lossOf = (r: RunRow) => r.syncLoss ?? 0;

export function syncLossSection(all: readonly RunRow[]): Section {
  const id = 'sync-loss';
  const title = 'Sync loss: a sync’s reply is lost (K = 8, Δ = 1 s)';
  const intro: Block = {
    kind: 'text',
    text:
      'Each sync’s reply is lost with the given probability; half of the lost syncs had landed at the store, half ' +
      'had not. As the runtime does, the gateway keeps the failed request whole and resends it (same sequence ' +
      'number, so the store applies its pushes once) at its next sync instant, then sends a fresh sync; its ' +
      'pushes stay counted as its own meanwhile. Lines: admitted per window under a 100× flood and honest ' +
      'rejections (steady 80 %, uneven) against the loss rate (the 0 points are in the table). The lease designs ' +
      'can exceed L here: when a gateway’s syncs fail for longer than the lease TTL and the pushes had not landed, ' +
      'the store lets the grant lapse while the admits spent from it are still unknown to it, and grants those ' +
      'slots again (the windows over L are counted in the table).',
  };
  const rows = all.filter((r) => r.group === 'loss');
  if (rows.length === 0) return { id, title, blocks: [intro, missing('sync-loss runs (--grid extended).')] };
  const losses = distinct(rows, 'syncLoss') as number[];
  const table = designTable(
    'design · loss →',
    designsIn(rows),
    losses,
    (p) => formatPercent(100 * p),
    (d, p) => {
      const f = rows.filter((r) => r.design === d && lossOf(r) === p && r.traffic === 'flood');
      const h = rows.filter((r) => r.design === d && lossOf(r) === p && r.traffic === 'steady');
      if (f.length === 0 || h.length === 0) return NONE;
      const over = f.reduce((a, r) => a + r.windowsOverLimit, 0);
      return `${formatNumber(meanOf(f, 'admittedPerWindow'))} [${formatNumber(meanOf(f, 'worstWindow'))}; ${over}] · ${formatPercent(meanOf(h, 'rejectedPct'))}`;
    },
  );
  const note: Block = {
    kind: 'text',
    text: 'Each cell: admitted per window under a 100× flood (× L) [worst window × L; spans over L, summed over seeds] · honest rejections.',
  };
  const flood = rows.filter((r) => r.traffic === 'flood');
  const honest = rows.filter((r) => r.traffic === 'steady');
  return section(id, title, [
    intro,
    tableBlock(table),
    note,
    logLines('sync-loss-flood', 'Admitted per window under a 100× flood vs sync loss', {
      title: 'Admitted per window under a 100× flood vs sync loss (K = 8, Δ = 1 s)',
      x: 'sync replies lost (fraction)',
      y: 'admitted per window (× L)',
      series: designLines(flood, lossOf, 'admittedPerWindow', positive),
      limit: true,
    }),
    logLines('sync-loss-honest', 'Honest rejections vs sync loss', {
      title: 'Honest rejections vs sync loss (steady 80 %, uneven, K = 8, Δ = 1 s)',
      x: 'sync replies lost (fraction)',
      y: 'requests rejected (%)',
      series: designLines(honest, lossOf, 'rejectedPct', positive),
    }),
  ]);
}
