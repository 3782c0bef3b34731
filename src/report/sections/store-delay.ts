/** Store delay: what a late sync reply and a slow request-path call cost. */
import type { DesignId } from '../../config.js';
import type { RunRow } from '../../sim/types.js';
import { formatNumber, formatPercent } from '../../util/format.js';
import { distinct, type MetricKey } from '../aggregate.js';
import type { Block, Section } from '../document.js';
import {
  delayOf,
  designLines,
  designsIn,
  designTable,
  logLines,
  meanOf,
  missing,
  NONE,
  positive,
  section,
  tableBlock,
} from './common.js';

export function storeDelaySection(all: readonly RunRow[]): Section {
  const id = 'store-delay';
  const title = 'Store delay: a sync’s reply arrives late (K = 8, Δ = 1 s)';
  const intro: Block = {
    kind: 'text',
    text:
      'Every store call takes the given delay plus a uniform jitter of up to half of it: a sync is applied by the ' +
      'store when sent and its reply reaches the gateway that much later, so what a gateway learns is that old, ' +
      'and a request-path call (central-log, leases-ask) keeps its request waiting as long. Lines: admitted per ' +
      'window under a 100× flood, honest rejections (steady 80 %, uneven) and the mean time a request waits on ' +
      'the store, against the delay (log axis; the 0 ms points are in the table).',
  };
  const rows = all.filter((r) => r.group === 'delay');
  if (rows.length === 0)
    return { id, title, blocks: [intro, missing('store-delay runs (--grid extended).')] };
  const delays = distinct(rows, 'storeDelayMs') as number[];
  const designs = designsIn(rows);
  const cell = (
    d: DesignId,
    ms: number,
    traffic: string,
    load: number,
    m: MetricKey,
    fmt: (v: number) => string,
  ) => {
    const c = rows.filter(
      (r) => r.design === d && delayOf(r) === ms && r.traffic === traffic && r.load === load,
    );
    return c.length === 0 ? NONE : fmt(meanOf(c, m));
  };
  const table = designTable(
    'design · delay →',
    designs,
    delays,
    (ms) => `${formatNumber(ms)} ms`,
    (d, ms) =>
      `${cell(d, ms, 'flood', 100, 'admittedPerWindow', formatNumber)} · ${cell(d, ms, 'steady', 0.8, 'rejectedPct', formatPercent)} · ${cell(d, ms, 'steady', 0.8, 'latencyMs', (v) => `${formatNumber(v)} ms`)}`,
  );
  const note: Block = {
    kind: 'text',
    text: 'Each cell: admitted per window under a 100× flood (× L) · honest rejections (steady 80 %, uneven) · mean wait on the store per honest request.',
  };
  const flood = rows.filter((r) => r.traffic === 'flood' && r.load === 100);
  const honest = rows.filter((r) => r.traffic === 'steady');
  return section(id, title, [
    intro,
    tableBlock(table),
    note,
    logLines('store-delay-flood', 'Admitted per window under a 100× flood vs store delay', {
      title: 'Admitted per window under a 100× flood vs store delay (K = 8, Δ = 1 s)',
      x: 'store delay (ms)',
      y: 'admitted per window (× L)',
      series: designLines(flood, delayOf, 'admittedPerWindow', positive),
      limit: true,
    }),
    logLines('store-delay-honest', 'Honest rejections vs store delay', {
      title: 'Honest rejections vs store delay (steady 80 %, uneven, K = 8, Δ = 1 s)',
      x: 'store delay (ms)',
      y: 'requests rejected (%)',
      series: designLines(honest, delayOf, 'rejectedPct', positive),
    }),
    logLines('store-delay-latency', 'Mean wait on the store per request vs store delay', {
      title: 'Mean wait on the store per request vs store delay (steady 80 %, uneven, K = 8)',
      x: 'store delay (ms)',
      y: 'mean wait per request (ms)',
      series: designLines(honest, delayOf, 'latencyMs', positive),
    }),
  ]);
}
