/** Honest rejections (steady 80 %, uneven) by design along one swept parameter, K or Δ. */
import type { RunRow } from '../../sim/types.js';
import type { Section } from '../document.js';
import { designLines, honestSteady, logLines, type SectionHead, sectionOver } from './common.js';
import { designPivot, rejectedWithWorst, tableBlocks } from './pivot.js';

/** One sweep: the section's text, the runs it keeps (the other parameter fixed) and the swept column. */
export interface HonestSweep extends SectionHead {
  keep: (r: RunRow) => boolean;
  by: 'gateways' | 'syncS';
  colLabel: (v: number) => string;
  corner: string;
  chart: { name: string; title: string; x: string };
}

/**
 * The table and chart the two sweeps share (honest-by-k, honest-by-delta), which were two copies of
 * one function differing only in the swept parameter and their words.
 */
export function honestSweepSection(all: readonly RunRow[], s: HonestSweep): Section {
  return sectionOver(s, honestSteady(all).filter(s.keep), (rows) => [
    ...tableBlocks(designPivot(rows, s.by, s.colLabel, s.corner, rejectedWithWorst)),
    logLines(s.id, s.chart.name, {
      title: s.chart.title,
      x: s.chart.x,
      y: 'requests rejected (%)',
      series: designLines(rows, (r) => r[s.by], 'rejectedPct'),
    }),
  ]);
}
