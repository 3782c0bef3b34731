/** Honest rejections (steady 80 %, uneven) by design and Δ. */
import type { RunRow } from '../../sim/types.js';
import type { Block, Section } from '../document.js';
import { designLines, honestSteady, logLines, missing, seconds } from './common.js';
import { designPivot, HONEST_CELL, rejectedWithWorst, tableBlocks } from './pivot.js';

export function honestByDeltaSection(all: readonly RunRow[]): Section {
  const id = 'honest-by-delta';
  const title = 'Honest rejections by design and Δ (steady 80 %, uneven routing, K = 8)';
  const intro: Block = {
    kind: 'text',
    text:
      'The same client as above at K = 8, for every sync interval Δ. ' +
      `${HONEST_CELL} A longer Δ leaves each gateway longer on an old view of the others; read along a row to see ` +
      'how a design’s rejections and its worst window move as Δ grows.',
  };
  const rows = honestSteady(all).filter((r) => r.gateways === 8);
  if (rows.length === 0)
    return {
      id,
      title,
      blocks: [intro, missing('honest steady runs at 80 % with uneven routing and K = 8.')],
    };
  const t = designPivot(
    rows,
    'syncS',
    (s) => `Δ = ${seconds(s)}`,
    'design · sync interval →',
    rejectedWithWorst,
  );
  return {
    id,
    title,
    blocks: [
      intro,
      ...tableBlocks(t),
      logLines(id, 'Honest rejections vs Δ', {
        title: 'Honest requests rejected vs Δ (steady 80 %, uneven routing, K = 8)',
        x: 'sync interval Δ (s)',
        y: 'requests rejected (%)',
        series: designLines(rows, (r) => r.syncS, 'rejectedPct'),
      }),
    ],
  };
}
