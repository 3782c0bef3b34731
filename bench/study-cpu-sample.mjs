// CPU seconds of a 1-in-N sample of the full study grid, run in one thread in the study's schedule
// order, scaled up to the whole grid. Usage: npm run build && node bench/study-cpu-sample.mjs [N] [DIST]
// (DIST: another build's dist/ to compare against; the sample is always this build's grid).
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const N = Number(process.argv[2] ?? 16);
const dist = pathToFileURL(resolve(process.argv[3] ?? 'dist')).href;
const { buildGrid } = await import('../dist/sim/grid.js');
const { scheduleOrder } = await import('../dist/sim/study.js');
const { runSimulation } = await import(`${dist}/sim/engine.js`);
const runs = buildGrid('full').filter((_, i) => i % N === 0);
const byGroup = new Map();
const c0 = process.cpuUsage();
for (const i of scheduleOrder(runs)) {
  const c = process.cpuUsage();
  runSimulation(runs[i].params);
  const key = `${runs[i].params.design} ${runs[i].group}`;
  byGroup.set(key, (byGroup.get(key) ?? 0) + process.cpuUsage(c).user / 1e6);
}
const total = process.cpuUsage(c0).user / 1e6;
console.log(`sample 1/${N}: ${total.toFixed(2)} s CPU → full grid ≈ ${(total * N).toFixed(0)} s CPU`);
for (const [k, v] of [...byGroup].sort((a, b) => b[1] - a[1])) console.log(`${(v * N).toFixed(1)} s  ${k}`);
