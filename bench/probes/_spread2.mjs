import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { benchReplaySettings } from '../replay-settings.mjs';

const [file, spread, design] = process.argv.slice(2);
const dist = pathToFileURL(resolve('dist')).href;
const { openArrivals } = await import(`${dist}/replay/parse/index.js`);
const { replay } = await import(`${dist}/replay/run/engine.js`);
const c0 = process.cpuUsage();
const n = (await replay(openArrivals([file], { format: 'combined', spread }), benchReplaySettings([design])))
  .arrivals;
const c = process.cpuUsage(c0);
console.log(
  `e2e ${design} spread ${spread}: ${Math.round(n / ((c.user + c.system) / 1e6)).toLocaleString('en-US')} lines/CPU-s`,
);
