/**
 * The charts of the explorer page and of the study's report.html, drawn with Observable Plot. Every
 * function takes data and options and returns a Plot figure; the callers (app.ts, report.ts) only place it.
 */
/// <reference lib="dom" />
import * as Plot from '@observablehq/plot';
import { layoutChart } from '../../chart/layout.js';
import { tickLabel } from '../../chart/scale.js';
import type { ReportChart } from '../../chart/spec.js';
import { DESIGN_IDS, type DesignId } from '../../config.js';
import { formatNumber } from '../../util/format.js';
import type { TimelinePoint } from '../timeline.js';

// one colour per design on every chart (Observable's tableau10, in the README's design order)
const COLORS = ['#4e79a7', '#f28e2c', '#e15759', '#76b7b2', '#59a14f', '#edc949', '#af7aa1', '#9c755f'];
export function colorOf(d: DesignId): string {
  return seriesColor(DESIGN_IDS.indexOf(d));
}

/** The colour of palette slot i; the report's series carry a design's index as their slot. */
export function seriesColor(i: number): string {
  return COLORS[((i % COLORS.length) + COLORS.length) % COLORS.length];
}

// Plot's filled symbols, plus a repeat of the circle for the eighth design (which has its own colour)
const SYMBOLS = ['circle', 'square', 'triangle', 'diamond', 'cross', 'star', 'wye', 'circle'];

/** A dashed horizontal rule with its label at the right end, e.g. the limit L. */
function referenceRule(y: number, label: string): Plot.Markish[] {
  return [
    Plot.ruleY([y], { stroke: '#555', strokeDasharray: '4,3' }),
    Plot.text([y], {
      y: (d: number) => d,
      frameAnchor: 'right',
      text: () => label,
      dy: -7,
      dx: -2,
      fill: '#555',
    }),
  ];
}

function colorScale(designs: DesignId[]): Plot.ScaleOptions {
  return { domain: designs, range: designs.map(colorOf), legend: true };
}

const FONT = { fontSize: '12px' };

/**
 * What every chart here shares: its width, a height that follows the width (at least 220 px, at most
 * `maxHeight`), the font and one colour per design.
 */
function frame(
  width: number,
  f: { maxHeight: number; aspect: number; marginLeft: number },
  designs: DesignId[],
) {
  return {
    width,
    height: Math.max(220, Math.min(f.maxHeight, width * f.aspect)),
    marginLeft: f.marginLeft,
    style: FONT,
    color: colorScale(designs),
  };
}

/** Admitted in the trailing window over time, one line per design, with the limit drawn at 1 × L. */
export function timelineChart(
  series: { design: DesignId; points: TimelinePoint[] }[],
  o: { width: number; windowLabel: string; designs: DesignId[] },
): Element {
  const rows = series.flatMap((s) => s.points.map((p) => ({ design: s.design, t: p.t, perL: p.perL })));
  const top = Math.max(1.2, ...rows.map((r) => r.perL)) * 1.05;
  return Plot.plot({
    ...frame(o.width, { maxHeight: 340, aspect: 0.5, marginLeft: 48 }, o.designs),
    x: { label: 'simulated time (min)', grid: true },
    y: { label: `admitted in the last ${o.windowLabel} (× L)`, domain: [0, top], grid: true },
    marks: [
      Plot.ruleY([0]),
      ...referenceRule(1, 'L'),
      Plot.line(rows, { x: 't', y: 'perL', stroke: 'design', curve: 'step-after', strokeWidth: 1.5 }),
      Plot.tip(
        rows,
        Plot.pointer({
          x: 't',
          y: 'perL',
          stroke: 'design',
          title: (r: (typeof rows)[number]) => `${r.design}\n${r.t.toFixed(2)} min: ${r.perL.toFixed(2)} × L`,
        }),
      ),
    ],
  });
}

export interface SweepPoint {
  design: DesignId;
  syncS: number;
  value: number;
}

export interface SweepOptions {
  width: number;
  designs: DesignId[];
  deltas: number[];
  chosenS: number;
  y: Plot.ScaleOptions;
  unit: (v: number) => string;
  rule?: number;
}

/** A metric against Δ on a log axis, one line per design, with the chosen Δ marked. */
export function sweepChart(points: SweepPoint[], o: SweepOptions): Element {
  return Plot.plot({
    ...frame(o.width, { maxHeight: 300, aspect: 0.45, marginLeft: 52 }, o.designs),
    x: {
      type: 'log',
      label: 'sync interval Δ (s)',
      ticks: o.deltas,
      tickFormat: (d: number) => String(d),
      grid: true,
    },
    y: { grid: true, ...o.y },
    marks: [
      Plot.ruleX([o.chosenS], { stroke: '#bbb', strokeDasharray: '2,3' }),
      ...(o.rule === undefined ? [] : [Plot.ruleY([o.rule], { stroke: '#555', strokeDasharray: '4,3' })]),
      Plot.line(points, { x: 'syncS', y: 'value', stroke: 'design', strokeWidth: 1.5 }),
      Plot.dot(points, { x: 'syncS', y: 'value', fill: 'design', r: 3 }),
      Plot.tip(
        points,
        Plot.pointer({
          x: 'syncS',
          y: 'value',
          stroke: 'design',
          title: (p: SweepPoint) => `${p.design}, Δ = ${p.syncS} s\n${o.unit(p.value)}`,
        }),
      ),
    ],
  });
}

interface ReportRow {
  series: string;
  /** the colour and legend entry */
  group: string;
  x: number;
  /** NaN where a point was dropped: the line breaks there */
  y: number;
}

/**
 * One chart of the study report from its data (src/chart/spec.ts): lines and/or dots per series, a
 * legend, reference rules, and the same points left out, notes, ticks and domains as the report's static SVG
 * (both come from layoutChart). Log axes say so in their label.
 */
export function reportChart(chart: Pick<ReportChart, 'kind' | 'spec'>, o: { width: number }): Element {
  const { spec } = chart;
  const layout = layoutChart(chart.kind, spec);
  // one colour and legend entry per group, in the order the groups first appear
  const groups = [...new Map(layout.series.map((s) => [s.group, s.style])).entries()];
  const keys = groups.map(([g]) => g);
  const rows = (keep: (mark: string) => boolean): ReportRow[] =>
    layout.series
      .filter((s) => keep(s.mark))
      .flatMap((s) =>
        s.points.map((p) => ({
          series: s.name,
          group: s.group,
          x: p?.x ?? Number.NaN,
          y: p?.y ?? Number.NaN,
        })),
      );
  const finite = (r: ReportRow) => Number.isFinite(r.y);
  const lineRows = rows((m) => m !== 'dot');
  const dotRows = rows((m) => m !== 'line').filter(finite);
  const shown = rows(() => true).filter(finite);
  // a legend of coloured symbols when every series shows its dots; colour swatches when some are lines only
  const symbols = layout.series.length > 0 && layout.series.every((s) => s.mark !== 'line');
  // ticks and domain as the static SVG has them: 1-2-5 or decades on a log axis, ending on ticks; a line
  // against a handful of parameter values (K, Δ, a delay) is ticked at those values
  const xs = [...new Set(shown.map((r) => r.x))].sort((a, b) => a - b);
  const xTicks = chart.kind === 'line' && xs.length >= 2 && xs.length <= 8 ? xs : layout.x.ticks;
  const label = (a: typeof spec.x) => a.title + (a.scale === 'log' ? ' — log scale' : '');
  // Plot labels only some ticks of a log axis (d3's log tickFormat); the text channel labels every one
  const text = (d: number) => tickLabel(d);
  return Plot.plot({
    width: o.width,
    height: Math.round(Math.max(260, Math.min(440, o.width * 0.6))),
    marginLeft: 56,
    marginBottom: 40,
    style: FONT,
    caption: layout.notes.length > 0 ? layout.notes.join(' ') : undefined,
    color: {
      domain: keys,
      range: groups.map(([, style]) => seriesColor(style)),
      legend: !symbols,
    },
    symbol: symbols
      ? { domain: keys, range: groups.map(([, style]) => SYMBOLS[style % SYMBOLS.length]), legend: true }
      : undefined,
    x: { type: layout.x.kind, domain: [layout.x.lo, layout.x.hi] },
    y: { type: layout.y.kind, domain: [layout.y.lo, layout.y.hi] },
    marks: [
      Plot.gridX(xTicks),
      Plot.gridY(layout.y.ticks),
      Plot.axisX(xTicks, { text, label: label(spec.x) }),
      Plot.axisY(layout.y.ticks, { text, label: label(spec.y) }),
      Plot.frame({ stroke: '#ccc' }),
      ...layout.referenceLines.flatMap((r) => referenceRule(r.y, r.label)),
      Plot.line(lineRows, { x: 'x', y: 'y', stroke: 'group', z: 'series', strokeWidth: 1.5 }),
      Plot.dot(dotRows, {
        x: 'x',
        y: 'y',
        fill: 'group',
        symbol: symbols ? 'group' : undefined,
        r: chart.kind === 'scatter' ? 3.5 : 3,
        fillOpacity: chart.kind === 'scatter' ? 0.8 : 1,
      }),
      ...(layout.hasData ? [] : [Plot.text(['no data to plot'], { frameAnchor: 'middle', fill: '#555' })]),
      Plot.tip(
        shown,
        Plot.pointer({
          x: 'x',
          y: 'y',
          stroke: 'group',
          title: (r: ReportRow) =>
            `${r.series}\n${spec.x.title}: ${formatNumber(r.x)}\n${spec.y.title}: ${formatNumber(r.y)}`,
        }),
      ),
    ],
  });
}
