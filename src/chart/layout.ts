/**
 * What a report chart shows, decided once for both of its renderers (the static SVG of report.md and the
 * Plot figure of report.html): which points a log axis cannot place, the notes that say so, and the axes'
 * ticks and domains. Pure, so the browser bundle carries it too.
 */
import { makeScale, type Scale } from './scale.js';
import type { ChartKind, ChartPoint, ChartSpec, ReferenceLine, SeriesMark } from './spec.js';
import { seriesMark } from './spec.js';

export interface LaidOutSeries {
  name: string;
  /** the legend entry: the series' group, else its name */
  group: string;
  /** the palette index: the series' own style, else its position */
  style: number;
  mark: SeriesMark;
  /** a dropped point stays as null, so a line breaks there instead of bridging the gap */
  points: (ChartPoint | null)[];
}

export interface ChartLayout {
  series: LaidOutSeries[];
  referenceLines: ReferenceLine[];
  x: Scale;
  y: Scale;
  /** sentences for under the chart, e.g. how many points at zero a log axis left out */
  notes: string[];
  hasData: boolean;
}

export function layoutChart(kind: ChartKind, spec: ChartSpec): ChartLayout {
  const xLog = spec.x.scale === 'log';
  const yLog = spec.y.scale === 'log';

  // Points a log axis cannot place (zero or negative) are dropped and counted, then named in a note under the
  // chart, so a reader knows the line is missing points rather than seeing them silently vanish.
  let droppedLog = 0;
  let droppedNonFinite = 0;
  const series = spec.series.map((s, i) => {
    const kept: (ChartPoint | null)[] = [];
    for (const p of s.points) {
      // JSON turns NaN into null: a point read back from report.html may carry one
      if (!Number.isFinite(p.x) || !Number.isFinite(p.y)) {
        droppedNonFinite++;
        kept.push(null);
      } else if ((xLog && p.x <= 0) || (yLog && p.y <= 0)) {
        droppedLog++;
        kept.push(null);
      } else kept.push({ x: p.x, y: p.y });
    }
    return {
      name: s.name,
      group: s.group ?? s.name,
      style: s.style ?? i,
      mark: seriesMark(kind, s),
      points: kept,
    };
  });
  const referenceLines = (spec.referenceLines ?? []).filter(
    (r) => Number.isFinite(r.y) && (!yLog || r.y > 0),
  );

  const xs: number[] = [];
  const ys: number[] = [];
  for (const s of series)
    for (const p of s.points)
      if (p) {
        xs.push(p.x);
        ys.push(p.y);
      }
  const hasData = xs.length > 0;
  for (const r of referenceLines) ys.push(r.y);
  for (const [axis, list] of [
    [spec.x, xs],
    [spec.y, ys],
  ] as const) {
    for (const v of [axis.min, axis.max])
      if (v !== undefined && Number.isFinite(v) && (axis.scale !== 'log' || v > 0)) list.push(v);
  }

  const notes: string[] = [];
  if (droppedLog > 0)
    notes.push(
      `${droppedLog} point${droppedLog === 1 ? '' : 's'} at zero not shown: a log scale cannot place them.`,
    );
  if (droppedNonFinite > 0)
    notes.push(
      `${droppedNonFinite} point${droppedNonFinite === 1 ? '' : 's'} without a finite value not shown.`,
    );

  return {
    series,
    referenceLines,
    x: makeScale(xLog ? 'log' : 'linear', xs),
    y: makeScale(yLog ? 'log' : 'linear', ys),
    notes,
    hasData,
  };
}
