/**
 * Axis scales for the report's charts: round ticks on linear axes, 1-2-5 or decade ticks on log axes, and a
 * domain that ends on ticks. Pure and dependency-free: the static SVG renderer and the Plot charts of
 * report.html (bundled for the browser) tick their axes alike.
 */

import { formatNumber } from '../util/format.js';
import type { AxisScale } from './spec.js';

export interface Scale {
  kind: AxisScale;
  lo: number;
  hi: number;
  ticks: number[];
  /** value → 0..1 along the axis */
  unit(v: number): number;
}

/** A tick's label: three significant digits, k and M past ten thousand. */
export function tickLabel(v: number): string {
  const abs = Math.abs(v);
  if (abs >= 1e6) return `${formatNumber(v / 1e6)}M`;
  if (abs >= 1e4) return `${formatNumber(v / 1e3)}k`;
  return formatNumber(v);
}

/** m × 10^e built from its decimal text, so 3 × 10^-1 is 0.3 and not 0.30000000000000004. */
function decimal(m: number, e: number): number {
  return Number(`${m}e${e}`);
}

export function makeScale(kind: AxisScale, values: readonly number[]): Scale {
  const finite = values.filter((v) => Number.isFinite(v) && (kind === 'linear' || v > 0));
  if (kind === 'log') return logScale(finite);
  return linearScale(finite);
}

function linearScale(values: readonly number[]): Scale {
  let lo = values.length ? Math.min(...values) : 0;
  let hi = values.length ? Math.max(...values) : 1;
  if (lo === hi) {
    const pad = lo === 0 ? 1 : Math.abs(lo) * 0.1;
    lo -= pad;
    hi += pad;
  }
  const step = niceStep((hi - lo) / 6);
  const start = Math.floor(lo / step) * step;
  const end = Math.ceil(hi / step) * step;
  const ticks: number[] = [];
  const count = Math.round((end - start) / step);
  for (let i = 0; i <= count; i++) ticks.push(Number((start + i * step).toPrecision(12)));
  const span = end - start;
  return { kind: 'linear', lo: start, hi: end, ticks, unit: (v) => (v - start) / span };
}

function niceStep(raw: number): number {
  const e = Math.floor(Math.log10(raw));
  const f = raw / 10 ** e;
  const m = f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10;
  return decimal(m, e);
}

const STEPS_125 = [1, 2, 5];

/**
 * Log axes tick at 1-2-5 within a narrow range and at decades across a wide one; the domain ends on a tick so
 * every data point lies between two labelled values.
 */
function logScale(values: readonly number[]): Scale {
  let min = values.length ? Math.min(...values) : 1;
  let max = values.length ? Math.max(...values) : 10;
  if (min === max) {
    min /= 2;
    max *= 2;
  }
  const decades = Math.log10(max / min);
  let ticks: number[];
  if (decades > 3) {
    const e0 = Math.floor(Math.log10(min) + 1e-9);
    const e1 = Math.ceil(Math.log10(max) - 1e-9);
    // Past about eight decades the labels would crowd; label every other one.
    const every = e1 - e0 > 8 ? 2 : 1;
    ticks = [];
    for (let e = e0; e <= e1; e += every) ticks.push(decimal(1, e));
    if (ticks[ticks.length - 1]! < max) ticks.push(decimal(1, e1));
  } else {
    const all: number[] = [];
    const e0 = Math.floor(Math.log10(min) + 1e-9) - 1;
    const e1 = Math.ceil(Math.log10(max) - 1e-9) + 1;
    for (let e = e0; e <= e1; e++) for (const m of STEPS_125) all.push(decimal(m, e));
    const below = all.filter((t) => t <= min * (1 + 1e-9));
    const above = all.filter((t) => t >= max * (1 - 1e-9));
    const lo = below[below.length - 1] ?? all[0]!;
    const hi = above[0] ?? all[all.length - 1]!;
    ticks = all.filter((t) => t >= lo && t <= hi);
  }
  const lo = ticks[0]!;
  const hi = ticks[ticks.length - 1]!;
  // a range inside one 1-2-5 step (0.5 to 1, say) would get two labels: fill in round linear steps
  if (ticks.length < 3) {
    const step = niceStep((hi - lo) / 5);
    const fill: number[] = [];
    for (let t = Math.ceil(lo / step) * step; t < hi; t += step) fill.push(Number(t.toPrecision(12)));
    ticks = [...new Set([lo, ...fill.filter((t) => t > lo), hi])];
  }
  const l0 = Math.log10(lo);
  const span = Math.log10(hi) - l0 || 1;
  return { kind: 'log', lo, hi, ticks, unit: (v) => (Math.log10(v) - l0) / span };
}
