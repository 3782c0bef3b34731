// Inclusive time of named functions in CPU profiles, as a share of the busy (non-idle) time: a flat
// profile's self times hide where a path's cost sits (a replay's flush, its key syncs, the store's
// syncNext), a call tree's inclusive sums show it. A function counts once per sample however deep it
// recurs. NAME matches a function's name exactly; every function of that name is listed, with its file.
// Usage: node bench/probes/profile-incl.mjs DIR/*.cpuprofile -- NAME…
import { readFileSync } from 'node:fs';

const args = process.argv.slice(2);
const cut = args.indexOf('--');
if (cut < 1 || cut === args.length - 1)
  throw new Error('usage: node bench/probes/profile-incl.mjs FILE.cpuprofile… -- NAME…');
const names = new Set(args.slice(cut + 1));
const incl = new Map();
let busy = 0;
for (const file of args.slice(0, cut)) {
  const p = JSON.parse(readFileSync(file, 'utf8'));
  const nodes = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  for (let i = 0; i < p.samples.length; i++) {
    const dt = p.timeDeltas[i] ?? 0;
    let id = p.samples[i];
    if (nodes.get(id).callFrame.functionName === '(idle)') continue;
    busy += dt;
    const seen = new Set();
    for (; id !== undefined; id = parent.get(id)) {
      const { functionName, url } = nodes.get(id).callFrame;
      if (!names.has(functionName)) continue;
      const where = `${functionName} ${url.replace(/^.*\/(node_modules|dist|bench|src)\//, '$1/')}`;
      if (seen.has(where)) continue;
      seen.add(where);
      incl.set(where, (incl.get(where) ?? 0) + dt);
    }
  }
}
console.log(`busy ${(busy / 1000).toFixed(0)} ms`);
for (const [where, t] of [...incl].sort((a, b) => b[1] - a[1]))
  console.log(`${((100 * t) / busy).toFixed(1).padStart(5)} %  ${where}`);
