/**
 * Simulated requests/s of the many-keys simulation (library gateways, one memory store): 10,000 keys,
 * Zipf 0.8, honest steady 80 % on the hottest, a 100× flood on 10 random keys, K = 8, Δ = 1 s, 10 min.
 * npm run build && node bench/many-keys-speed.mjs DESIGN  (median of 5 runs)
 */
import { runManyKeys } from '../dist/sim/many-keys.js';

const p = {
  design: process.argv[2] ?? 'shared-counter',
  gateways: 8,
  syncS: 1,
  limit: 100,
  windowS: 60,
  windowKind: 'sliding',
  alignedSyncs: false,
  traffic: 'steady',
  load: 0.8,
  routing: 'even',
  minutes: 10,
  keys: 10_000,
  popularity: 0.8,
  floodKeys: 10,
  floodLoad: 100,
  floodPick: 'random',
};
runManyKeys({ ...p, seed: 99, minutes: 3 });
const rates = [];
for (let i = 0; i < 5; i++) {
  const t = performance.now();
  const r = runManyKeys({ ...p, seed: i + 1 });
  rates.push(r.requests / ((performance.now() - t) / 1000));
}
rates.sort((a, b) => a - b);
console.log(p.design, 'median', (rates[2] / 1e6).toFixed(2), 'M simulated req/s');
