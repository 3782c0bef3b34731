/**
 * The report as data: sections of paragraphs, tables and charts. Built once, rendered twice (Markdown and HTML),
 * so both outputs always say the same thing.
 */
import type { ReportChart } from '../chart/spec.js';
import { escapeMarkdown, escapeXml } from './escape.js';
import { htmlTable, markdownTable, type Table } from './tables.js';

export type Block =
  | { kind: 'text'; text: string }
  | { kind: 'heading'; text: string }
  | { kind: 'table'; table: Table }
  /** drawn as charts/<name>.svg for report.md, and by the explorer's Plot code inside report.html */
  | { kind: 'chart'; title: string; chart: ReportChart }
  /** shell commands to copy, one a line; shown verbatim */
  | { kind: 'code'; lines: readonly string[] }
  /** a part of the report the study's rows cannot fill, e.g. under a narrowed --only grid */
  | { kind: 'missing'; text: string };

export interface Section {
  /** stable anchor, also used to find a section in tests */
  id: string;
  title: string;
  blocks: Block[];
}

export interface ReportDocument {
  title: string;
  /** label → value lines shown under the title */
  facts: readonly [string, string][];
  sections: readonly Section[];
}

export function toMarkdown(doc: ReportDocument): string {
  const out: string[] = [`# ${escapeMarkdown(doc.title)}`, ''];
  for (const [label, value] of doc.facts)
    out.push(`- **${escapeMarkdown(label)}:** ${escapeMarkdown(value)}`);
  out.push('');
  for (const s of doc.sections) {
    out.push(`<a id="${s.id}"></a>`, '', `## ${escapeMarkdown(s.title)}`, '');
    for (const b of s.blocks) {
      switch (b.kind) {
        case 'text':
          out.push(escapeMarkdown(b.text), '');
          break;
        case 'heading':
          out.push(`### ${escapeMarkdown(b.text)}`, '');
          break;
        case 'table':
          out.push(markdownTable(b.table), '');
          break;
        case 'chart':
          out.push(`![${escapeMarkdown(b.title)}](charts/${b.chart.name}.svg)`, '');
          break;
        case 'missing':
          out.push(`*${escapeMarkdown(b.text)}*`, '');
          break;
        case 'code':
          // a fence longer than any run of backticks in the lines, so no line can close it
          out.push(...fenced(b.lines), '');
          break;
      }
    }
  }
  return `${out.join('\n').trimEnd()}\n`;
}

function fenced(lines: readonly string[]): string[] {
  const longest = Math.max(
    2,
    ...lines.map((l) => Math.max(0, ...(l.match(/`+/g) ?? []).map((m) => m.length))),
  );
  const fence = '`'.repeat(longest + 1);
  return [`${fence}sh`, ...lines, fence];
}

const CSS = `
*{box-sizing:border-box}
body{margin:0;background:#f6f6f4;color:#1a1a1a;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif}
main{max-width:1240px;margin:0 auto;padding:16px 20px 48px;background:#fff}
h1{font-size:1.7em;margin:.6em 0 .3em}
h2{font-size:1.3em;margin:2em 0 .4em;padding-top:.6em;border-top:1px solid #ddd}
h3{font-size:1.05em;margin:1.4em 0 .3em}
p{margin:.5em 0 1em;max-width:48em}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:2px 14px;margin:0 0 1em}
dl.facts dt{font-weight:600}
dl.facts dd{margin:0}
nav ol{padding-left:1.4em;margin:.3em 0}
.table-wrap{overflow-x:auto;-webkit-overflow-scrolling:touch;margin:0 0 1.2em;border:1px solid #e2e2e2}
table{border-collapse:collapse;font-size:.88em;font-variant-numeric:tabular-nums;white-space:nowrap}
th,td{padding:4px 8px;border-bottom:1px solid #eee;text-align:left}
table.wrap td{white-space:normal;min-width:10em;vertical-align:top}
thead th{background:#f0f0ee;border-bottom:2px solid #ccc;white-space:normal;vertical-align:bottom;min-width:4em}
tbody th{font-weight:600;background:#fafaf8}
tbody tr:hover td{background:#f5f9ff}
figure.chart{margin:0 0 1.5em;border:1px solid #e2e2e2;padding:8px 10px 6px}
figure.chart>figcaption{font-weight:600;font-size:.95em;margin:0 0 6px}
.plot{min-height:120px}
.plot figure{margin:0}
.plot figcaption{font-size:.85em;color:#555;font-style:italic}
.plot svg{overflow:visible}
.plot-error{color:#b00020}
pre{background:#f4f4f2;border:1px solid #e2e2e2;padding:8px 10px;overflow-x:auto;font-size:.88em}
.missing{color:#7a5a00;background:#fff8e1;border-left:4px solid #e0b000;padding:6px 10px}
.pass{color:#0a6b2c;font-weight:700}
.fail{color:#b00020;font-weight:700}
@media (max-width:600px){main{padding:10px 10px 32px}body{font-size:15px}}
`;

/** The data the charts of report.html are drawn from, in page order. */
export function htmlCharts(doc: ReportDocument): ReportChart[] {
  return doc.sections.flatMap((s) => s.blocks.flatMap((b) => (b.kind === 'chart' ? [b.chart] : [])));
}

/**
 * JSON inside a <script> element: '<' is escaped so no string in it can close the element or open a comment.
 * JSON.parse reads \u003c back as '<'.
 */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c');
}

/**
 * The page. Each chart is a placeholder that `chartScript` (the explorer's chart code, bundled for the report:
 * src/web/client/report.ts) fills with an Observable Plot figure drawn from the JSON in #report-charts; both
 * are inline, so the file works opened from disk, offline. Without scripts, each placeholder shows the
 * chart's static SVG from charts/.
 */
export function toHtml(doc: ReportDocument, chartScript: string): string {
  if (/<\/script|<!--/i.test(chartScript))
    throw new Error('the report chart script contains "</script" or "<!--" and cannot be inlined');
  const out: string[] = [
    '<!DOCTYPE html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeXml(doc.title)}</title>`,
    `<style>${CSS}</style>`,
    '</head>',
    '<body>',
    '<main>',
    `<h1>${escapeXml(doc.title)}</h1>`,
    '<dl class="facts">',
  ];
  for (const [label, value] of doc.facts)
    out.push(`<dt>${escapeXml(label)}</dt><dd>${escapeXml(value)}</dd>`);
  out.push('</dl>');
  out.push('<nav><strong>Contents</strong><ol>');
  for (const s of doc.sections) out.push(`<li><a href="#${s.id}">${escapeXml(s.title)}</a></li>`);
  out.push('</ol></nav>');
  for (const s of doc.sections) {
    out.push(`<section id="${s.id}">`, `<h2>${escapeXml(s.title)}</h2>`);
    for (const b of s.blocks) {
      switch (b.kind) {
        case 'text':
          out.push(`<p>${escapeXml(b.text)}</p>`);
          break;
        case 'heading':
          out.push(`<h3>${escapeXml(b.text)}</h3>`);
          break;
        case 'table':
          out.push(markResults(htmlTable(b.table)));
          break;
        case 'chart': {
          const { name, spec } = b.chart;
          out.push(
            `<figure class="chart"><figcaption>${escapeXml(spec.title)}</figcaption>` +
              `<div class="plot" data-chart="${escapeXml(name)}">` +
              `<noscript><img src="charts/${escapeXml(name)}.svg" alt="${escapeXml(b.title)}" width="760" height="460" style="max-width:100%;height:auto"></noscript>` +
              '</div></figure>',
          );
          break;
        }
        case 'missing':
          out.push(`<p class="missing">${escapeXml(b.text)}</p>`);
          break;
        case 'code':
          out.push(`<pre><code>${b.lines.map(escapeXml).join('\n')}</code></pre>`);
          break;
      }
    }
    out.push('</section>');
  }
  out.push('</main>');
  const charts = htmlCharts(doc);
  if (charts.length > 0)
    out.push(
      `<script type="application/json" id="report-charts">${scriptJson(charts)}</script>`,
      `<script>${chartScript}</script>`,
    );
  out.push('</body>', '</html>');
  return `${out.join('\n')}\n`;
}

/** Colours the checks' PASS/FAIL cells; the words stay, so the result reads the same without colour. */
function markResults(html: string): string {
  return html.replace(/<td>(PASS|FAIL)<\/td>/g, (_, r: string) => `<td class="${r.toLowerCase()}">${r}</td>`);
}
