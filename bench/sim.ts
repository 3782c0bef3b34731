/**
 * Simulator speed: simulated requests per second per core for each design under a 1,000× flood
 * (K = 8, Δ = 1 s, L = 100 per 60 s), medians of repeated runs in one thread, and the study's wall time.
 * Runs against the compiled library (npm run build first), as a user's sweep would.
 */
import { spawnSync } from 'node:child_process';
import { cpus } from 'node:os';
import { DESIGN_IDS } from '../dist/config.js';
import { runSimulation } from '../dist/sim/engine.js';

import { median } from './util.js';

const ONE_DESIGN = 'designs=shared-counter,gateways=8';

export interface SimBench {
  requestsPerSecond: Record<string, number>;
  /** `study --quick --only designs=shared-counter,gateways=8` (the quick bench's stand-in for the study). */
  studyQuickOneDesignSeconds?: number;
  studyQuickSeconds?: number;
  studyFullSeconds?: number;
}

export function benchSimulator(opts: { quick: boolean; full: boolean }): SimBench {
  const reps = opts.quick ? 3 : 7;
  const minutes = opts.quick ? 30 : 120;
  const requestsPerSecond: Record<string, number> = {};
  for (const design of DESIGN_IDS) {
    const p = {
      design,
      gateways: 8,
      syncS: 1,
      limit: 100,
      windowS: 60,
      windowKind: 'sliding' as const,
      alignedSyncs: false,
      traffic: 'flood' as const,
      load: 1000,
      routing: 'even' as const,
      minutes,
      seed: 1,
    };
    runSimulation({ ...p, minutes: 10 }); // warm up the JIT
    const rates: number[] = [];
    for (let i = 0; i < reps; i++) {
      const t0 = process.hrtime.bigint();
      const r = runSimulation({ ...p, seed: i + 1 });
      const s = Number(process.hrtime.bigint() - t0) / 1e9;
      rates.push(r.requests / s);
    }
    requestsPerSecond[design] = median(rates);
  }
  const out: SimBench = { requestsPerSecond };
  const study = (args: string[]) => {
    const t0 = process.hrtime.bigint();
    const r = spawnSync(
      process.execPath,
      ['dist/cli/main.js', 'study', ...args, '--out', '/tmp/fleetlimit-bench-study'],
      {
        stdio: ['ignore', 'ignore', 'ignore'],
      },
    );
    if (r.status !== 0 && r.status !== 1) throw new Error(`study ${args.join(' ')} failed with ${r.status}`);
    return Number(process.hrtime.bigint() - t0) / 1e9;
  };
  // the quick bench stays under two minutes: one design's share of the quick grid
  if (opts.quick) out.studyQuickOneDesignSeconds = study(['--quick', '--only', ONE_DESIGN]);
  else out.studyQuickSeconds = study(['--quick']);
  if (opts.full) out.studyFullSeconds = study([]);
  return out;
}

export function simTable(b: SimBench): string {
  const lines = [
    '| design | simulated requests/s per core (1,000× flood, K = 8, Δ = 1 s) |',
    '|---|---:|',
    ...Object.entries(b.requestsPerSecond).map(([d, r]) => `| ${d} | ${(r / 1e6).toFixed(1)} M |`),
  ];
  lines.push('');
  if (b.studyQuickOneDesignSeconds !== undefined)
    lines.push(
      `study --quick --only ${ONE_DESIGN}: ${b.studyQuickOneDesignSeconds.toFixed(1)} s wall on ${cpus().length} cores`,
    );
  if (b.studyQuickSeconds !== undefined)
    lines.push(`study --quick: ${b.studyQuickSeconds.toFixed(1)} s wall on ${cpus().length} cores`);
  if (b.studyFullSeconds !== undefined) lines.push(`full study: ${b.studyFullSeconds.toFixed(1)} s wall`);
  return lines.join('\n');
}
