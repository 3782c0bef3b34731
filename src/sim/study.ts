import { existsSync } from 'node:fs';
import { cpus } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { DESIGN_IDS } from '../config.js';
import { DESIGNS } from '../designs/index.js';
import {
  checkAlignedFixedWindow,
  checkErlang,
  checkLeaseViolations,
  checkSingleGatewayEquivalence,
} from './checks.js';
import { decisionsIgnoreSync, runAcrossSyncIntervals } from './engine.js';
import type { GridRun } from './grid.js';
import { isManyKeys, simulateRun } from './many-keys.js';
import { VERSION } from './run.js';
import {
  type CheckResult,
  type RunMetrics,
  type RunParams,
  type RunRow,
  type StudyResults,
  withDefaults,
} from './types.js';

export interface StudyOptions {
  grid: string;
  /** worker threads; 0 runs in this thread. Default: one per core. */
  workers?: number;
  onProgress?: (done: number, total: number, elapsedMs: number) => void;
  /** run the checks that need their own simulations (Erlang, K = 1, aligned fixed window) */
  checks?: boolean;
  quickChecks?: boolean;
}

function workerUrl(): URL | null {
  const url = new URL('./study-worker.js', import.meta.url);
  // under a TypeScript loader (tests) there is no compiled worker: run in-thread
  return existsSync(fileURLToPath(url)) ? url : null;
}

/** Runs the grid on all cores; rows come back in grid order whatever the finishing order. */
export async function runGrid(runs: GridRun[], opts: StudyOptions): Promise<RunMetrics[]> {
  const results = new Array<RunMetrics>(runs.length);
  const started = performance.now();
  const url = workerUrl();
  const jobs = gridJobs(runs);
  const nWorkers = Math.min(opts.workers ?? cpus().length, jobs.length);
  let done = 0;
  const finish = (ids: number[], metrics: RunMetrics[]) => {
    for (let i = 0; i < ids.length; i++) results[ids[i]] = metrics[i];
    done += ids.length;
    opts.onProgress?.(done, runs.length, performance.now() - started);
  };
  if (url === null || nWorkers <= 0) {
    for (const job of jobs) finish(job.ids, runJob(job));
    return results;
  }
  let next = 0;
  await new Promise<void>((resolve, reject) => {
    const workers: Worker[] = [];
    const feed = (w: Worker) => {
      if (next < jobs.length) w.postMessage(jobs[next++]);
    };
    for (let i = 0; i < nWorkers; i++) {
      // A larger young generation: a run allocates small short-lived objects at every sync (entries,
      // replies), and with V8's default the scavenges took ~8 % of a worker's time (measured).
      const w = new Worker(url, { resourceLimits: { maxYoungGenerationSizeMb: 48 } });
      workers.push(w);
      w.on('message', (m: { ids: number[]; metrics: RunMetrics[] }) => {
        finish(m.ids, m.metrics);
        if (done === runs.length) {
          for (const x of workers) void x.terminate();
          resolve();
        } else feed(w);
      });
      w.on('error', (err) => {
        for (const x of workers) void x.terminate();
        reject(err);
      });
      feed(w);
    }
  });
  return results;
}

/** Runs simulated together: the same run at several Δ when its decisions ignore Δ, else one run. */
export interface GridJob {
  ids: number[];
  params: RunParams[];
}

/** One job's metrics, in the order of its ids (a worker runs this too). */
export function runJob(job: GridJob): RunMetrics[] {
  if (job.ids.length === 1) return [simulateRun(job.params[0])];
  return runAcrossSyncIntervals(
    job.params[0],
    job.params.map((p) => p.syncS),
  );
}

/**
 * The grid as jobs, in schedule order. The runs of central-log and split that differ only in Δ make
 * one job: their decisions do not depend on Δ, so they are simulated once (runAcrossSyncIntervals).
 */
export function gridJobs(runs: GridRun[]): GridJob[] {
  const byRest = new Map<string, number[]>();
  const groupOf = new Array<number[] | null>(runs.length).fill(null);
  for (let i = 0; i < runs.length; i++) {
    const p = runs[i].params;
    if (isManyKeys(p) || !decisionsIgnoreSync(p)) continue;
    const key = JSON.stringify({ ...p, syncS: 0 });
    let ids = byRest.get(key);
    if (ids === undefined) byRest.set(key, (ids = []));
    ids.push(i);
    groupOf[i] = ids;
  }
  const jobs: GridJob[] = [];
  const taken = new Set<number[]>();
  for (const i of scheduleOrder(runs)) {
    const ids = groupOf[i] ?? [i];
    if (taken.has(ids)) continue;
    taken.add(ids);
    jobs.push({ ids, params: ids.map((id) => runs[id].params) });
  }
  return jobs;
}

/**
 * The order runs are handed to workers: one design after another, and within a design the longest
 * runs first, so the last worker is not left alone with a long run. Keeping a design's runs together
 * keeps the engine's calls into the design's code monomorphic in each worker's JIT: mixing the eight
 * designs run by run made the same grid about 1.6 times slower.
 */
export function scheduleOrder(runs: GridRun[]): number[] {
  const rank = (r: GridRun) => DESIGN_IDS.indexOf(r.params.design);
  return runs.map((_, i) => i).sort((a, b) => rank(runs[a]) - rank(runs[b]) || cost(runs[b]) - cost(runs[a]));
}

/** A rough relative cost of a run, to schedule long runs first. */
function cost(r: GridRun): number {
  const p = r.params;
  // many keys: every request goes through a gateway, every sync carries the held keys
  if (p.keys !== undefined && p.keys > 1)
    return p.minutes * ((p.floodKeys ?? 1) * (p.floodLoad ?? 100) * p.limit + 20 * p.keys ** 0.5);
  const syncs = (p.gateways * p.minutes * 60) / p.syncS;
  const arrivals = p.minutes * p.load * p.limit * (p.traffic === 'flood' ? 0.01 : 1);
  return syncs * (DESIGNS[p.design].grants ? 1 : 0.2) + arrivals;
}

export async function runStudy(runs: GridRun[], opts: StudyOptions): Promise<StudyResults> {
  const t0 = performance.now();
  const startedAt = new Date().toISOString();
  const metrics = await runGrid(runs, opts);
  const rows: RunRow[] = runs.map((r, i) => ({
    group: r.group,
    ...withDefaults(r.params),
    ...metrics[i],
    version: VERSION,
  }));
  const checks: CheckResult[] = [];
  if (opts.checks !== false) {
    const q = opts.quickChecks === true;
    checks.push(checkErlang(q ? 3 : 5, q ? 200 : 300));
    checks.push(checkSingleGatewayEquivalence(q ? 10 : 30));
    checks.push(checkAlignedFixedWindow(20));
  }
  checks.push(checkLeaseViolations(rows));
  return {
    version: VERSION,
    grid: opts.grid,
    startedAt,
    wallSeconds: (performance.now() - t0) / 1000,
    rows,
    checks,
  };
}
