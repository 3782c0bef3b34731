/** Honest rejections (steady 80 %, uneven) by design and K. */
import type { RunRow } from '../../sim/types.js';
import type { Block, Section } from '../document.js';
import { designLines, honestSteady, logLines, missing } from './common.js';
import { designPivot, HONEST_CELL, rejectedWithWorst, tableBlocks } from './pivot.js';

export function honestByKSection(all: readonly RunRow[]): Section {
  const id = 'honest-by-k';
  const title = 'Honest rejections by design and K (steady 80 %, uneven routing, Δ = 1 s)';
  const intro: Block = {
    kind: 'text',
    text:
      'A well-behaved client sending Poisson traffic at 80 % of the limit, routed unevenly (gateway i gets a share ' +
      `proportional to 1/i), with gateways syncing every second. ${HONEST_CELL} Even the exact central log ` +
      'rejects a little: a sliding-window log is a loss system with L servers, so Poisson traffic at 80 % loses ' +
      'about the Erlang B rate B(L, 0.8 L). A design far above the central log is punishing honest traffic for ' +
      'uneven routing; a worst window above 1 is over-admission. The chart plots the rejected percentage against K.',
  };
  const rows = honestSteady(all).filter((r) => r.syncS === 1);
  if (rows.length === 0)
    return {
      id,
      title,
      blocks: [intro, missing('honest steady runs at 80 % with uneven routing and Δ = 1 s.')],
    };
  const t = designPivot(rows, 'gateways', (k) => `K = ${k}`, 'design · gateways →', rejectedWithWorst);
  return {
    id,
    title,
    blocks: [
      intro,
      ...tableBlocks(t),
      logLines(id, 'Honest rejections vs K', {
        title: 'Honest requests rejected vs K (steady 80 %, uneven routing, Δ = 1 s)',
        x: 'gateways K',
        y: 'requests rejected (%)',
        series: designLines(rows, (r) => r.gateways, 'rejectedPct'),
      }),
    ],
  };
}
