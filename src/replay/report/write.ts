/** --out DIR: the only part of the replay report that does I/O; everything it writes comes from the renderers. */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { htmlCharts, toHtml, toMarkdown } from '../../report/document.js';
import { renderChart } from '../../report/svg-chart.js';
import { reportChartScript } from '../../web/bundle.js';
import type { ReplayResult } from '../run/result.js';
import { designsCsv, keysCsv } from './csv.js';
import { replayDocument } from './page.js';

/** The JSON of --json and replay.json: NaN (no arrivals) as null. */
export function replayJson(r: ReplayResult): string {
  return `${JSON.stringify(r, (_k, v) => (typeof v === 'number' && !Number.isFinite(v) ? null : v), 1)}\n`;
}

/** Writes replay.json, designs.csv, keys.csv, report.md (+ charts/) and report.html; returns report.html's path. */
export function writeReplayOutputs(dir: string, r: ReplayResult, command: string): string {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'replay.json'), replayJson(r));
  writeFileSync(join(dir, 'designs.csv'), designsCsv(r));
  writeFileSync(join(dir, 'keys.csv'), keysCsv(r));
  const doc = replayDocument(r, command);
  const charts = join(dir, 'charts');
  rmSync(charts, { recursive: true, force: true });
  mkdirSync(charts, { recursive: true });
  for (const c of htmlCharts(doc)) writeFileSync(join(charts, `${c.name}.svg`), renderChart(c.kind, c.spec));
  writeFileSync(join(dir, 'report.md'), toMarkdown(doc));
  const path = resolve(join(dir, 'report.html'));
  writeFileSync(path, toHtml(doc, reportChartScript()));
  return path;
}
