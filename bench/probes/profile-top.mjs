// The functions that took the most self time in CPU profiles, with their file: where a gateway's
// sync (or anything profiled with `node --cpu-prof`) spends its CPU.
// Usage: node --cpu-prof --cpu-prof-dir=DIR --import tsx bench/run.ts --only sync --quick --no-redis-benchmark
//        && node bench/probes/profile-top.mjs [TOP=25] DIR/*.cpuprofile
import { readFileSync } from 'node:fs';

const args = process.argv.slice(2);
const top = /^\d+$/.test(args[0] ?? '') ? Number(args.shift()) : 25;
if (args.length === 0) throw new Error('usage: node bench/probes/profile-top.mjs [TOP] FILE.cpuprofile…');
const self = new Map();
let total = 0;
for (const file of args) {
  const profile = JSON.parse(readFileSync(file, 'utf8'));
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  for (let i = 0; i < profile.samples.length; i++) {
    const { url, functionName, lineNumber } = nodes.get(profile.samples[i]).callFrame;
    const dt = profile.timeDeltas[i] ?? 0;
    const where = `${functionName || '(anonymous)'} ${url.replace(/^.*\/(node_modules|dist|bench|src)\//, '$1/')}:${lineNumber + 1}`;
    self.set(where, (self.get(where) ?? 0) + dt);
    total += dt;
  }
}
const rows = [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, top);
console.log(`total ${(total / 1000).toFixed(0)} ms`);
for (const [where, us] of rows) console.log(`${((100 * us) / total).toFixed(1).padStart(5)} %  ${where}`);
