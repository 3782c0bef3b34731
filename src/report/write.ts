import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { StudyResults } from '../sim/types.js';

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
  const keys = Object.keys(results.rows[0] ?? {});
  const csv = [
    keys.join(','),
    ...results.rows.map((r) => keys.map((k) => String((r as never)[k])).join(',')),
  ];
  writeFileSync(join(dir, 'results.csv'), `${csv.join('\n')}\n`);
  const md = [
    `# fleetlimit study (${results.grid})`,
    '',
    ...results.checks.map((c) => `- ${c.passed ? 'PASS' : 'FAIL'} ${c.name}: ${c.detail}`),
  ];
  writeFileSync(join(dir, 'report.md'), `${md.join('\n')}\n`);
  const html = `<!doctype html><meta charset="utf-8"><pre>${md.join('\n')}</pre>`;
  const path = resolve(join(dir, 'report.html'));
  writeFileSync(path, html);
  return path;
}
