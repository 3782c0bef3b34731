/// <reference lib="dom" />
import * as Plot from '@observablehq/plot';
import { DESIGN_IDS, type DesignId } from '../../config.js';
import type { TimelinePoint } from '../timeline.js';

// one colour per design on every chart (Observable's tableau10, in the README's design order)
const COLORS = ['#4e79a7', '#f28e2c', '#e15759', '#76b7b2', '#59a14f', '#edc949', '#af7aa1', '#9c755f'];
export function colorOf(d: DesignId): string {
  return COLORS[DESIGN_IDS.indexOf(d)];
}

function colorScale(designs: DesignId[]): Plot.ScaleOptions {
  return { domain: designs, range: designs.map(colorOf), legend: true };
}

const FONT = { fontSize: '12px' };

/** Admitted in the trailing window over time, one line per design, with the limit drawn at 1 × L. */
export function timelineChart(
  series: { design: DesignId; points: TimelinePoint[] }[],
  o: { width: number; windowLabel: string; designs: DesignId[] },
): Element {
  const rows = series.flatMap((s) => s.points.map((p) => ({ design: s.design, t: p.t, perL: p.perL })));
  const top = Math.max(1.2, ...rows.map((r) => r.perL)) * 1.05;
  return Plot.plot({
    width: o.width,
    height: Math.max(220, Math.min(340, o.width * 0.5)),
    marginLeft: 48,
    style: FONT,
    color: colorScale(o.designs),
    x: { label: 'simulated time (min)', grid: true },
    y: { label: `admitted in the last ${o.windowLabel} (× L)`, domain: [0, top], grid: true },
    marks: [
      Plot.ruleY([0]),
      Plot.ruleY([1], { stroke: '#555', strokeDasharray: '4,3' }),
      Plot.text([1], {
        y: (d: number) => d,
        frameAnchor: 'right',
        text: () => 'L',
        dy: -7,
        dx: -2,
        fill: '#555',
      }),
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

/** A metric against Δ on a log axis, one line per design, with the chosen Δ marked. */
export function sweepChart(
  points: SweepPoint[],
  o: {
    width: number;
    designs: DesignId[];
    deltas: number[];
    chosenS: number;
    y: Plot.ScaleOptions;
    unit: (v: number) => string;
    rule?: number;
  },
): Element {
  return Plot.plot({
    width: o.width,
    height: Math.max(220, Math.min(300, o.width * 0.45)),
    marginLeft: 52,
    style: FONT,
    color: colorScale(o.designs),
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
