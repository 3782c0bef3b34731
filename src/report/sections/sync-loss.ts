/** Sync loss: what lost sync replies let through, and what they cost honest traffic. */
import type { RunRow } from '../../sim/types.js';
import { formatNumber, formatPercent } from '../../util/format.js';
import { distinct } from '../aggregate.js';
import type { Section } from '../document.js';
import { meanOf, NONE } from './common.js';
import { faultSweepSection } from './fault-sweep.js';

const lossOf = (r: RunRow) => r.syncLoss ?? 0;

export function syncLossSection(all: readonly RunRow[]): Section {
  return faultSweepSection(
    all.filter((r) => r.group === 'loss'),
    {
      id: 'sync-loss',
      title: 'Sync loss: a sync’s reply is lost (K = 8, Δ = 1 s)',
      intro:
        'Each sync’s reply is lost with the given probability; half of the lost syncs had landed at the store, half ' +
        'had not. As the runtime does, the gateway keeps the failed request whole and resends it (same sequence ' +
        'number, so the store applies its pushes once) at its next sync instant, then sends a fresh sync; its ' +
        'pushes stay counted as its own meanwhile. Lines: admitted per window under a 100× flood and honest ' +
        'rejections (steady 80 %, uneven) against the loss rate (the 0 points are in the table). The lease designs ' +
        'can exceed L here: when a gateway’s syncs fail for longer than the lease TTL and the pushes had not landed, ' +
        'the store lets the grant lapse while the admits spent from it are still unknown to it, and grants those ' +
        'slots again (the windows over L are counted in the table).',
      needs: 'sync-loss runs (--grid extended).',
      fault: 'sync loss',
      axis: 'sync replies lost (fraction)',
      levelOf: lossOf,
      levels: (rows) => distinct(rows, 'syncLoss') as number[],
      label: (p) => formatPercent(100 * p),
      corner: 'design · loss →',
      cell: (rows, d, p) => {
        const f = rows.filter((r) => r.design === d && lossOf(r) === p && r.traffic === 'flood');
        const h = rows.filter((r) => r.design === d && lossOf(r) === p && r.traffic === 'steady');
        if (f.length === 0 || h.length === 0) return NONE;
        const over = f.reduce((a, r) => a + r.windowsOverLimit, 0);
        return `${formatNumber(meanOf(f, 'admittedPerWindow'))} [${formatNumber(meanOf(f, 'worstWindow'))}; ${over}] · ${formatPercent(meanOf(h, 'rejectedPct'))}`;
      },
      note: 'Each cell: admitted per window under a 100× flood (× L) [worst window × L; spans over L, summed over seeds] · honest rejections.',
      flood: (r) => r.traffic === 'flood',
    },
  );
}
