/**
 * Renders a sample report from a synthetic full grid, for looking at by eye:
 *   REPORT_SAMPLE_DIR=/tmp/report-sample npx vitest run test/report/sample.test.ts
 * Skipped unless the variable is set, so the suite writes no files.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { rowsToCsv } from '../../src/report/csv.js';
import { renderReport } from '../../src/report/report.js';
import { FULL_GRID, syntheticResults } from './synthetic.js';

const dir = process.env.REPORT_SAMPLE_DIR;

describe.runIf(dir)('sample report', () => {
  it('writes report.md, report.html, charts and results.csv', () => {
    const results = syntheticResults(FULL_GRID);
    const r = renderReport(results);
    mkdirSync(join(dir!, 'charts'), { recursive: true });
    writeFileSync(join(dir!, 'report.md'), r.markdown);
    writeFileSync(join(dir!, 'report.html'), r.html);
    writeFileSync(join(dir!, 'results.csv'), rowsToCsv(results.rows));
    for (const c of r.charts) writeFileSync(join(dir!, 'charts', `${c.name}.svg`), c.svg);
    expect(r.charts.length).toBeGreaterThan(0);
  });
});
