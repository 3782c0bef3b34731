/**
 * Simulated requests/s per core for one design under a 1,000x flood (K = 8, Δ = 1 s):
 * node bench/sim-speed.mjs DESIGN [DIST]  (DIST: another build's dist/, to put two builds side by side)
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const design = process.argv[2] ?? 'shared-counter';
const dist =
  process.argv[3] === undefined
    ? new URL('../dist/', import.meta.url).href
    : `${pathToFileURL(resolve(process.argv[3])).href}/`;
const { runSimulation } = await import(`${dist}sim/engine.js`);
const p = {
  design,
  gateways: 8,
  syncS: 1,
  limit: 100,
  windowS: 60,
  windowKind: 'sliding',
  alignedSyncs: false,
  traffic: 'flood',
  load: 1000,
  routing: 'even',
  minutes: 120,
  seed: 1,
};
for (let i = 0; i < 2; i++) runSimulation({ ...p, minutes: 20, seed: 100 + i });
const rates = [];
for (let i = 0; i < 7; i++) {
  const t = process.hrtime.bigint();
  const r = runSimulation({ ...p, seed: i + 1 });
  rates.push(r.requests / (Number(process.hrtime.bigint() - t) / 1e9));
}
rates.sort((a, b) => a - b);
console.log(design, 'median', (rates[3] / 1e6).toFixed(1), 'M simulated req/s');
