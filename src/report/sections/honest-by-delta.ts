/** Honest rejections (steady 80 %, uneven) by design and Δ. */
import type { RunRow } from '../../sim/types.js';
import type { Section } from '../document.js';
import { seconds } from './common.js';
import { honestSweepSection } from './honest-sweep.js';
import { HONEST_CELL } from './pivot.js';

export function honestByDeltaSection(all: readonly RunRow[]): Section {
  return honestSweepSection(all, {
    id: 'honest-by-delta',
    title: 'Honest rejections by design and Δ (steady 80 %, uneven routing, K = 8)',
    intro:
      'The same client as above at K = 8, for every sync interval Δ. ' +
      `${HONEST_CELL} A longer Δ leaves each gateway longer on an old view of the others; read along a row to see ` +
      'how a design’s rejections and its worst window move as Δ grows.',
    keep: (r) => r.gateways === 8,
    needs: 'honest steady runs at 80 % with uneven routing and K = 8.',
    by: 'syncS',
    colLabel: (s) => `Δ = ${seconds(s)}`,
    corner: 'design · sync interval →',
    chart: {
      name: 'Honest rejections vs Δ',
      title: 'Honest requests rejected vs Δ (steady 80 %, uneven routing, K = 8)',
      x: 'sync interval Δ (s)',
    },
  });
}
