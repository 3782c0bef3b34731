/** Honest rejections (steady 80 %, uneven) by design and K. */
import type { RunRow } from '../../sim/types.js';
import { distinct } from '../aggregate.js';
import { asLine } from '../chart-spec.js';
import type { Block, Section } from '../document.js';
import { chart, designLines, designsIn, honestSteady, missing } from './common.js';
import { HONEST_CELL, pivot, rejectedWithWorst, tableBlocks } from './pivot.js';

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
  const t = pivot(
    rows,
    designsIn(rows),
    distinct(rows, 'gateways'),
    (r) => r.design,
    (r) => r.gateways,
    (d) => d,
    (k) => `K = ${k}`,
    'design · gateways →',
    rejectedWithWorst,
  );
  const drawn = asLine({
    title: 'Honest requests rejected vs K (steady 80 %, uneven routing, Δ = 1 s)',
    x: { title: 'gateways K', scale: 'log' },
    y: { title: 'requests rejected (%)', scale: 'log' },
    series: designLines(rows, (r) => r.gateways, 'rejectedPct'),
  });
  return { id, title, blocks: [intro, ...tableBlocks(t), chart(id, 'Honest rejections vs K', drawn)] };
}
