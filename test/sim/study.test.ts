import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { rerenderReport, writeStudyOutputs } from '../../src/report/write.js';
import { runAcrossSyncIntervals, runSimulation } from '../../src/sim/engine.js';
import { buildGrid, filterGrid, parseOnly } from '../../src/sim/grid.js';
import { gridJobs, runGrid, runStudy, scheduleOrder } from '../../src/sim/study.js';

describe('the study grid', () => {
  it('holds the runs the issue lists', () => {
    const full = buildGrid('full');
    const flood = full.filter((r) => r.group === 'flood');
    const honest = full.filter((r) => r.group === 'honest');
    const busy = full.filter((r) => r.group === 'busy');
    // 9 designs × 5 K × 5 Δ × 7 floods × 3 seeds, shared-counter twice more (fixed window, aligned syncs)
    expect(flood).toHaveLength(9 * 5 * 5 * 7 * 3 + 2 * 5 * 5 * 7 * 3);
    // 9 designs × 5 K × 5 Δ × (3 steady + 2 page-load) × 2 routings × 5 seeds, 300 minutes each
    expect(honest).toHaveLength(9 * 5 * 5 * 5 * 2 * 5);
    expect(honest.every((r) => r.params.minutes === 300)).toBe(true);
    // 5 designs × 3 K × 2 Δ × 2 loads × 2 routings × 3 seeds, limit 10,000
    expect(busy).toHaveLength(5 * 3 * 2 * 2 * 2 * 3);
    expect(busy.every((r) => r.params.limit === 10_000)).toBe(true);
  });

  it('hands workers one design after another, longest runs first within a design', () => {
    const runs = buildGrid('quick');
    const order = scheduleOrder(runs);
    expect([...order].sort((a, b) => a - b)).toEqual(runs.map((_, i) => i));
    const designs = order.map((i) => runs[i].params.design);
    // each design's runs form one contiguous block
    const blocks = designs.filter((d, i) => i === 0 || d !== designs[i - 1]);
    expect(new Set(blocks).size).toBe(blocks.length);
    // within a block, a long honest run comes before a short flood run of the same design
    const first = order.findIndex((i) => runs[i].group === 'honest' && runs[i].params.design === 'leases');
    const last = order.findLastIndex((i) => runs[i].group === 'flood' && runs[i].params.design === 'leases');
    expect(first).toBeLessThan(last);
  });

  it('simulates central-log and split once for all Δ, with the results of one run per Δ', async () => {
    const deltas = [0.1, 0.3, 1, 3, 10];
    const base = { gateways: 8, limit: 100, windowS: 60, minutes: 30, seed: 7 } as const;
    for (const design of ['central-log', 'split'] as const) {
      for (const extra of [
        { traffic: 'steady', load: 0.8, routing: 'uneven', windowKind: 'sliding', alignedSyncs: false },
        { traffic: 'pageload', load: 0.5, routing: 'even', windowKind: 'sliding', alignedSyncs: false },
        { traffic: 'flood', load: 30, routing: 'even', windowKind: 'fixed', alignedSyncs: true },
      ] as const) {
        const params = { ...base, ...extra, design, syncS: 1 };
        const once = runAcrossSyncIntervals(params, deltas);
        for (const [i, syncS] of deltas.entries())
          expect(once[i]).toEqual(runSimulation({ ...params, syncS }));
      }
    }
    expect(() =>
      runAcrossSyncIntervals(
        {
          ...base,
          design: 'leases',
          syncS: 1,
          traffic: 'steady',
          load: 1,
          routing: 'even',
          windowKind: 'sliding',
          alignedSyncs: false,
        },
        deltas,
      ),
    ).toThrow(/leases/);
    // the study groups them: every run is in exactly one job, and its metrics are those of its own run
    const runs = filterGrid(
      buildGrid('quick'),
      parseOnly('designs=central-log,split,shared-counter,gateways=2,group=honest'),
    );
    const jobs = gridJobs(runs);
    expect(jobs.flatMap((j) => j.ids).sort((a, b) => a - b)).toEqual(runs.map((_, i) => i));
    expect(jobs.some((j) => j.ids.length > 1)).toBe(true);
    expect(
      jobs.filter((j) => j.ids.length > 1).every((j) => j.params.every((p) => p.design !== 'shared-counter')),
    ).toBe(true);
    const metrics = await runGrid(runs, { grid: 'test', workers: 0 });
    for (const [i, r] of runs.entries()) expect(metrics[i]).toEqual(runSimulation(r.params));
  });

  it('--only narrows the grid and names a bad field', () => {
    const runs = filterGrid(buildGrid('quick'), parseOnly('designs=shared-counter,leases,gateways=8'));
    expect(runs.length).toBeGreaterThan(0);
    expect(new Set(runs.map((r) => r.params.design))).toEqual(new Set(['shared-counter', 'leases']));
    expect(runs.every((r) => r.params.gateways === 8)).toBe(true);
    expect(() => filterGrid(runs, parseOnly('colour=red'))).toThrow(/unknown field "colour"/);
  });

  it('runs a narrowed study and writes results and a report that re-renders', async () => {
    const runs = filterGrid(
      buildGrid('quick'),
      parseOnly('designs=shared-counter,leases-ask,gateways=8,sync=1,group=flood'),
    );
    const results = await runStudy(runs, { grid: 'test', workers: 0, checks: false });
    expect(results.rows).toHaveLength(runs.length);
    expect(results.checks.map((c) => c.passed)).toEqual([true]);
    const dir = mkdtempSync(join(tmpdir(), 'fl-study-'));
    try {
      const html = writeStudyOutputs(dir, results);
      // report.html draws its charts in the browser (test/web/report.test.ts); it carries their data
      const page = readFileSync(html, 'utf8');
      expect(page).toContain('<div class="plot" data-chart="flood-k8">');
      expect(page).toContain('<script type="application/json" id="report-charts">');
      expect(readFileSync(join(dir, 'charts', 'flood-k8.svg'), 'utf8')).toMatch(/^<svg /);
      const csv = readFileSync(join(dir, 'results.csv'), 'utf8').trim().split('\n');
      expect(csv).toHaveLength(runs.length + 1);
      expect(JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8')).rows).toHaveLength(runs.length);
      expect(rerenderReport(dir)).toBe(html);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
