// Memory of one whole replay of a log (issue 33: "a 10-million-line log runs in bounded memory"): the
// readers and DESIGNs against the central log (bench/replay-settings.mjs: one gateway, 100 per
// minute, Δ = 1 s, the log read with the command's defaults), the live heap after a full collection and the RSS sampled every EVERY
// lines read, printed as it goes. Flat figures from the first sample to the last: memory follows
// the keys live within W, not the file. Run with --expose-gc.
// Other shapes from the environment: K (gateways, default 1), ROUTE (default hash), L (per minute, default 100).
// Usage: npm run build && [K=4 ROUTE=random L=5] node --expose-gc bench/probes/replay-heap.mjs FILE [EVERY=1000000] DESIGN…
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { benchReadOptions, benchReplaySettings } from '../replay-settings.mjs';

const [file, everyArg, ...designs] = process.argv.slice(2);
if (file === undefined || designs.length === 0 || typeof globalThis.gc !== 'function')
  throw new Error('usage: node --expose-gc bench/probes/replay-heap.mjs FILE EVERY DESIGN…');
const every = Number(everyArg);
const dist = pathToFileURL(resolve('dist')).href;
const { openArrivals } = await import(`${dist}/replay/parse/index.js`);
const { replay } = await import(`${dist}/replay/run/engine.js`);

const MB = 2 ** 20;
const k = Number(process.env.K ?? 1);
const src = openArrivals([file], benchReadOptions('combined', k, process.env.ROUTE ?? 'hash'));
let next = every;
const samples = [];
/** Samples the heap once `every` more lines are read (between batches: the readers may read synchronously). */
const sample = () => {
  const read = src.stats().lines;
  if (read < next) return;
  next += every;
  globalThis.gc();
  const m = process.memoryUsage();
  samples.push(m.heapUsed);
  console.log(
    `${read.toLocaleString('en-US')} lines: heap ${(m.heapUsed / MB).toFixed(1)} MB, RSS ${(m.rss / MB).toFixed(1)} MB`,
  );
};
async function* watched(batches) {
  for await (const b of batches) {
    yield b;
    sample();
  }
}
const settings = { ...benchReplaySettings(designs, 'every-sync', k), limit: Number(process.env.L ?? 100) };
const r = await replay({ ...src, batches: watched(src.batches) }, settings);
const mb = (x) => (x / MB).toFixed(1);
console.log(
  `${r.arrivals.toLocaleString('en-US')} arrivals; live heap min / max over the samples ${mb(Math.min(...samples))} / ${mb(Math.max(...samples))} MB; peak RSS ${mb(process.resourceUsage().maxRSS * 1024)} MB`,
);
