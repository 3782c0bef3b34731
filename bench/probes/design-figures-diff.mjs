// One design's quick-grid figures, a reference build against this one: every quick-grid run of the
// design on both builds, the means per setting (rejected %, admitted per W, worst window, stranded %).
// Usage: npm run build && node bench/probes/design-figures-diff.mjs DESIGN REF_DIST
// (REF_DIST: the reference build's dist/, e.g. a worktree of main built with npm run build)
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const design = process.argv[2];
if (design === undefined || process.argv[3] === undefined)
  throw new Error('usage: node bench/probes/design-figures-diff.mjs DESIGN REF_DIST');
const { buildGrid } = await import('../../dist/sim/grid.js');
const { gridJobs } = await import('../../dist/sim/study.js');
const jobs = gridJobs(buildGrid('quick').filter((r) => r.params.design === design));
const run = async (dist) => {
  const { runJob } = await import(`${pathToFileURL(resolve(dist)).href}/sim/study.js`);
  return jobs.map((job) => runJob(job));
};
const ref = await run(process.argv[3]);
const mine = await run('dist');
const groups = new Map();
for (let j = 0; j < jobs.length; j++) {
  for (let r = 0; r < jobs[j].ids.length; r++) {
    const p = jobs[j].params[r];
    const busy = p.limit === 100 ? '' : ` L=${p.limit}`;
    const key =
      p.traffic === 'flood'
        ? `flood ≥1.5 K=${p.gateways} Δ=${p.syncS}${busy}`
        : `${p.traffic} ${p.load} K=${p.gateways} Δ=${p.syncS}${busy}`;
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key).push([ref[j][r], mine[j][r]]);
  }
}
const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
console.log(`${design}: ${jobs.length} quick-grid jobs; reference → this build`);
console.log('setting | rejected % | admitted per W | worst window | stranded %');
for (const [k, v] of [...groups].sort()) {
  const f = (m, d) => `${mean(v.map((x) => x[0][m])).toFixed(d)} → ${mean(v.map((x) => x[1][m])).toFixed(d)}`;
  console.log(
    `${k} | ${f('rejectedPct', 2)} | ${f('admittedPerWindow', 3)} | ${f('worstWindow', 3)} | ${f('strandedPct', 2)}`,
  );
}
