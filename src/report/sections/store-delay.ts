/** Store delay: what a late sync reply and a slow request-path call cost. */
import type { DesignId } from '../../config.js';
import type { RunRow } from '../../sim/types.js';
import { formatNumber, formatPercent } from '../../util/format.js';
import { distinct, type MetricKey } from '../aggregate.js';
import type { Section } from '../document.js';
import { delayOf, designLines, logLines, meanOf, NONE, positive } from './common.js';
import { faultSweepSection } from './fault-sweep.js';

export function storeDelaySection(all: readonly RunRow[]): Section {
  const cell = (
    rows: readonly RunRow[],
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
  return faultSweepSection(
    all.filter((r) => r.group === 'delay'),
    {
      id: 'store-delay',
      title: 'Store delay: a sync’s reply arrives late (K = 8, Δ = 1 s)',
      intro:
        'Every store call takes the given delay plus a uniform jitter of up to half of it: a sync is applied by the ' +
        'store when sent and its reply reaches the gateway that much later, so what a gateway learns is that old, ' +
        'and a request-path call (central-log, leases-ask) keeps its request waiting as long. Lines: admitted per ' +
        'window under a 100× flood, honest rejections (steady 80 %, uneven) and the mean time a request waits on ' +
        'the store, against the delay (log axis; the 0 ms points are in the table).',
      needs: 'store-delay runs (--grid extended).',
      fault: 'store delay',
      axis: 'store delay (ms)',
      levelOf: delayOf,
      levels: (rows) => distinct(rows, 'storeDelayMs') as number[],
      label: (ms) => `${formatNumber(ms)} ms`,
      corner: 'design · delay →',
      cell: (rows, d, ms) =>
        `${cell(rows, d, ms, 'flood', 100, 'admittedPerWindow', formatNumber)} · ${cell(rows, d, ms, 'steady', 0.8, 'rejectedPct', formatPercent)} · ${cell(rows, d, ms, 'steady', 0.8, 'latencyMs', (v) => `${formatNumber(v)} ms`)}`,
      note: 'Each cell: admitted per window under a 100× flood (× L) · honest rejections (steady 80 %, uneven) · mean wait on the store per honest request.',
      flood: (r) => r.traffic === 'flood' && r.load === 100,
      more: (honest) => [
        logLines('store-delay-latency', 'Mean wait on the store per request vs store delay', {
          title: 'Mean wait on the store per request vs store delay (steady 80 %, uneven, K = 8)',
          x: 'store delay (ms)',
          y: 'mean wait per request (ms)',
          series: designLines(honest, delayOf, 'latencyMs', positive),
        }),
      ],
    },
  );
}
