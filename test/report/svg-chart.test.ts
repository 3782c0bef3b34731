import { describe, expect, it } from 'vitest';
import { DESIGN_IDS } from '../../src/config.js';
import { designStyle } from '../../src/report/sections/common.js';
import {
  type ChartSpec,
  lineChart,
  makeScale,
  scatterChart,
  seriesStyle,
} from '../../src/report/svg-chart.js';
import { wellFormedErrors } from './xml-check.js';

const spec: ChartSpec = {
  title: 'Admitted <per> window & "more"',
  x: { title: 'flood rate (× L per window)', scale: 'log' },
  y: { title: 'admitted per window (× L)', scale: 'log' },
  series: [
    { name: 'central-log', points: [1.5, 10, 100, 1000].map((x) => ({ x, y: 1 })) },
    { name: 'shared-counter', points: [1.5, 10, 100, 1000].map((x) => ({ x, y: 1 + x / 20 })) },
    { name: 'a <b> & c', points: [{ x: 10, y: 2 }] },
  ],
  referenceLines: [{ y: 1, label: 'the limit L' }],
};

/** Every number in every attribute of the SVG. */
function attributeNumbers(svg: string): string[] {
  return [...svg.matchAll(/="([^"]*)"/g)].flatMap((m) => m[1]!.match(/-?[\w.]+/g) ?? []);
}

describe('svg charts', () => {
  for (const [kind, render] of [
    ['line', lineChart],
    ['scatter', scatterChart],
  ] as const) {
    it(`${kind}: well-formed, titled, with axis titles and a legend entry per series`, () => {
      const svg = render(spec);
      expect(wellFormedErrors(svg)).toEqual([]);
      expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 760 460"')).toBe(true);
      expect(svg).toContain('<title>Admitted &lt;per&gt; window &amp; &quot;more&quot;</title>');
      expect(svg).toContain('>flood rate (× L per window) — log scale</text>');
      expect(svg).toContain('>admitted per window (× L) — log scale</text>');
      expect(svg).toContain('>central-log</text>');
      expect(svg).toContain('>shared-counter</text>');
      expect(svg).toContain('>a &lt;b&gt; &amp; c</text>');
      expect(svg).toContain('>the limit L</text>');
      expect(svg).not.toMatch(/\bid=/);
      expect(render(spec)).toBe(svg);
    });
  }

  it('draws lines only for the line chart', () => {
    expect(lineChart(spec)).toMatch(/<path d="M[\d.]+ [\d.]+ L/);
    expect(scatterChart(spec)).not.toContain('stroke-width="2" stroke-dasharray');
  });

  it("follows a series' own mark: a fitted line among dots, dots without a line", () => {
    const pts = [1, 10, 100].map((x) => ({ x, y: 1 + x / 50 }));
    const mixed = scatterChart({
      ...spec,
      series: [
        { name: 'simulated', points: pts },
        { name: 'fitted', points: pts, mark: 'line' },
      ],
    });
    expect(mixed.match(/<path d="M[\d.]+ [\d.]+ L/g)).toHaveLength(1);
    expect(mixed.match(/<circle /g)).toHaveLength(pts.length + 1); // the dots, and one in the legend
    const dotsOnly = lineChart({ ...spec, series: [{ name: 'dots', points: pts, mark: 'dot' }] });
    expect(dotsOnly).not.toMatch(/<path d="M[\d.]+ [\d.]+ L/);
  });

  it('drops zeros on a log axis, says how many, and leaves no NaN or Infinity', () => {
    const svg = lineChart({
      ...spec,
      series: [
        {
          name: 'rejected',
          points: [
            { x: 2, y: 0 },
            { x: 4, y: 0.5 },
            { x: 8, y: 0 },
            { x: 16, y: 3 },
            { x: 32, y: Number.NaN },
          ],
        },
      ],
    });
    expect(wellFormedErrors(svg)).toEqual([]);
    expect(svg).toContain('2 points at zero not shown: a log scale cannot place them.');
    expect(svg).toContain('1 point without a finite value not shown.');
    expect(svg).not.toMatch(/NaN|Infinity/);
    for (const v of attributeNumbers(svg)) expect(v).not.toMatch(/NaN|Infinity/);
    // 4 and 16 are separated by a dropped zero: two single points, so no line between them.
    expect(svg).not.toMatch(/<path d="M[\d.]+ [\d.]+ L/);
  });

  it('renders a chart whose every value is zero on log axes without failing', () => {
    const svg = scatterChart({
      ...spec,
      referenceLines: [],
      series: [{ name: 'z', points: [{ x: 0, y: 0 }] }],
    });
    expect(wellFormedErrors(svg)).toEqual([]);
    expect(svg).toContain('no data to plot');
    expect(svg).not.toMatch(/NaN|Infinity/);
  });

  it('renders an empty linear chart', () => {
    const svg = lineChart({ title: 't', x: { title: 'x (s)' }, y: { title: 'y (%)' }, series: [] });
    expect(wellFormedErrors(svg)).toEqual([]);
    expect(svg).not.toMatch(/NaN|Infinity/);
  });

  it('gives each of the first seven series its own colour, marker and dash, for greyscale print', () => {
    const styles = [0, 1, 2, 3, 4, 5, 6].map(seriesStyle);
    for (const key of ['colour', 'shape', 'dash'] as const)
      expect(new Set(styles.map((s) => s[key])).size).toBe(7);
  });

  it('gives every design its own colour and dash (central-log and adaptive-early shared one, issue 36)', () => {
    const styles = DESIGN_IDS.map((d) => seriesStyle(designStyle(d)));
    for (const key of ['colour', 'dash'] as const)
      expect(new Set(styles.map((s) => s[key])).size).toBe(DESIGN_IDS.length);
  });
});

describe('scales', () => {
  it('log axes tick at decades across a wide range', () => {
    expect(makeScale('log', [0.002, 0.5, 170]).ticks).toEqual([0.001, 0.01, 0.1, 1, 10, 100, 1000]);
  });

  it('log axes tick at 1-2-5 across a narrow range, ending on ticks', () => {
    expect(makeScale('log', [2, 32]).ticks).toEqual([2, 5, 10, 20, 50]);
    expect(makeScale('log', [0.3, 1.1]).ticks).toEqual([0.2, 0.5, 1, 2]);
  });

  it('log axes inside one 1-2-5 step tick at round linear steps', () => {
    expect(makeScale('log', [0.62, 0.76]).ticks).toEqual([0.5, 0.6, 0.7, 0.8, 0.9, 1]);
  });

  it('log axes ignore zero and negative values', () => {
    const s = makeScale('log', [0, -1, 1, 10]);
    expect(s.ticks).toEqual([1, 2, 5, 10]);
    expect(Number.isFinite(s.unit(1))).toBe(true);
  });

  it('linear axes tick at round steps and cover the data', () => {
    const s = makeScale('linear', [0.3, 9.2]);
    expect(s.ticks).toEqual([0, 2, 4, 6, 8, 10]);
    expect(makeScale('linear', [0.1, 0.7]).ticks).toEqual([0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7]);
    expect(makeScale('linear', [5, 5]).ticks.length).toBeGreaterThan(1);
  });
});
