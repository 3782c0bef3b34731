/** A flood sent whole to one gateway against the same flood spread evenly. */
import type { RunRow } from '../../sim/types.js';
import { formatNumber } from '../../util/format.js';
import { distinct } from '../aggregate.js';
import type { Section } from '../document.js';
import {
  attackOf,
  designLines,
  designsIn,
  designTable,
  logLines,
  meanOf,
  NONE,
  type SectionHead,
  sectionOver,
  tableBlock,
} from './common.js';

const HEAD: SectionHead = {
  id: 'attack-pick',
  title: 'A flood sent to one gateway (picked) vs spread evenly (K = 32, Δ = 1 s)',
  intro:
    'The same floods as the scorecard’s, at K = 32, sent whole to one gateway (an attacker who found the ' +
    'gateway that admits, or the least loaded one) instead of spread over all. One gateway sees its own ' +
    'admits at once, so the synced designs hold a picked flood near L; designs that divide the limit ' +
    '(split, assume-others) or lean on a share measured over W (track-share) turn it away well below L for a ' +
    'window or more. Each cell: admitted per window, even / picked.',
  needs: 'scorecard flood runs at K = 32.',
};

export function attackSection(all: readonly RunRow[]): Section {
  const { id } = HEAD;
  return sectionOver(
    HEAD,
    all.filter((r) => r.group === 'scorecard' && r.traffic === 'flood' && r.gateways === 32),
    (rows) => {
      const loads = distinct(rows, 'load');
      const table = designTable(
        'design · flood rate →',
        designsIn(rows),
        loads,
        (l) => `${formatNumber(l)}×`,
        (d, l) => {
          const e = rows.filter((r) => r.design === d && r.load === l && attackOf(r) === 'even');
          const p = rows.filter((r) => r.design === d && r.load === l && attackOf(r) === 'pick');
          return `${e.length ? formatNumber(meanOf(e, 'admittedPerWindow')) : NONE} / ${p.length ? formatNumber(meanOf(p, 'admittedPerWindow')) : NONE}`;
        },
      );
      return [
        tableBlock(table),
        logLines(id, 'Admitted per window vs flood rate, picked gateway', {
          title: 'Admitted per window vs flood rate, the whole flood on one gateway (K = 32, Δ = 1 s)',
          x: 'flood rate (× L per window)',
          y: 'admitted per window (× L)',
          series: designLines(
            rows.filter((r) => attackOf(r) === 'pick'),
            (r) => r.load,
            'admittedPerWindow',
          ),
          limit: true,
        }),
      ];
    },
  );
}
