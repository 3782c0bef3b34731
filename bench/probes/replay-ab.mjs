// Lines per CPU-second of a replay on two builds run side by side: each round starts both at once
// (bench/probes/replay-dist.mjs, one process each), so both see the same load. On a small shared
// machine run one after the other, two builds drifted ±15 % from run to run with the load; side by
// side a change's effect shows at a few rounds. Prints each round, then min / median / max per build.
// MODE (default e2e) is replay-dist.mjs's: e2e, or parse for the readers alone; SPREAD is --spread
// (default uniform: the command's, and the bench's since ea2f3ca).
// Usage: npm run build && node bench/probes/replay-ab.mjs REF_DIST FILE DESIGN [ROUNDS=3] [READS=every-sync] [MODE=e2e] [SPREAD=uniform]
import { execFile } from 'node:child_process';
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import { promisify } from 'node:util';

const [refArg, file, design, roundsArg = '3', reads = 'every-sync', mode = 'e2e', spread = 'uniform'] =
  process.argv.slice(2);
if (design === undefined)
  throw new Error(
    'usage: node bench/probes/replay-ab.mjs REF_DIST FILE DESIGN [ROUNDS] [READS] [MODE] [SPREAD]',
  );
const builds = { ref: resolve(refArg), mine: resolve('dist') };
const run = promisify(execFile);
const once = async (dist) => {
  const args = ['bench/probes/replay-dist.mjs', file, design, mode, dist, reads, spread];
  const { stdout } = await run(process.execPath, args, { encoding: 'utf8' });
  return Number(/([\d,]+) lines per CPU-second/.exec(stdout)[1].replaceAll(',', ''));
};
const got = { ref: [], mine: [] };
for (let r = 0; r < Number(roundsArg); r++) {
  const [a, b] = await Promise.all([once(builds.ref), once(builds.mine)]);
  got.ref.push(a);
  got.mine.push(b);
  console.log(
    `round ${r + 1}: ref ${a.toLocaleString('en-US')}  mine ${b.toLocaleString('en-US')}  load ${loadavg()[0].toFixed(1)}`,
  );
}
const mmm = (xs) => {
  const s = [...xs].sort((x, y) => x - y);
  return `${s[0].toLocaleString('en-US')} / ${s[Math.floor((s.length - 1) / 2)].toLocaleString('en-US')} / ${s[s.length - 1].toLocaleString('en-US')}`;
};
console.log(
  `${design}${reads === 'every-sync' ? '' : ` --reads ${reads}`}${mode === 'parse' ? ' (readers alone)' : ''} --spread ${spread}, lines per CPU-second, min / median / max`,
);
for (const name of ['ref', 'mine']) console.log(`${name}: ${mmm(got[name])}`);
