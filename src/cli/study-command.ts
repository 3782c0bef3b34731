import type { Command } from 'commander';
import { rerenderReport, writeStudyOutputs } from '../report/write.js';
import { buildGrid, filterGrid, GRID_NAMES, type GridName, parseOnly } from '../sim/grid.js';
import { runStudy } from '../sim/study.js';
import { num, oneOf } from './parse.js';
import { progressBar } from './progress.js';

export function addStudyCommands(program: Command): void {
  program
    .command('study')
    .description('run the whole parameter grid on all cores and write results, tables, charts and a report')
    .option(
      '--quick',
      'a reduced grid that keeps every section of the report (about a minute); = --grid quick',
    )
    .option(
      '--grid <name>',
      'full, quick, or extended (the quick grid + the scorecard, store delay, sync loss, picked-gateway attacks and the hard cases)',
    )
    .option('--out <dir>', 'output folder', 'study-out')
    .option('--only <filter>', 'narrow the grid, e.g. designs=shared-counter,leases,gateways=8')
    .option('--workers <n>', 'worker threads (default: one per core)')
    .option('--no-checks', 'skip the checks that need their own simulations (the lease check always runs)')
    .action(
      async (f: {
        quick?: boolean;
        grid?: string;
        out: string;
        only?: string;
        workers?: string;
        checks: boolean;
      }) => {
        const gridName: GridName =
          f.grid !== undefined ? oneOf('--grid', f.grid, GRID_NAMES) : f.quick ? 'quick' : 'full';
        let runs = buildGrid(gridName);
        if (f.only !== undefined) runs = filterGrid(runs, parseOnly(f.only));
        if (runs.length === 0) throw new Error('--only: no run of the grid matches');
        const workers =
          f.workers === undefined ? undefined : num('--workers', f.workers, { integer: true, min: 0 });
        process.stderr.write(`fleetlimit study: ${runs.length} runs (${gridName} grid)\n`);
        const results = await runStudy(runs, {
          grid: f.only ? `${gridName} (only ${f.only})` : gridName,
          workers,
          checks: f.checks,
          quickChecks: gridName !== 'full',
          onProgress: progressBar('simulating'),
        });
        const report = writeStudyOutputs(f.out, results);
        const failed = results.checks.filter((c) => !c.passed);
        for (const c of results.checks)
          process.stdout.write(`${c.passed ? 'PASS' : 'FAIL'}  ${c.name}\n      ${c.detail}\n`);
        process.stdout.write(
          `${runs.length} runs in ${results.wallSeconds.toFixed(1)} s\nreport: ${report}\n`,
        );
        if (failed.length > 0) process.exitCode = 1;
      },
    );

  program
    .command('report <dir>')
    .description('re-render report.md and report.html from a study folder without rerunning')
    .action((dir: string) => {
      process.stdout.write(`report: ${rerenderReport(dir)}\n`);
    });
}
