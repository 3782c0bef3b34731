// The common case of issue 32, item 2's change: cost-1 requests, at distinct and at shared
// milliseconds, then Gateway.sync on MemoryStore (the limiters' syncEntry, the store's push and read,
// applySync). CPU per key-sync (process.cpuUsage around gw.sync), the median of REPS rounds, for a
// build given as DIST (e.g. main's, for an A/B run alternated with this one).
// Usage: npm run build && node bench/probes/gateway-sync-cost1.mjs [KEYS=10000] [REPS=15] [DESIGN=shared-counter] [DIST=dist]
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const n = Number(process.argv[2] ?? 10_000);
const reps = Number(process.argv[3] ?? 15);
const design = process.argv[4] ?? 'shared-counter';
// SAME=0: all five at distinct instants (no run holds more than one admit)
const SAME = process.env.SAME !== '0';
const dist = pathToFileURL(resolve(process.argv[5] ?? 'dist')).href;
const { createGateway, MemoryStore } = await import(`${dist}/index.js`);

const store = new MemoryStore();
const gw = createGateway({
  id: 'gw',
  design,
  limit: 1_000_000,
  windowMs: 60_000,
  gateways: 2,
  syncMs: 1_000,
  store,
});
const keys = Array.from({ length: n }, (_, i) => `user:${i}`);
const us = [];
let t = 1_000;
for (let r = 0; r < reps + 3; r++) {
  for (const k of keys) {
    // three admits at distinct instants and two sharing one (SAME=0: five distinct)
    gw.allow(k, t, 1);
    gw.allow(k, t + 1, 1);
    gw.allow(k, t + 2, 1);
    gw.allow(k, t + 3, 1);
    gw.allow(k, SAME ? t + 3 : t + 4, 1);
  }
  const c = process.cpuUsage();
  gw.sync(t + 5);
  const d = process.cpuUsage(c);
  if (r >= 3) us.push((d.user + d.system) / n);
  t += 1_000;
}
us.sort((a, b) => a - b);
console.log(
  `${design}: ${n} keys x 5 admits, gateway sync CPU per key: median ${us[us.length >> 1].toFixed(2)} µs ` +
    `(min ${us[0].toFixed(2)}, max ${us[us.length - 1].toFixed(2)}; ${reps} rounds)`,
);
