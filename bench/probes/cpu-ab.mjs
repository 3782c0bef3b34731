// CPU seconds of the same study subset on two builds, run alternately in fresh processes (A B A B …),
// for a refactor's "no slower" check. Each run is bench/probes/study-subset.mjs (every Nth job of the
// full grid, all designs and groups); the figure is that process's own user CPU.
// Usage: npm run build && node bench/probes/cpu-ab.mjs REF_DIST [N=128] [REPS=3] [OFFSET=0]
import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';

const ref = resolve(process.argv[2] ?? '');
if (process.argv[2] === undefined)
  throw new Error('usage: node bench/probes/cpu-ab.mjs REF_DIST [N] [REPS] [OFFSET]');
const N = process.argv[3] ?? '128';
const reps = Number(process.argv[4] ?? 3);
const offset = process.argv[5] ?? '0';
const builds = { ref, mine: resolve('dist') };
const cpu = { ref: [], mine: [] };
const once = (name) => {
  const out = execFileSync(
    process.execPath,
    ['bench/probes/study-subset.mjs', 'all', 'all', N, builds[name], offset],
    { encoding: 'utf8' },
  );
  const s = Number(/([\d.]+) s CPU/.exec(out)[1]);
  cpu[name].push(s);
  console.log(`${name} ${s.toFixed(2)} s  (${out.trim()})`);
};
for (let r = 0; r < reps; r++) {
  // alternate which build goes first, so neither always runs on a warmer machine
  for (const name of r % 2 === 0 ? ['ref', 'mine'] : ['mine', 'ref']) once(name);
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
for (const name of ['ref', 'mine'])
  console.log(
    `${name}: median ${median(cpu[name]).toFixed(2)} s, min ${Math.min(...cpu[name]).toFixed(2)}, max ${Math.max(...cpu[name]).toFixed(2)}`,
  );
console.log(`mine / ref (medians): ${(median(cpu.mine) / median(cpu.ref)).toFixed(3)}`);
