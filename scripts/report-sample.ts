/**
 * Renders a sample report from a synthetic full grid, for looking at by eye:
 *   npx tsx scripts/report-sample.ts /tmp/report-sample
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { rowsToCsv } from '../src/report/csv.js';
import { renderReport } from '../src/report/report.js';
import { reportChartScript } from '../src/web/bundle.js';
import { FULL_GRID, syntheticResults } from '../test/report/synthetic.js';

const dir = process.argv[2] ?? '/tmp/report-sample';
const results = syntheticResults({ ...FULL_GRID, extended: true });
const r = renderReport(results, reportChartScript());
mkdirSync(join(dir, 'charts'), { recursive: true });
writeFileSync(join(dir, 'report.md'), r.markdown);
writeFileSync(join(dir, 'report.html'), r.html);
writeFileSync(join(dir, 'results.csv'), rowsToCsv(results.rows));
for (const c of r.charts) writeFileSync(join(dir, 'charts', `${c.name}.svg`), c.svg);
process.stdout.write(`sample report: ${join(dir, 'report.html')}\n`);
