// CPU seconds of a 1-in-N sample of the full study grid's jobs, run in one thread in the study's schedule
// order, scaled up to the whole grid. Usage: npm run build && node bench/probes/study-cpu-sample.mjs [N] [DIST]
// (DIST: another build's dist/ to compare against; the sample is always this build's jobs, and a build
// without runAcrossSyncIntervals runs a job's runs one by one).
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const N = Number(process.argv[2] ?? 16);
const dist = pathToFileURL(resolve(process.argv[3] ?? 'dist')).href;
const { buildGrid } = await import('../../dist/sim/grid.js');
const { gridJobs } = await import('../../dist/sim/study.js');
const engine = await import(`${dist}/sim/engine.js`);
const runJob = (job) =>
  job.ids.length > 1 && engine.runAcrossSyncIntervals !== undefined
    ? engine.runAcrossSyncIntervals(
        job.params[0],
        job.params.map((p) => p.syncS),
      )
    : job.params.map((p) => engine.runSimulation(p));
const runs = buildGrid('full');
const jobs = gridJobs(runs).filter((_, i) => i % N === 0);
const byGroup = new Map();
const c0 = process.cpuUsage();
for (const job of jobs) {
  const c = process.cpuUsage();
  runJob(job);
  const key = `${job.params[0].design} ${runs[job.ids[0]].group}`;
  byGroup.set(key, (byGroup.get(key) ?? 0) + process.cpuUsage(c).user / 1e6);
}
const total = process.cpuUsage(c0).user / 1e6;
console.log(
  `sample 1/${N} of ${gridJobs(runs).length} jobs: ${total.toFixed(2)} s CPU → full grid ≈ ${(total * N).toFixed(0)} s CPU`,
);
for (const [k, v] of [...byGroup].sort((a, b) => b[1] - a[1])) console.log(`${(v * N).toFixed(1)} s  ${k}`);
