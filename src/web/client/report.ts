/// <reference lib="dom" />
/**
 * The script inlined into the study's report.html: draws each chart placeholder ([data-chart]) with the
 * explorer's chart code, from the chart data the page carries in #report-charts, and redraws when the
 * page's width changes. When done, <html data-charts-drawn="N"> says how many it drew.
 */
import type { ReportChart } from '../../chart/spec.js';
import { reportChart } from './charts.js';

const data = document.getElementById('report-charts')?.textContent ?? '[]';
const charts = new Map((JSON.parse(data) as ReportChart[]).map((c) => [c.name, c]));
const drawnAt = new Map<Element, number>();

function draw(): void {
  let drawn = 0;
  for (const box of document.querySelectorAll<HTMLElement>('[data-chart]')) {
    const width = Math.max(280, Math.floor(box.clientWidth));
    if (drawnAt.get(box) === width) {
      drawn++;
      continue;
    }
    const chart = charts.get(box.dataset.chart ?? '');
    try {
      if (chart === undefined) throw new Error(`no data for chart "${box.dataset.chart}"`);
      box.replaceChildren(reportChart(chart, { width }));
      drawnAt.set(box, width);
      drawn++;
    } catch (err) {
      // a chart that cannot be drawn says so in its place and on the console; the others still draw
      const p = document.createElement('p');
      p.className = 'plot-error';
      p.textContent = `This chart could not be drawn: ${err instanceof Error ? err.message : String(err)}`;
      box.replaceChildren(p);
      console.error(err);
    }
  }
  document.documentElement.dataset.chartsDrawn = String(drawn);
}

let queued = false;
window.addEventListener('resize', () => {
  if (queued) return;
  queued = true;
  requestAnimationFrame(() => {
    queued = false;
    draw();
  });
});
draw();
