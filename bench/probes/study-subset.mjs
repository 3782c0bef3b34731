// Runs the full grid's jobs of one design and group ('all': any), every Nth of them from OFFSET, for
// profiles and instruction counts.
// Usage: npm run build && node bench/probes/study-subset.mjs DESIGN GROUP [N=1] [DIST=dist] [OFFSET=0]
// e.g. valgrind --tool=callgrind node bench/probes/study-subset.mjs shared-counter honest 8
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const [design, group] = process.argv.slice(2, 4);
const N = Number(process.argv[4] ?? 1);
const dist = pathToFileURL(resolve(process.argv[5] ?? 'dist')).href;
const offset = Number(process.argv[6] ?? 0);
const { buildGrid } = await import('../../dist/sim/grid.js');
const { gridJobs } = await import('../../dist/sim/study.js');
const { runJob } = await import(`${dist}/sim/study.js`);
const runs = buildGrid('full');
const jobs = gridJobs(runs)
  .filter(
    (j) =>
      (design === 'all' || j.params[0].design === design) &&
      (group === 'all' || runs[j.ids[0]].group === group),
  )
  .filter((_, i) => i % N === offset % N);
const c = process.cpuUsage();
let requests = 0;
for (const job of jobs) for (const m of runJob(job)) requests += m.requests;
const s = process.cpuUsage(c).user / 1e6;
console.log(`${design} ${group} 1/${N}: ${jobs.length} jobs, ${requests} requests, ${s.toFixed(2)} s CPU`);
