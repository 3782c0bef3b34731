// One replay of FILE through DESIGN against the central log at a fleet shape the bench does not fix:
// K gateways (the log split over them by ROUTE: hash, random or round-robin, as `fleetlimit replay
// --gateways K --route ROUTE` splits it), LIMIT per minute, Δ = 1 s, read as the bench reads
// (bench/replay-settings.mjs), in one process, no warm-up; prints lines per CPU-second. For checking
// a speed figure at more than one scale: small and large K, even (random) and keyed (hash) routing,
// small and large L. DIST is the build (default dist), so two builds can alternate side by side.
// Usage: npm run build && node bench/probes/replay-scale.mjs FILE DESIGN K ROUTE LIMIT [READS] [DIST]
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { benchReadOptions, benchReplaySettings } from '../replay-settings.mjs';

const [file, design, K = '1', route = 'hash', limit = '100', reads = 'every-sync', distArg = 'dist'] =
  process.argv.slice(2);
if (file === undefined || design === undefined)
  throw new Error('usage: node bench/probes/replay-scale.mjs FILE DESIGN K ROUTE LIMIT [READS] [DIST]');
const dist = pathToFileURL(resolve(distArg)).href;
const { openArrivals } = await import(`${dist}/replay/parse/index.js`);
const { replay } = await import(`${dist}/replay/run/engine.js`);
const k = Number(K);
const settings = { ...benchReplaySettings([design], reads, k), limit: Number(limit) };
const c0 = process.cpuUsage();
const r = await replay(openArrivals([file], benchReadOptions('combined', k, route)), settings);
const c = process.cpuUsage(c0);
const s = (c.user + c.system) / 1e6;
console.log(
  `${design} K=${k} ${route} L=${limit} ${reads}: ${Math.round(r.arrivals / s).toLocaleString('en-US')} lines per CPU-second (${s.toFixed(2)} s)`,
);
