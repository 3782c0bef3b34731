// Where a CPU profile's time went, by part of the code: the simulator's engine, the library's store,
// designs and window logs, the random draws, GC. Self time only: code V8 inlined into its caller counts
// as the caller's (the library's calls inlined into the engine's loop count as the engine's), so the
// library's share is a lower bound.
// Usage: node --cpu-prof --cpu-prof-dir=DIR bench/probes/study-subset.mjs all all 16 && node bench/probes/profile-split.mjs DIR/*.cpuprofile
// (a replay: npm run build && node --cpu-prof --cpu-prof-dir=DIR --import tsx bench/probes/replay-dist.mjs FILE DESIGN)
import { readFileSync } from 'node:fs';

const AREAS = [
  ['/dist/replay/parse/', 'replay: log readers'],
  ['/dist/replay/', 'replay: engine'],
  ['/dist/gateway/', 'library: gateway'],
  ['/dist/sim/engine', 'simulator engine'],
  ['/dist/sim/random', 'random draws'],
  ['/dist/sim/', 'simulator, other (grid, jobs)'],
  ['/dist/store/', 'library: store'],
  ['/dist/designs/', 'library: designs'],
  ['/dist/window/', 'library: window logs'],
  ['/dist/', 'library: other'],
];

const files = process.argv.slice(2);
if (files.length === 0) throw new Error('usage: node bench/probes/profile-split.mjs FILE.cpuprofile…');
const byArea = new Map();
let total = 0;
for (const file of files) {
  const profile = JSON.parse(readFileSync(file, 'utf8'));
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  for (let i = 0; i < profile.samples.length; i++) {
    const { url, functionName } = nodes.get(profile.samples[i]).callFrame;
    const dt = profile.timeDeltas[i] ?? 0;
    const area =
      AREAS.find(([part]) => url.includes(part))?.[1] ??
      (functionName === '(garbage collector)'
        ? 'GC'
        : functionName === '(idle)'
          ? 'idle (waiting)'
          : 'node and the script');
    byArea.set(area, (byArea.get(area) ?? 0) + dt);
    total += dt;
  }
}
for (const [area, us] of [...byArea].sort((a, b) => b[1] - a[1]))
  console.log(
    `${((100 * us) / total).toFixed(1).padStart(5)} %  ${(us / 1e6).toFixed(1).padStart(6)} s  ${area}`,
  );
