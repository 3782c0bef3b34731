/** The replay's tables as models (src/report/tables.ts): the designs, and each design's most affected keys. */

import { figureColumns, type Table } from '../../report/tables.js';
import { formatNumber } from '../../util/format.js';
import type { DesignResult, KeyRow, ReplayResult } from '../run/result.js';

const int = (v: number) => Math.round(v).toLocaleString('en-US');
const pct = (v: number) => `${v.toFixed(3)} %`;

/** One row per design, the central log first (the reference every other row is measured against). */
export function designsTable(r: ReplayResult): Table {
  const rows = [r.central, ...r.designs.filter((d) => d.design !== r.central.design)];
  return {
    columns: [
      { title: 'design' },
      ...figureColumns(
        'requests',
        'admitted',
        'rejected',
        'honest rejections',
        'honest rejected',
        'over-admissions',
        'keys over L',
        'worst window ×L',
        'store calls/s',
      ),
    ],
    rows: rows.map((d: DesignResult) => [
      d.design,
      int(d.requests),
      int(d.admitted),
      int(d.rejected),
      int(d.honestRejected),
      pct(d.honestRejectedPct),
      int(d.overAdmitted),
      int(d.keysOverLimit),
      d.worstWindow.toFixed(3),
      formatNumber(d.storeCallsPerSec),
    ]),
  };
}

/** The keys most affected under one design: by honest rejections, or by admits beyond L. */
export function keysTable(rows: readonly KeyRow[]): Table {
  return {
    columns: [
      { title: 'key' },
      ...figureColumns('requests', 'flood', 'honest rejections', 'over-admissions', 'worst window ×L'),
    ],
    rows: rows.map((k) => [
      k.key,
      int(k.requests),
      int(k.floodRequests),
      int(k.honestRejected),
      int(k.overAdmitted),
      k.worstWindow.toFixed(3),
    ]),
  };
}

/** What the log already knows: today's limiter's 429s beside the central log's rejections. */
export function logLine(r: ReplayResult): string {
  const honest = r.arrivals - r.floodArrivals;
  const base = `your limiter rejected ${int(r.logRejected)} of ${int(honest)} logged requests (status 429); the central log would have rejected ${int(r.centralRejected)}`;
  return r.logRejected > 0 ? `${base} (and admitted ${int(r.logRejectedCentralAdmits)} of those 429s)` : base;
}

/** The run's settings and span in one line. */
export function settingsLine(r: ReplayResult): string {
  const s = r.settings;
  const span =
    r.arrivals > 0 ? `${new Date(r.from).toISOString()} – ${new Date(r.to).toISOString()}` : 'no arrivals';
  return (
    `K = ${s.gateways}, Δ = ${s.syncMs / 1000} s, L = ${s.limit} per ${s.windowMs / 1000} s, seed ${s.seed}` +
    // said only when set, so a default replay's line is as it was
    `${s.reads === undefined ? '' : `, reads ${s.reads}`}; ` +
    `${int(r.arrivals)} arrivals (${int(r.floodArrivals)} flood) on ${int(r.keys)} keys, ${span}`
  );
}
