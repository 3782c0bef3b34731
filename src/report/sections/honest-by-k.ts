/** Honest rejections (steady 80 %, uneven) by design and K. */
import type { RunRow } from '../../sim/types.js';
import type { Section } from '../document.js';
import { honestSweepSection } from './honest-sweep.js';
import { HONEST_CELL } from './pivot.js';

export function honestByKSection(all: readonly RunRow[]): Section {
  return honestSweepSection(all, {
    id: 'honest-by-k',
    title: 'Honest rejections by design and K (steady 80 %, uneven routing, Δ = 1 s)',
    intro:
      'A well-behaved client sending Poisson traffic at 80 % of the limit, routed unevenly (gateway i gets a share ' +
      `proportional to 1/i), with gateways syncing every second. ${HONEST_CELL} Even the exact central log ` +
      'rejects a little: a sliding-window log is a loss system with L servers, so Poisson traffic at 80 % loses ' +
      'about the Erlang B rate B(L, 0.8 L). A design far above the central log is punishing honest traffic for ' +
      'uneven routing; a worst window above 1 is over-admission. The chart plots the rejected percentage against K.',
    keep: (r) => r.syncS === 1,
    needs: 'honest steady runs at 80 % with uneven routing and Δ = 1 s.',
    by: 'gateways',
    colLabel: (k) => `K = ${k}`,
    corner: 'design · gateways →',
    chart: {
      name: 'Honest rejections vs K',
      title: 'Honest requests rejected vs K (steady 80 %, uneven routing, Δ = 1 s)',
      x: 'gateways K',
    },
  });
}
