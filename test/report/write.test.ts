import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { rerenderReport, writeStudyOutputs } from '../../src/report/write.js';
import { syntheticResults } from './synthetic.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('the study folder', () => {
  it('holds results, report.md with its charts, and report.html', () => {
    const dir = mkdtempSync(join(tmpdir(), 'fleetlimit-report-'));
    dirs.push(dir);
    const results = syntheticResults();
    const html = writeStudyOutputs(dir, results);
    expect(html).toBe(join(dir, 'report.html'));
    for (const f of ['results.json', 'results.csv', 'report.md', 'report.html'])
      expect(existsSync(join(dir, f))).toBe(true);
    const md = readFileSync(join(dir, 'report.md'), 'utf8');
    const linked = [...md.matchAll(/\]\(charts\/([\w-]+\.svg)\)/g)].map((m) => m[1]);
    expect(readdirSync(join(dir, 'charts')).sort()).toEqual([...linked].sort());
  });

  it('re-renders from results.json and drops charts the new report no longer draws', () => {
    const dir = mkdtempSync(join(tmpdir(), 'fleetlimit-report-'));
    dirs.push(dir);
    writeStudyOutputs(dir, syntheticResults());
    const narrowed = {
      ...syntheticResults(),
      rows: syntheticResults().rows.filter((r) => r.group === 'busy'),
    };
    writeFileSync(join(dir, 'results.json'), JSON.stringify(narrowed));
    rerenderReport(dir);
    expect(readdirSync(join(dir, 'charts'))).toEqual([]);
    expect(readFileSync(join(dir, 'report.md'), 'utf8')).toContain(
      "Not in this study's results: flood runs.",
    );
  });
});
