/** Many keys: what syncing a key population costs. */

import type { ChartSeries } from '../../chart/spec.js';
import type { DesignId } from '../../config.js';
import type { RunRow } from '../../sim/types.js';
import { formatNumber, formatPercent } from '../../util/format.js';
import { distinct } from '../aggregate.js';
import type { Block, Section } from '../document.js';
import { figureColumns, type Table } from '../tables.js';
import { designStyle, designsIn, logLines, NONE, sectionOver, tableBlock } from './common.js';

/** One design's many-keys figures at one (N, S): means over seeds. */
export interface KeyCostPoint {
  design: DesignId;
  keys: number;
  popularity: number;
  storeOpsPerSec: number;
  keyOpsPerSec: number;
  keysPerSync: number;
  bytesPerGateway: number;
  storeKeys: number;
  admittedPerWindow: number;
  unfloodedRejectedPct: number;
}

/** The many-keys runs (group 'keys') reduced to one point per design, N and S, in design, N, S order. */
export function keyCostPoints(all: readonly RunRow[]): KeyCostPoint[] {
  const rows = all.filter((r) => r.group === 'keys');
  const avg = (c: readonly RunRow[], f: (r: RunRow) => number | undefined) =>
    c.reduce((a, r) => a + (f(r) ?? Number.NaN), 0) / c.length;
  const out: KeyCostPoint[] = [];
  for (const design of designsIn(rows)) {
    for (const keys of distinct(rows, 'keys') as number[]) {
      for (const popularity of distinct(rows, 'popularity') as number[]) {
        const c = rows.filter((r) => r.design === design && r.keys === keys && r.popularity === popularity);
        if (c.length === 0) continue;
        out.push({
          design,
          keys,
          popularity,
          storeOpsPerSec: avg(c, (r) => r.storeOpsPerSec),
          keyOpsPerSec: avg(c, (r) => r.keyOpsPerSec),
          keysPerSync: avg(c, (r) => r.keysPerSync),
          bytesPerGateway: avg(c, (r) => r.bytesPerGateway),
          storeKeys: avg(c, (r) => r.storeKeys),
          admittedPerWindow: avg(c, (r) => r.admittedPerWindow),
          unfloodedRejectedPct: avg(c, (r) => r.unfloodedRejectedPct),
        });
      }
    }
  }
  return out;
}

function kib(bytes: number): string {
  return `${formatNumber(bytes / 1024)} KiB`;
}

export function manyKeysSection(all: readonly RunRow[]): Section {
  const id = 'many-keys';
  const title = 'Many keys: what syncing a key population costs (K = 8, Δ = 1 s)';
  const first = all.find((r) => r.group === 'keys');
  const flood =
    first === undefined
      ? ''
      : `; ${formatNumber(first.floodKeys ?? 0)} keys (${first.floodPick ?? 'hot'}) also get a ${formatNumber(first.floodLoad ?? 0)}× flood; ${formatNumber(first.minutes)} minutes`;
  const head = {
    id,
    title,
    intro:
      'N keys with Zipf popularity: key r (1-based rank) gets an honest steady client at 0.8/r^S × L per W (the ' +
      `hottest at 80 %), routed evenly${flood}. Each simulated gateway is ` +
      'the library’s own Gateway over one in-memory store, so the figures count what the code does. Measured over ' +
      'the steady state (after the first window): store calls per second (syncs + request-path calls); keys ' +
      'carried per second (every key of every sync, plus one per request-path call: what the store works ' +
      'through, about 20 µs per key on Redis); keys per sync call; the bytes a gateway holds (its keys held × ' +
      'the design’s bytes per held key, measured on the V8 heap by bench/key-bytes.mjs); the keys the store ' +
      'holds. Only keys with traffic in the last window cost anything, so with a long tail (S = 0.8) the cost ' +
      'grows with N, and with a steep one (S = 1.2) it levels off. central-log holds nothing on a gateway and ' +
      'split carries nothing in its syncs: they are left out of the log-axis charts where their figure is 0. ' +
      'What one key never shows: leases turns away most requests of rarely used keys (a gateway drops a key ' +
      'after W without a request and holds no slot for it until a sync, so a key reaching a gateway less than ' +
      'once per window is refused every time); leases-ask asks the store instead, a round trip per such request.',
    needs: 'many-keys runs (--grid extended).',
  };
  const points = keyCostPoints(all);
  return sectionOver(head, points, (points) => {
    const ns = [...new Set(points.map((p) => p.keys))].sort((a, b) => a - b);
    const ss = [...new Set(points.map((p) => p.popularity))].sort((a, b) => a - b);
    const designs = [...new Set(points.map((p) => p.design))];
    const at = (d: DesignId, n: number, s: number) =>
      points.find((p) => p.design === d && p.keys === n && p.popularity === s);
    const table: Table = {
      columns: [
        { title: 'design, Zipf S' },
        ...figureColumns(
          ...ns.map((n) => `N = ${formatNumber(n)}`),
          'flooded keys: admitted per W (× L)',
          'honest rejected, keys no flood hits',
        ),
      ],
      rows: designs.flatMap((d) =>
        ss.map((s) => {
          const mine = points.filter((p) => p.design === d && p.popularity === s);
          const m = (f: (p: KeyCostPoint) => number) => mine.reduce((a, p) => a + f(p), 0) / mine.length;
          return [
            `${d}, S = ${formatNumber(s)}`,
            ...ns.map((n) => {
              const p = at(d, n, s);
              return p === undefined
                ? NONE
                : `${formatNumber(p.storeOpsPerSec)} · ${formatNumber(p.keyOpsPerSec)} · ${formatNumber(p.keysPerSync)} · ${kib(p.bytesPerGateway)}`;
            }),
            formatNumber(m((p) => p.admittedPerWindow)),
            formatPercent(m((p) => p.unfloodedRejectedPct)),
          ];
        }),
      ),
    };
    const note: Block = {
      kind: 'text',
      text:
        'Each N cell: store calls/s · keys carried/s · keys per sync · bytes held per gateway. The last two ' +
        'columns are means over N. Keys in the store (S = 0.8): ' +
        ns
          .map((n) => {
            const p = points.find((q) => q.keys === n && q.popularity === ss[0]);
            return p === undefined ? '' : `${formatNumber(p.storeKeys)} at N = ${formatNumber(n)}`;
          })
          .filter((x) => x !== '')
          .join(', ') +
        '.',
    };
    const s0 = ss[0]!;
    const series = (f: (p: KeyCostPoint) => number): ChartSeries[] =>
      designs.map((d) => ({
        name: d,
        style: designStyle(d),
        points: ns
          .map((n) => at(d, n, s0))
          .filter((p): p is KeyCostPoint => p !== undefined && f(p) > 0)
          .map((p) => ({ x: p.keys, y: f(p) })),
      }));
    return [
      tableBlock(table),
      note,
      logLines('many-keys-store', 'Keys carried per second vs N', {
        title: `Store work: keys carried per second (syncs + request-path calls) vs N (Zipf S = ${formatNumber(s0)}, K = 8, Δ = 1 s)`,
        x: 'keys N',
        y: 'keys carried per second',
        series: series((p) => p.keyOpsPerSec),
      }),
      logLines('many-keys-bytes', 'Bytes held per gateway vs N', {
        title: `Bytes held per gateway vs N (Zipf S = ${formatNumber(s0)}, K = 8, Δ = 1 s)`,
        x: 'keys N',
        y: 'bytes held per gateway',
        series: series((p) => p.bytesPerGateway),
      }),
    ];
  });
}
