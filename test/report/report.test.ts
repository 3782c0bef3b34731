import { describe, expect, it } from 'vitest';
import type { ReportChart } from '../../src/chart/spec.js';
import { type Block, type Section, scriptJson, toHtml } from '../../src/report/document.js';
import { renderReport, reportDocument } from '../../src/report/report.js';
import type { RunRow, StudyResults } from '../../src/sim/types.js';
import { formatMeanSe, formatNumber, formatPercent } from '../../src/util/format.js';
import { reportChartScript } from '../../src/web/bundle.js';
import { SMALL_EXTENDED_GRID, SMALL_GRID, syntheticResults } from './synthetic.js';
import { HTML_OPTIONS, wellFormedErrors } from './xml-check.js';

const SECTION_IDS = [
  'verdict',
  'how-to-read',
  'flood-k8',
  'flood-worst',
  'flood-all',
  'shared-counter-variants',
  'honest-by-k',
  'honest-by-delta',
  'honest-pageloads',
  'leases',
  'busy-key',
  'over-admission-formulas',
  'checks',
];

// the explorer's chart code bundled for the report, from the sources
const SCRIPT = reportChartScript();
const results = syntheticResults();
const rendered = renderReport(results, SCRIPT);
const doc = reportDocument(results);

function section(id: string, d = doc): Section {
  const s = d.sections.find((x) => x.id === id);
  if (!s) throw new Error(`no section ${id}`);
  return s;
}

function tables(s: Section) {
  return s.blocks.flatMap((b) => (b.kind === 'table' ? [b.table] : []));
}

function cell(s: Section, rowLabel: string, colTitle: string, tableIndex = 0): string {
  const t = tables(s)[tableIndex]!;
  const col = t.columns.findIndex((c) => c.title === colTitle);
  const row = t.rows.find((r) => r[0] === rowLabel);
  if (col < 0 || !row) throw new Error(`no cell ${rowLabel} / ${colTitle}`);
  return row[col]!;
}

/** The chart data report.html embeds for its Plot charts. */
function htmlChartData(html: string): ReportChart[] {
  const m = html.match(/<script type="application\/json" id="report-charts">([^<]*)<\/script>/);
  if (!m) throw new Error('no chart data in the HTML');
  return JSON.parse(m[1]!) as ReportChart[];
}

/** The seeds' mean and standard error computed independently of the report's own statistics. */
function seedsOf(match: (r: RunRow) => boolean, metric: keyof RunRow): number[] {
  const values = results.rows.filter(match).map((r) => r[metric] as number);
  expect(values).toHaveLength(SMALL_GRID.seeds.length);
  return values;
}
function meanOf(values: number[]): number {
  return values.reduce((a, b) => a + b, 0) / values.length;
}

describe('renderReport', () => {
  it('has every section, in Markdown and in HTML', () => {
    expect(doc.sections.map((s) => s.id)).toEqual(SECTION_IDS);
    for (const s of doc.sections) {
      expect(rendered.markdown).toContain(`<a id="${s.id}"></a>`);
      expect(rendered.html).toContain(`<section id="${s.id}">`);
      // Each section explains itself before it shows anything.
      expect(s.blocks[0]!.kind).toBe('text');
      expect(s.blocks.some((b) => b.kind === 'missing')).toBe(false);
    }
  });

  it('flood table cells are the mean of the seeds ± their standard error', () => {
    const at = (r: RunRow) =>
      r.group === 'flood' &&
      r.design === 'shared-counter' &&
      r.gateways === 8 &&
      r.syncS === 1 &&
      r.load === 10 &&
      r.windowKind === 'sliding' &&
      !r.alignedSyncs;
    const [a, b] = seedsOf(at, 'admittedPerWindow') as [number, number];
    // With two seeds the standard error is half their distance.
    const expected = formatMeanSe((a + b) / 2, Math.abs(a - b) / 2, 2);
    expect(expected).toContain('±');
    expect(cell(section('flood-k8'), 'shared-counter', '10× L')).toBe(expected);
    expect(rendered.markdown).toContain(`| ${expected.replace(/\|/g, '\\|')} |`);
  });

  it('honest cells show the mean rejected percent with the mean worst window in brackets', () => {
    const at = (k: number, d: number) => (r: RunRow) =>
      r.group === 'honest' &&
      r.design === 'split' &&
      r.traffic === 'steady' &&
      r.load === 0.8 &&
      r.routing === 'uneven' &&
      r.gateways === k &&
      r.syncS === d;
    const text = (k: number, d: number) =>
      `${formatPercent(meanOf(seedsOf(at(k, d), 'rejectedPct')))} [${formatNumber(meanOf(seedsOf(at(k, d), 'worstWindow')))}]`;
    expect(cell(section('honest-by-k'), 'split', 'K = 2')).toBe(text(2, 1));
    expect(cell(section('honest-by-delta'), 'split', 'Δ = 10 s')).toBe(text(8, 10));
    expect(text(2, 1)).toMatch(/^\d[\d.]* % \[\d[\d.]*\]$/);
    expect(rendered.markdown).toContain(text(2, 1).replace('[', '\\[').replace(']', '\\]'));
    expect(rendered.html).toContain(text(2, 1));
  });

  it('lease cells and busy-key rows are means of the seeds', () => {
    const honest = (r: RunRow) =>
      r.group === 'honest' &&
      r.design === 'leases-ask' &&
      r.traffic === 'steady' &&
      r.load === 0.8 &&
      r.routing === 'uneven' &&
      r.gateways === 8 &&
      r.syncS === 10;
    const expected = `${formatPercent(meanOf(seedsOf(honest, 'strandedPct')))} · ${formatNumber(meanOf(seedsOf(honest, 'roundTripsPerRequest')))}`;
    expect(cell(section('leases'), 'leases-ask, K = 8', 'Δ = 10 s', 0)).toBe(expected);

    const busy = (r: RunRow) =>
      r.group === 'busy' &&
      r.design === 'split' &&
      r.gateways === 32 &&
      r.syncS === 10 &&
      r.load === 1 &&
      r.routing === 'uneven';
    const t = tables(section('busy-key'))[0]!;
    const row = t.rows.find((r) => r.slice(0, 5).join('/') === 'split/32/10 s/100 %/uneven');
    expect(row).toBeDefined();
    const [a, b] = seedsOf(busy, 'admittedPerWindow') as [number, number];
    expect(row![5]).toBe(formatMeanSe((a + b) / 2, Math.abs(a - b) / 2, 2));
    expect(row![6]).toBe(formatNumber(meanOf(seedsOf(busy, 'worstWindow'))));
    expect(row![8]).toBe(formatNumber(meanOf(seedsOf(busy, 'roundTripsPerRequest'))));
  });

  it('lists every check with PASS or FAIL and its detail, escaped', () => {
    const t = tables(section('checks'))[0]!;
    expect(t.rows.map((r) => r[1])).toEqual(results.checks.map((c) => (c.passed ? 'PASS' : 'FAIL')));
    expect(t.rows.map((r) => r[2])).toEqual(results.checks.map((c) => c.detail));
    expect(rendered.html).toContain('<td class="fail">FAIL</td>');
    expect(rendered.html).toContain('&lt;check the phase&gt;');
    expect(rendered.html).not.toContain('<check the phase>');
    expect(rendered.markdown).toContain('&lt;check the phase&gt;');
  });

  it('writes a header with version, grid, run count and wall time', () => {
    for (const text of ['0.1.0-test', 'synthetic', formatNumber(results.rows.length), '52.4 s']) {
      expect(rendered.markdown).toContain(text);
      expect(rendered.html).toContain(text);
    }
  });

  it('links each chart from the Markdown and gives each a placeholder and its data in the HTML', () => {
    const names = rendered.charts.map((c) => c.name);
    expect(names.filter((n) => !n.startsWith('formula-'))).toEqual([
      'flood-k8',
      'flood-worst',
      'flood-worst-mean',
      'flood-all',
      'shared-counter-variants',
      'honest-by-k',
      'honest-by-delta',
    ]);
    // the fitted over-admission next to the points, one chart per synced design
    expect(names).toContain('formula-shared-counter');
    for (const c of rendered.charts) {
      expect(rendered.markdown).toMatch(new RegExp(`!\\[[^\\]]+\\]\\(charts/${c.name}\\.svg\\)`));
      expect(rendered.html).toContain(`<div class="plot" data-chart="${c.name}">`);
      // without scripts, the placeholder shows the static SVG report.md links
      expect(rendered.html).toContain(`<noscript><img src="charts/${c.name}.svg"`);
    }
    expect(rendered.html.match(/data-chart="/g)).toHaveLength(names.length);
    expect(htmlChartData(rendered.html).map((c) => c.name)).toEqual(names);
    // the Plot charts are drawn in the browser: no SVG is inlined
    expect(rendered.html).not.toContain('<svg');
  });

  it("puts the results' numbers in the HTML's chart data", () => {
    const data = new Map(htmlChartData(rendered.html).map((c) => [c.name, c]));
    const point = (name: string, series: string, x: number) => {
      const s = data.get(name)!.spec.series.find((x) => x.name === series)!;
      return s.points.find((p) => p.x === x)?.y;
    };
    const floodAt = (r: RunRow) =>
      r.group === 'flood' &&
      r.design === 'shared-counter' &&
      r.gateways === 8 &&
      r.syncS === 1 &&
      r.load === 10 &&
      r.windowKind === 'sliding' &&
      !r.alignedSyncs;
    expect(point('flood-k8', 'shared-counter', 10)).toBeCloseTo(
      meanOf(seedsOf(floodAt, 'admittedPerWindow')),
      12,
    );
    const honestAt = (k: number, d: number) => (r: RunRow) =>
      r.group === 'honest' &&
      r.design === 'split' &&
      r.traffic === 'steady' &&
      r.load === 0.8 &&
      r.routing === 'uneven' &&
      r.gateways === k &&
      r.syncS === d;
    expect(point('honest-by-k', 'split', 2)).toBeCloseTo(meanOf(seedsOf(honestAt(2, 1), 'rejectedPct')), 12);
    expect(point('honest-by-delta', 'split', 10)).toBeCloseTo(
      meanOf(seedsOf(honestAt(8, 10), 'rejectedPct')),
      12,
    );
    // every K and Δ against the flood's arrivals per Δ, load × Δ / W
    const all = (r: RunRow) =>
      r.group === 'flood' &&
      r.design === 'shared-counter' &&
      r.gateways === 2 &&
      r.syncS === 10 &&
      r.load === 100 &&
      r.windowKind === 'sliding' &&
      !r.alignedSyncs;
    expect(point('flood-all', 'shared-counter', (100 * 10) / 60)).toBeCloseTo(
      meanOf(seedsOf(all, 'admittedPerWindow')),
      12,
    );
    const flood = data.get('flood-k8')!;
    expect(flood.kind).toBe('line');
    expect(flood.spec.x).toEqual({ title: 'flood rate (× L per window)', scale: 'log' });
    expect(flood.spec.y).toEqual({ title: 'admitted per window (× L)', scale: 'log' });
    expect(flood.spec.referenceLines).toEqual([{ y: 1, label: 'the limit L' }]);
    expect(flood.spec.series.map((s) => s.name)).toEqual(SMALL_GRID.designs);
  });

  it('inlines the chart script and escapes the data it reads', () => {
    expect(rendered.html).toContain(`<script>${SCRIPT}</script>`);
    expect(SCRIPT.length).toBeGreaterThan(1000);
    const tricky = '</script><!-- & "x"';
    const json = scriptJson({ title: tricky });
    expect(json).not.toContain('<');
    expect(JSON.parse(json)).toEqual({ title: tricky });
    expect(() => toHtml(doc, 'alert("</script>")')).toThrow(/cannot be inlined/);
  });

  it('draws charts with axis titles, a legend entry per design and finite coordinates', () => {
    for (const c of rendered.charts) {
      expect(wellFormedErrors(c.svg)).toEqual([]);
      expect(c.svg).not.toMatch(/NaN|Infinity/);
      expect(c.svg).toContain('log scale');
    }
    const flood = rendered.charts.find((c) => c.name === 'flood-all')!.svg;
    expect(flood).toContain('flood arrivals in one Δ (× L)');
    expect(flood).toContain('admitted per window (× L)');
    for (const d of SMALL_GRID.designs) expect(flood).toContain(`>${d}</text>`);
    // Honest traffic at 50 % has zero rejections somewhere; the by-K chart plots 80 %, which has none at zero.
    const variants = rendered.charts.find((c) => c.name === 'shared-counter-variants')!.svg;
    expect(variants).toContain('K × L');
  });

  it('writes one well-formed, self-contained, responsive HTML page', () => {
    expect(wellFormedErrors(rendered.html, HTML_OPTIONS)).toEqual([]);
    expect(rendered.html).toContain('<meta name="viewport"');
    expect(rendered.html).toMatch(/main\{max-width:/);
    expect(rendered.html).toMatch(/\.table-wrap\{overflow-x:auto/);
    // two scripts, both inline: the chart data and the code that draws it; nothing is fetched
    expect(rendered.html.match(/<script/g)).toHaveLength(2);
    expect(rendered.html).toContain('<script type="application/json" id="report-charts">');
    const markup = rendered.html.replace(/(<script[^>]*>)[\s\S]*?<\/script>/g, '$1</script>');
    expect(markup).not.toMatch(/<link |<script [^>]*src=|https?:\/\//);
    // the only links: anchors in the page, and the static charts beside it for readers without scripts
    for (const m of markup.matchAll(/(?:src|href)="([^"]*)"/g)) expect(m[1]).toMatch(/^#|^charts\//);
  });

  it('is deterministic', () => {
    expect(renderReport(results, SCRIPT)).toEqual(rendered);
  });
});

describe('renderReport with rows missing', () => {
  const onlyFlood: StudyResults = {
    ...results,
    grid: 'quick --only designs=central-log,gateways=2',
    rows: results.rows.filter((r) => r.group === 'flood' && r.design === 'central-log' && r.gateways === 2),
    checks: [],
  };

  it('says in one line which sections it cannot fill, and fills the rest', () => {
    const d = reportDocument(onlyFlood);
    const missingIn = (id: string) => section(id, d).blocks.filter((b: Block) => b.kind === 'missing');
    for (const id of [
      'flood-k8',
      'shared-counter-variants',
      'honest-by-k',
      'honest-by-delta',
      'honest-pageloads',
      'busy-key',
      'checks',
    ])
      expect(missingIn(id)).toHaveLength(1);
    expect(missingIn('flood-all')).toHaveLength(0);
    expect(missingIn('flood-worst')).toHaveLength(0);
    expect(missingIn('leases')).toHaveLength(2);
    const r = renderReport(onlyFlood, SCRIPT);
    expect(r.charts.map((c) => c.name)).toEqual(['flood-worst', 'flood-worst-mean', 'flood-all']);
    expect(r.markdown).toContain("*Not in this study's results: flood runs with K = 8 and Δ = 1 s.*");
    expect(wellFormedErrors(r.html, HTML_OPTIONS)).toEqual([]);
  });

  it('renders an empty study without failing', () => {
    const r = renderReport({ ...results, rows: [], checks: [] }, SCRIPT);
    expect(r.charts).toEqual([]);
    expect(r.markdown).toContain('runs:** 0');
    expect(wellFormedErrors(r.html, HTML_OPTIONS)).toEqual([]);
    expect(r.html).not.toMatch(/NaN|Infinity/);
  });
});

describe('renderReport with the extended groups', () => {
  const extended = syntheticResults(SMALL_EXTENDED_GRID);
  const r = renderReport(extended, SCRIPT);

  it('charts the store delay, sync loss and picked-gateway sections, in Markdown and HTML alike', () => {
    const names = r.charts.map((c) => c.name);
    for (const n of [
      'store-delay-flood',
      'store-delay-honest',
      'store-delay-latency',
      'sync-loss-flood',
      'sync-loss-honest',
      'attack-pick',
      'formula-adaptive',
    ])
      expect(names).toContain(n);
    expect(htmlChartData(r.html).map((c) => c.name)).toEqual(names);
    expect(wellFormedErrors(r.html, HTML_OPTIONS)).toEqual([]);
  });

  it("puts the picked-gateway and store-delay means in the HTML's chart data", () => {
    const data = new Map(htmlChartData(r.html).map((c) => [c.name, c]));
    const y = (name: string, series: string, x: number) =>
      data
        .get(name)!
        .spec.series.find((s) => s.name === series)!
        .points.find((p) => p.x === x)?.y;
    const mean = (match: (row: RunRow) => boolean, metric: keyof RunRow) => {
      const v = extended.rows.filter(match).map((row) => row[metric] as number);
      expect(v).toHaveLength(SMALL_EXTENDED_GRID.seeds.length);
      return meanOf(v);
    };
    const picked = (row: RunRow) =>
      row.group === 'scorecard' &&
      row.design === 'split' &&
      row.gateways === 32 &&
      row.traffic === 'flood' &&
      row.load === 100 &&
      row.attack === 'pick';
    expect(y('attack-pick', 'split', 100)).toBeCloseTo(mean(picked, 'admittedPerWindow'), 12);
    const waited = (row: RunRow) =>
      row.group === 'delay' &&
      row.design === 'central-log' &&
      row.traffic === 'steady' &&
      row.storeDelayMs === 10;
    expect(y('store-delay-latency', 'central-log', 10)).toBeCloseTo(mean(waited, 'latencyMs'), 12);
    // the fitted curve is drawn as a line, in its K's colour and legend entry, next to the simulated points
    const fit = data.get('formula-shared-counter')!.spec.series;
    expect(fit.find((s) => s.name === 'K = 8 fitted')).toMatchObject({ mark: 'line', group: 'K = 8' });
    expect(fit.find((s) => s.name === 'K = 8 simulated')).toMatchObject({ group: 'K = 8' });
  });
});
