/** renderReport: the study's results in, report.md, report.html and the charts out. No I/O. */
import { DESIGN_IDS } from '../config.js';
import type { RunRow, StudyResults } from '../sim/types.js';
import { formatDuration, formatNumber } from '../util/format.js';
import { aggregateRuns, distinct } from './aggregate.js';
import { htmlCharts, type ReportDocument, toHtml, toMarkdown } from './document.js';
import { reportSections } from './sections/index.js';
import { renderChart } from './svg-chart.js';

export interface RenderedReport {
  markdown: string;
  html: string;
  /** one static SVG per chart, which the Markdown links as charts/<name>.svg; the HTML draws the same data with Plot */
  charts: { name: string; svg: string }[];
}

/**
 * `chartScript` is the explorer's chart code bundled for the report (reportChartScript() in src/web/bundle.ts);
 * it is passed in so rendering stays free of I/O.
 */
export function renderReport(results: StudyResults, chartScript: string): RenderedReport {
  const doc = reportDocument(results);
  const drawn = htmlCharts(doc);
  const names = new Set(drawn.map((c) => c.name));
  if (names.size !== drawn.length) throw new Error('two report charts share a name');
  const charts = drawn.map((c) => ({ name: c.name, svg: `${renderChart(c.kind, c.spec)}\n` }));
  return { markdown: toMarkdown(doc), html: toHtml(doc, chartScript), charts };
}

export function reportDocument(results: StudyResults): ReportDocument {
  return { title: 'fleetlimit study report', facts: facts(results), sections: reportSections(results) };
}

function list(values: readonly (string | number)[]): string {
  return values.length === 0
    ? 'none'
    : values.map((v) => (typeof v === 'number' ? formatNumber(v) : v)).join(', ');
}

function facts(results: StudyResults): [string, string][] {
  const rows: readonly RunRow[] = results.rows;
  const configs = aggregateRuns(rows);
  const seeds = configs.map((a) => a.seeds.length);
  const seedRange =
    seeds.length === 0
      ? 'none'
      : Math.min(...seeds) === Math.max(...seeds)
        ? `${seeds[0]}`
        : `${Math.min(...seeds)}–${Math.max(...seeds)}`;
  const present = new Set(rows.map((r) => r.design));
  const passed = results.checks.filter((c) => c.passed).length;
  return [
    ['version', results.version],
    ['grid', results.grid],
    ['started', results.startedAt],
    [
      'runs',
      `${formatNumber(rows.length)} (${formatNumber(configs.length)} configurations × ${seedRange} seeds)`,
    ],
    ['wall time', formatDuration(results.wallSeconds)],
    ['designs', list(DESIGN_IDS.filter((d) => present.has(d)))],
    ['gateways K', list(distinct(rows, 'gateways'))],
    ['sync interval Δ (s)', list(distinct(rows, 'syncS'))],
    ['limits L', list(distinct(rows, 'limit'))],
    ['windows W (s)', list(distinct(rows, 'windowS'))],
    ['checks', `${passed} of ${results.checks.length} passed`],
  ];
}
