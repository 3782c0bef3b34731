/** The study folder on disk: the only part of src/report that does I/O; everything it writes comes from pure renderers. */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { StudyResults } from '../sim/types.js';
import { reportChartScript } from '../web/bundle.js';
import { rowsToCsv } from './csv.js';
import { renderReport } from './report.js';

/** Writes results.json, results.csv, report.md (+ charts/) and report.html into dir; returns report.html's path. */
export function writeStudyOutputs(dir: string, results: StudyResults): string {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'results.json'), `${JSON.stringify(results, null, 1)}\n`);
  return renderStudyReport(dir, results);
}

/** Re-renders the report from saved results (fleetlimit report DIR). */
export function rerenderReport(dir: string): string {
  const results = JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8')) as StudyResults;
  return renderStudyReport(dir, results);
}

function renderStudyReport(dir: string, results: StudyResults): string {
  writeFileSync(join(dir, 'results.csv'), rowsToCsv(results.rows));
  const report = renderReport(results, reportChartScript());
  const charts = join(dir, 'charts');
  // A re-render under a narrower grid draws fewer charts; stale ones from an earlier run must not linger.
  rmSync(charts, { recursive: true, force: true });
  mkdirSync(charts, { recursive: true });
  for (const c of report.charts) writeFileSync(join(charts, `${c.name}.svg`), c.svg);
  writeFileSync(join(dir, 'report.md'), report.markdown);
  const path = resolve(join(dir, 'report.html'));
  writeFileSync(path, report.html);
  return path;
}
