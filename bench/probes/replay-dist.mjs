// One replay of a log through a build (dist by default): the readers alone, or the readers and one
// design against the central log (one gateway, 100 per minute, Δ = 1 s: the bench's settings,
// bench/replay-settings.mjs), printing lines per CPU-second. A compiled build, so a CPU profile names the lines of the
// library's own files: the loop to profile with `node --cpu-prof` and split with profile-split.mjs.
// FILE is written first, as bench/replay.ts writes its log (1,000,000 lines), if it does not exist.
// READS (default every-sync) is the gateways' reads option (fleetlimit replay --reads); SPREAD is
// --spread (default the bench's read options': uniform, the command's default).
// Usage: npm run build && node [--cpu-prof --cpu-prof-dir=DIR] --import tsx bench/probes/replay-dist.mjs FILE DESIGN [parse|e2e] [DIST=dist] [READS] [SPREAD=uniform]
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { benchReadOptions, benchReplaySettings } from '../replay-settings.mjs';

const read = benchReadOptions('combined');
const [file, design, mode, distArg, reads = 'every-sync', spread = read.spread] = process.argv.slice(2);
if (file === undefined || design === undefined)
  throw new Error(
    'usage: node bench/probes/replay-dist.mjs FILE DESIGN [parse|e2e] [DIST=dist] [READS] [SPREAD]',
  );
const dist = pathToFileURL(resolve(distArg ?? 'dist')).href;
const { openArrivals } = await import(`${dist}/replay/parse/index.js`);
const { replay } = await import(`${dist}/replay/run/engine.js`);
if (!existsSync(file)) {
  const { writeBenchLog } = await import('../replay.ts');
  await writeBenchLog(file, 1_000_000);
}
const c0 = process.cpuUsage();
let n = 0;
if (mode === 'parse') {
  const src = openArrivals([file], { ...read, spread });
  for await (const _ of src.arrivals) n++;
} else {
  n = (await replay(openArrivals([file], { ...read, spread }), benchReplaySettings([design], reads)))
    .arrivals;
}
const c = process.cpuUsage(c0);
console.log(
  `${design}${reads === 'every-sync' ? '' : ` --reads ${reads}`} --spread ${spread} ${mode === 'parse' ? 'readers alone' : 'end to end'}: ${Math.round(n / ((c.user + c.system) / 1e6)).toLocaleString('en-US')} lines per CPU-second`,
);
