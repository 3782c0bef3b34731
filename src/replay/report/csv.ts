/** --out DIR: designs.csv (one row per design) and keys.csv (the most affected keys, per design and ranking). */
import { csvField } from '../../report/csv.js';
import type { CoversEvery } from '../../util/covers-every.js';
import type { DesignResult, KeyRow, ReplayResult } from '../run/result.js';

export const DESIGN_COLUMNS = [
  'design',
  'requests',
  'admitted',
  'rejected',
  'honestRejected',
  'honestRejectedPct',
  'overAdmitted',
  'keysOverLimit',
  'worstWindow',
  'worstKey',
  'roundTripsPerRequest',
  'storeCalls',
  'storeCallsPerSec',
  'keySyncs',
  'keySyncsPerSec',
] as const satisfies readonly (keyof DesignResult)[];

// a field added to DesignResult without a column fails the type-check here
export const DESIGN_COLUMNS_COVER_EVERY_FIELD: CoversEvery<DesignResult, (typeof DESIGN_COLUMNS)[number]> =
  true;

const KEY_COLUMNS = [
  'key',
  'requests',
  'floodRequests',
  'honestRejected',
  'overAdmitted',
  'worstWindow',
] as const satisfies readonly (keyof KeyRow)[];

const lines = (rows: string[][]) => `${rows.map((r) => r.map(csvField).join(',')).join('\r\n')}\r\n`;

export function designsCsv(r: ReplayResult): string {
  const rows = [r.central, ...r.designs.filter((d) => d.design !== r.central.design)];
  return lines([[...DESIGN_COLUMNS], ...rows.map((d) => DESIGN_COLUMNS.map((c) => String(d[c])))]);
}

export function keysCsv(r: ReplayResult): string {
  const rows: string[][] = [['design', 'ranking', ...KEY_COLUMNS]];
  for (const t of r.top) {
    for (const k of t.byHonestRejected)
      rows.push([t.design, 'honestRejected', ...KEY_COLUMNS.map((c) => String(k[c]))]);
    for (const k of t.byOverAdmitted)
      rows.push([t.design, 'overAdmitted', ...KEY_COLUMNS.map((c) => String(k[c]))]);
  }
  return lines(rows);
}
