/** A flood's onset and a pulsed flood on top of an honest client. */
import type { RunRow } from '../../sim/types.js';
import { formatNumber, formatPercent } from '../../util/format.js';
import { distinct } from '../aggregate.js';
import type { Section } from '../document.js';
import { figureColumns, type Table } from '../tables.js';
import { designsIn, meanOf, NONE, type SectionHead, sectionOver, tableBlock } from './common.js';

const HEAD: SectionHead = {
  id: 'hard-cases',
  title: 'Two hard cases: a flood’s onset, and a pulsed flood on top of an honest client',
  intro:
    'Onset: an honest client at 80 % (steady, even) has the key for two windows, then a 1,000× flood starts; ' +
    'the figure is the most admitted in any window-long span ending within one window of the onset (× L) — what ' +
    'gets through before the gateways have noticed. Pulsed: the same honest client, plus a 1,000× flood for 2 s ' +
    'every 120 s; the figure is the share of the honest client’s requests rejected, next to the central log’s in ' +
    'the same setting (after a pulse the key is full for a window, so even the exact log turns the client away ' +
    'then), and the worst window of the run. Mean over seeds.',
  needs: 'hard-case runs (--grid extended).',
};

export function hardCasesSection(all: readonly RunRow[]): Section {
  return sectionOver(
    HEAD,
    all.filter((r) => r.group === 'hard'),
    (rows) => {
      const ks = distinct(rows, 'gateways');
      const base = (k: number) =>
        rows.filter((r) => r.design === 'central-log' && r.gateways === k && r.traffic === 'pulsed');
      const table: Table = {
        columns: [
          { title: 'design' },
          ...figureColumns(
            ...ks.map((k) => `onset worst W, K = ${k}`),
            ...ks.map((k) => `pulsed: honest rejected (central-log), worst W, K = ${k}`),
          ),
        ],
        rows: designsIn(rows).map((d) => [
          d,
          ...ks.map((k) => {
            const c = rows.filter((r) => r.design === d && r.gateways === k && r.traffic === 'onset');
            return c.length ? `${formatNumber(meanOf(c, 'onsetWorst'))} × L` : NONE;
          }),
          ...ks.map((k) => {
            const c = rows.filter((r) => r.design === d && r.gateways === k && r.traffic === 'pulsed');
            const b = base(k);
            if (c.length === 0) return NONE;
            return `${formatPercent(meanOf(c, 'honestRejectedPct'))} (${b.length ? formatPercent(meanOf(b, 'honestRejectedPct')) : NONE}), ${formatNumber(meanOf(c, 'worstWindow'))} × L`;
          }),
        ]),
      };
      return [tableBlock(table)];
    },
  );
}
