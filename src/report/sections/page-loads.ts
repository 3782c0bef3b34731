/** Honest rejections for a client loading pages, by load and routing. */
import type { RunRow } from '../../sim/types.js';
import { distinct } from '../aggregate.js';
import type { Section } from '../document.js';
import { designsIn, percentLoad, type SectionHead, sectionOver } from './common.js';
import { HONEST_CELL, pivot, rejectedWithWorst, tableBlocks } from './pivot.js';

const HEAD: SectionHead = {
  id: 'honest-pageloads',
  title: 'Honest rejections for page loads (K = 8, Δ = 1 s)',
  intro:
    'A client loading pages: bursts of 10 requests spread over one second, the bursts arriving at random so the ' +
    `mean rate is the given share of the limit. Columns are load and routing. ${HONEST_CELL} A burst lands on ` +
    'the gateways within a second, faster than most syncs; compare with the steady client above.',
  needs: 'page-load runs at K = 8 and Δ = 1 s.',
};

export function pageLoadSection(all: readonly RunRow[]): Section {
  return sectionOver(
    HEAD,
    all.filter((r) => r.group === 'honest' && r.traffic === 'pageload' && r.gateways === 8 && r.syncS === 1),
    (rows) => {
      const combos = distinct(rows, 'load').flatMap((load) =>
        distinct(rows, 'routing')
          .filter((routing) => rows.some((r) => r.load === load && r.routing === routing))
          .map((routing) => `${percentLoad(load)}, ${routing}`),
      );
      const t = pivot(
        rows,
        designsIn(rows),
        combos,
        (r) => r.design,
        (r) => `${percentLoad(r.load)}, ${r.routing}`,
        (d) => d,
        (c) => c,
        'design · load, routing →',
        rejectedWithWorst,
      );
      return tableBlocks(t);
    },
  );
}
