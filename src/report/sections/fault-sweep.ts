/**
 * A fault swept over levels on the extended grid at K = 8, Δ = 1 s (a store's delay, a sync's lost reply):
 * a design × level table with its note, then the flood's admits and the honest client's rejections against
 * the level on log axes. The store-delay and sync-loss sections are this shape with their own cells.
 */
import type { DesignId } from '../../config.js';
import type { RunRow } from '../../sim/types.js';
import type { Block, Section } from '../document.js';
import {
  designLines,
  designsIn,
  designTable,
  logLines,
  positive,
  type SectionHead,
  sectionOver,
  tableBlock,
} from './common.js';

export interface FaultSweep extends SectionHead {
  /** the fault's name in chart captions ("store delay"), and its x axis */
  fault: string;
  axis: string;
  /** the fault's level in a row, the levels swept, and a level as a column title */
  levelOf: (r: RunRow) => number;
  levels: (rows: readonly RunRow[]) => number[];
  label: (level: number) => string;
  corner: string;
  cell: (rows: readonly RunRow[], d: DesignId, level: number) => string;
  /** what each table cell shows */
  note: string;
  /** the flood runs the flood chart is drawn from (the steady ones are the honest client's) */
  flood: (r: RunRow) => boolean;
  /** charts of the honest runs after the rejections one */
  more?: (honest: readonly RunRow[]) => Block[];
}

export function faultSweepSection(rows: readonly RunRow[], s: FaultSweep): Section {
  return sectionOver(s, rows, (rows) => {
    const table = designTable(s.corner, designsIn(rows), s.levels(rows), s.label, (d, level) =>
      s.cell(rows, d, level),
    );
    const honest = rows.filter((r) => r.traffic === 'steady');
    return [
      tableBlock(table),
      { kind: 'text', text: s.note },
      logLines(`${s.id}-flood`, `Admitted per window under a 100× flood vs ${s.fault}`, {
        title: `Admitted per window under a 100× flood vs ${s.fault} (K = 8, Δ = 1 s)`,
        x: s.axis,
        y: 'admitted per window (× L)',
        series: designLines(rows.filter(s.flood), s.levelOf, 'admittedPerWindow', positive),
        limit: true,
      }),
      logLines(`${s.id}-honest`, `Honest rejections vs ${s.fault}`, {
        title: `Honest rejections vs ${s.fault} (steady 80 %, uneven, K = 8, Δ = 1 s)`,
        x: s.axis,
        y: 'requests rejected (%)',
        series: designLines(honest, s.levelOf, 'rejectedPct', positive),
      }),
      ...(s.more?.(honest) ?? []),
    ];
  });
}
