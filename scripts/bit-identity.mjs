// Bit-identity check of the simulator against a reference build: every Nth job of the full grid and
// every job of the quick grid, every metric compared with Object.is (=== that also tells NaN and -0).
// The reference's metrics are cached (v8-serialized, exact doubles) in REF_FILE on the first run.
// Usage: npm run check:bit-identity -- N REF_DIST [REF_FILE]   (builds, then node scripts/bit-identity.mjs …)
// (REF_DIST: the reference build's dist/, e.g. a worktree of main built with npm run build)
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { deserialize, serialize } from 'node:v8';

const N = Number(process.argv[2] ?? 8);
if (process.argv[3] === undefined)
  throw new Error('usage: node scripts/bit-identity.mjs N REF_DIST [REF_FILE]');
const refDist = resolve(process.argv[3]);
// one cache per sample size and reference build
const refFile = process.argv[4] ?? `/tmp/bit-identity-ref-${N}-${refDist.replace(/[^a-zA-Z0-9]+/g, '_')}.bin`;
const { buildGrid } = await import('../dist/sim/grid.js');
const { gridJobs } = await import('../dist/sim/study.js');
// a design the reference does not have (one added since) is left out: the others must not move
const { DESIGN_IDS: refDesigns } = await import(`${pathToFileURL(refDist).href}/config.js`);
const known = (job) => job.params.every((p) => refDesigns.includes(p.design));
const jobs = [
  ...gridJobs(buildGrid('full')).filter((_, i) => i % N === 0),
  ...gridJobs(buildGrid('quick')),
].filter(known);
const runAll = async (dist) => {
  const { runJob } = await import(`${pathToFileURL(dist).href}/sim/study.js`);
  const c = process.cpuUsage();
  const out = jobs.map((job) => runJob(job));
  console.log(`${dist}: ${jobs.length} jobs, ${(process.cpuUsage(c).user / 1e6).toFixed(1)} s CPU`);
  return out;
};
let ref;
if (existsSync(refFile)) ref = deserialize(readFileSync(refFile));
else {
  ref = await runAll(refDist);
  writeFileSync(refFile, serialize(ref));
}
if (ref.length !== jobs.length)
  throw new Error(`reference has ${ref.length} jobs, the sample ${jobs.length}`);
const mine = await runAll(resolve('dist'));
let diffs = 0;
let compared = 0;
/** differing metrics per design (a change meant to move one design shows it moved that one only) */
const byDesign = new Map();
for (let j = 0; j < jobs.length; j++) {
  for (let r = 0; r < jobs[j].ids.length; r++) {
    const a = ref[j][r];
    const b = mine[j][r];
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    for (const k of keys) {
      compared++;
      if (!Object.is(a[k], b[k])) {
        const d = jobs[j].params[r].design;
        byDesign.set(d, (byDesign.get(d) ?? 0) + 1);
        if (diffs++ < 20)
          console.log(
            `DIFF job ${j} run ${r} ${k}: ref ${a[k]} mine ${b[k]}`,
            JSON.stringify(jobs[j].params[r]),
          );
      }
    }
  }
}
console.log(diffs === 0 ? `IDENTICAL: ${compared} metrics` : `${diffs} of ${compared} metrics differ`);
if (diffs > 0)
  console.log(`differing metrics by design: ${[...byDesign].map(([d, n]) => `${d} ${n}`).join(', ')}`);
process.exit(diffs === 0 ? 0 : 1);
