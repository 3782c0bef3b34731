/**
 * A small, dependency-free SVG chart renderer: line and scatter charts on linear or log axes. report.md links
 * these; report.html draws the same specs with the explorer's Plot code.
 *
 * The output is a pure function of the spec (no random ids, no clock), scales through its viewBox, and
 * stays readable in greyscale: each series gets a colour, a marker shape and, for lines, a dash pattern.
 * No element carries an id, so any number of charts can be inlined in one HTML page.
 */

import { layoutChart } from '../chart/layout.js';
import { tickLabel } from '../chart/scale.js';
import type { ChartKind, ChartPoint, ChartSpec, SeriesMark } from '../chart/spec.js';
import { escapeXml } from './escape.js';

export { makeScale } from '../chart/scale.js';
export type {
  AxisScale,
  ChartAxis,
  ChartKind,
  ChartPoint,
  ChartSeries,
  ChartSpec,
  ReferenceLine,
  SeriesMark,
} from '../chart/spec.js';

// Okabe–Ito colours: distinguishable with the common colour-vision deficiencies; yellow left out (poor on white).
// One colour per design (nine; the ninth, Tol's olive, is far from the others): a design keeps its colour in every chart.
const PALETTE = [
  '#0072B2',
  '#D55E00',
  '#009E73',
  '#CC79A7',
  '#E69F00',
  '#56B4E9',
  '#000000',
  '#882255',
  '#999933',
];
const SHAPES = [
  'circle',
  'square',
  'triangle',
  'diamond',
  'triangle-down',
  'cross',
  'plus',
  'square',
  'triangle',
] as const;
const DASHES = ['', '7 3', '2 3', '9 3 2 3', '4 2', '12 3 2 3 2 3', '1 2', '14 4', '3 3 9 3'];

export interface SeriesStyle {
  colour: string;
  shape: (typeof SHAPES)[number];
  dash: string;
}

export function seriesStyle(index: number): SeriesStyle {
  const i = ((index % PALETTE.length) + PALETTE.length) % PALETTE.length;
  return { colour: PALETTE[i]!, shape: SHAPES[i % SHAPES.length]!, dash: DASHES[i % DASHES.length]! };
}

export function lineChart(spec: ChartSpec): string {
  return renderChart('line', spec);
}

export function scatterChart(spec: ChartSpec): string {
  return renderChart('scatter', spec);
}

const FONT = 'system-ui, -apple-system, Segoe UI, Roboto, Helvetica, Arial, sans-serif';
const CHAR_WIDTH = 6.6; // mean advance of a 12px sans-serif character; sizes the legend
const MARKER = 4.5;

export function renderChart(kind: ChartKind, spec: ChartSpec): string {
  const width = spec.width ?? 760;
  const height = spec.height ?? 460;
  const xLog = spec.x.scale === 'log';
  const yLog = spec.y.scale === 'log';
  const layout = layoutChart(kind, spec);
  const { notes, hasData, x: xScale, y: yScale } = layout;
  const refs = layout.referenceLines;
  const series = layout.series.map((s) => ({ ...s, style: seriesStyle(s.style) }));

  const legendChars = Math.max(0, ...series.map((s) => s.name.length));
  const legendWidth = series.length > 0 ? Math.min(width * 0.38, 40 + legendChars * CHAR_WIDTH) : 0;
  const left = 74;
  const top = 44;
  const right = legendWidth + 18;
  const bottom = 58 + notes.length * 16;
  const plotW = Math.max(40, width - left - right);
  const plotH = Math.max(40, height - top - bottom);
  const px = (v: number) => left + xScale.unit(v) * plotW;
  const py = (v: number) => top + plotH - yScale.unit(v) * plotH;

  const out: string[] = [];
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" ` +
      `role="img" aria-label="${escapeXml(spec.title)}" font-family="${escapeXml(FONT)}" font-size="12">`,
  );
  out.push(`<title>${escapeXml(spec.title)}</title>`);
  out.push(`<rect x="0" y="0" width="${width}" height="${height}" fill="#ffffff"/>`);
  out.push(
    `<text x="${n(width / 2)}" y="24" text-anchor="middle" font-size="16" font-weight="bold" fill="#111111">${escapeXml(spec.title)}</text>`,
  );

  // Grid and tick labels.
  out.push('<g stroke="#e3e3e3" stroke-width="1">');
  for (const t of xScale.ticks)
    out.push(`<line x1="${n(px(t))}" y1="${top}" x2="${n(px(t))}" y2="${top + plotH}"/>`);
  for (const t of yScale.ticks)
    out.push(`<line x1="${left}" y1="${n(py(t))}" x2="${left + plotW}" y2="${n(py(t))}"/>`);
  out.push('</g>');
  out.push(`<g fill="#333333" font-size="11">`);
  for (const t of xScale.ticks)
    out.push(
      `<text x="${n(px(t))}" y="${n(top + plotH + 16)}" text-anchor="middle">${escapeXml(tickLabel(t))}</text>`,
    );
  for (const t of yScale.ticks)
    out.push(`<text x="${left - 6}" y="${n(py(t) + 4)}" text-anchor="end">${escapeXml(tickLabel(t))}</text>`);
  out.push('</g>');
  out.push(
    `<rect x="${left}" y="${top}" width="${n(plotW)}" height="${n(plotH)}" fill="none" stroke="#888888" stroke-width="1"/>`,
  );

  // Axis titles; the scale kind is part of the title so a log axis is never mistaken for a linear one.
  const xTitle = spec.x.title + (xLog ? ' — log scale' : '');
  const yTitle = spec.y.title + (yLog ? ' — log scale' : '');
  out.push(
    `<text x="${n(left + plotW / 2)}" y="${n(top + plotH + 38)}" text-anchor="middle" font-size="13" fill="#111111">${escapeXml(xTitle)}</text>`,
  );
  const yMid = n(top + plotH / 2);
  out.push(
    `<text x="18" y="${yMid}" transform="rotate(-90 18 ${yMid})" text-anchor="middle" font-size="13" fill="#111111">${escapeXml(yTitle)}</text>`,
  );

  for (const r of refs) {
    const y = n(py(r.y));
    out.push(
      `<line x1="${left}" y1="${y}" x2="${n(left + plotW)}" y2="${y}" stroke="#222222" stroke-width="1.5" stroke-dasharray="10 4 2 4"/>`,
    );
    out.push(
      `<text x="${n(left + plotW - 4)}" y="${n(py(r.y) - 5)}" text-anchor="end" font-size="11" fill="#222222">${escapeXml(r.label)}</text>`,
    );
  }

  if (!hasData) {
    out.push(
      `<text x="${n(left + plotW / 2)}" y="${n(top + plotH / 2)}" text-anchor="middle" font-size="14" fill="#555555">no data to plot</text>`,
    );
  }

  for (const s of series) {
    const { colour, dash } = s.style;
    out.push(`<g>`);
    if (s.mark !== 'dot') {
      // A dropped point breaks the line rather than bridging the gap, so no segment implies data that is not there.
      for (const run of runsOf(s.points)) {
        if (run.length < 2) continue;
        const d = run.map((p, i) => `${i === 0 ? 'M' : 'L'}${n(px(p.x))} ${n(py(p.y))}`).join(' ');
        out.push(
          `<path d="${d}" fill="none" stroke="${colour}" stroke-width="2"${dash ? ` stroke-dasharray="${dash}"` : ''}/>`,
        );
      }
    }
    if (s.mark !== 'line')
      for (const p of s.points) if (p) out.push(marker(s.style, px(p.x), py(p.y), kind === 'scatter'));
    out.push('</g>');
  }

  if (series.length > 0) legend(out, series, left + plotW + 14, top);

  notes.forEach((note, i) => {
    out.push(
      `<text x="${left}" y="${n(height - 10 - (notes.length - 1 - i) * 16)}" font-size="11" font-style="italic" fill="#444444">${escapeXml(note)}</text>`,
    );
  });

  out.push('</svg>');
  return out.join('\n');
}

/** The legend at x = lx: a sample of each series' line and marker, and its name. */
function legend(
  out: string[],
  series: readonly { name: string; mark?: SeriesMark; style: SeriesStyle }[],
  lx: number,
  top: number,
): void {
  out.push(`<g font-size="12" fill="#111111">`);
  series.forEach((s, i) => {
    const y = top + 10 + i * 20;
    if (s.mark !== 'dot') {
      out.push(
        `<line x1="${lx}" y1="${y}" x2="${lx + 26}" y2="${y}" stroke="${s.style.colour}" stroke-width="2"${s.style.dash ? ` stroke-dasharray="${s.style.dash}"` : ''}/>`,
      );
    }
    if (s.mark !== 'line') out.push(marker(s.style, lx + 13, y, false));
    out.push(`<text x="${lx + 32}" y="${y + 4}">${escapeXml(s.name)}</text>`);
  });
  out.push('</g>');
}

function runsOf(points: readonly (ChartPoint | null)[]): ChartPoint[][] {
  const runs: ChartPoint[][] = [[]];
  for (const p of points) {
    if (p) runs[runs.length - 1]!.push(p);
    else if (runs[runs.length - 1]!.length > 0) runs.push([]);
  }
  return runs;
}

function marker(style: SeriesStyle, x: number, y: number, translucent: boolean): string {
  const { colour, shape } = style;
  const r = MARKER;
  const fill = `fill="${colour}"${translucent ? ' fill-opacity="0.7"' : ''} stroke="${colour}" stroke-width="1"`;
  switch (shape) {
    case 'circle':
      return `<circle cx="${n(x)}" cy="${n(y)}" r="${r}" ${fill}/>`;
    case 'square':
      return `<rect x="${n(x - r * 0.9)}" y="${n(y - r * 0.9)}" width="${n(r * 1.8)}" height="${n(r * 1.8)}" ${fill}/>`;
    case 'triangle':
      return `<path d="M${n(x)} ${n(y - r * 1.15)} L${n(x + r)} ${n(y + r * 0.75)} L${n(x - r)} ${n(y + r * 0.75)} Z" ${fill}/>`;
    case 'triangle-down':
      return `<path d="M${n(x)} ${n(y + r * 1.15)} L${n(x + r)} ${n(y - r * 0.75)} L${n(x - r)} ${n(y - r * 0.75)} Z" ${fill}/>`;
    case 'diamond':
      return `<path d="M${n(x)} ${n(y - r * 1.2)} L${n(x + r)} ${n(y)} L${n(x)} ${n(y + r * 1.2)} L${n(x - r)} ${n(y)} Z" ${fill}/>`;
    case 'cross':
      return `<path d="M${n(x - r)} ${n(y - r)} L${n(x + r)} ${n(y + r)} M${n(x - r)} ${n(y + r)} L${n(x + r)} ${n(y - r)}" fill="none" stroke="${colour}" stroke-width="2"/>`;
    case 'plus':
      return `<path d="M${n(x - r * 1.2)} ${n(y)} L${n(x + r * 1.2)} ${n(y)} M${n(x)} ${n(y - r * 1.2)} L${n(x)} ${n(y + r * 1.2)}" fill="none" stroke="${colour}" stroke-width="2"/>`;
  }
}

/** Coordinates to one decimal: deterministic, compact, and finite by construction of the scales. */
function n(v: number): string {
  return String(Math.round(v * 10) / 10);
}
