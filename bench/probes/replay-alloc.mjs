// Where a replay allocates: V8's sampling heap profiler, keeping the samples the collector freed, so
// the figures are bytes allocated (not retained) per function, self only. A replay of shared-counter
// at the bench's settings allocated ~2.9 KB per line, two thirds of it in the syncs (a reply, an entry and
// the listed expiries per key read): what the scavenges, ~14 % of its CPU, spend their time on.
// READS (default every-sync) is the gateways' reads option (fleetlimit replay --reads). The log is read
// as the bench reads it (bench/replay-settings.mjs: --spread uniform since 8cb1c49; figures before it
// read --spread none).
// K, ROUTE and LIMIT (default 1, hash, 100) are the fleet's shape, as in replay-scale.mjs.
// Usage: npm run build && node bench/probes/replay-alloc.mjs FILE DESIGN [DIST=dist] [TOP=25] [READS] [K] [ROUTE] [LIMIT]
import { Session } from 'node:inspector/promises';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { benchReadOptions, benchReplaySettings } from '../replay-settings.mjs';

const [
  file,
  design,
  distArg = 'dist',
  topArg = '25',
  reads = 'every-sync',
  K = '1',
  route = 'hash',
  limit = '100',
] = process.argv.slice(2);
if (design === undefined)
  throw new Error(
    'usage: node bench/probes/replay-alloc.mjs FILE DESIGN [DIST] [TOP] [READS] [K] [ROUTE] [LIMIT]',
  );
const dist = pathToFileURL(resolve(distArg)).href;
const { openArrivals } = await import(`${dist}/replay/parse/index.js`);
const { replay } = await import(`${dist}/replay/run/engine.js`);
const session = new Session();
session.connect();
await session.post('HeapProfiler.startSampling', {
  samplingInterval: 16384,
  includeObjectsCollectedByMinorGC: true,
  includeObjectsCollectedByMajorGC: true,
});
const settings = { ...benchReplaySettings([design], reads, Number(K)), limit: Number(limit) };
const lines = (await replay(openArrivals([file], benchReadOptions('combined', Number(K), route)), settings))
  .arrivals;
const { profile } = await session.post('HeapProfiler.stopSampling');
const self = new Map();
let total = 0;
const walk = (node, parent = '') => {
  const { functionName, url, lineNumber } = node.callFrame;
  const where0 = `${functionName || '(anonymous)'} ${url.replace(/^.*\/dist\//, '')}:${lineNumber + 1}`;
  // a builtin's bytes (splice, Map, delete: no url) named with the function that called it
  const where = url === '' ? `${where0} <- ${parent}` : where0;
  self.set(where, (self.get(where) ?? 0) + node.selfSize);
  total += node.selfSize;
  for (const child of node.children) walk(child, where);
};
walk(profile.head);
console.log(
  `${design}${reads === 'every-sync' ? '' : ` --reads ${reads}`}: ${(total / 1e6).toFixed(0)} MB allocated, ${Math.round(total / lines)} bytes per line`,
);
for (const [where, bytes] of [...self].sort((a, b) => b[1] - a[1]).slice(0, Number(topArg)))
  console.log(
    `${((100 * bytes) / total).toFixed(1).padStart(5)} %  ${Math.round(bytes / lines)
      .toString()
      .padStart(5)} B/line  ${where}`,
  );
