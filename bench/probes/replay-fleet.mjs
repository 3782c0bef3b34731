// A replay fleet alone, without the log or the engine: 1,000,000 arrivals on 10,000 keys at 2 per ms
// (the bench log's shape), one gateway, 100 per minute, Δ = 1 s, through the walk (`walk: true`:
// Gateway.sync over every held key every Δ) and the per-key syncs (src/replay/run/key-syncs.ts),
// alternating in one process, CPU seconds of each. Prints the key-syncs both report (they must match).
// Usage: npm run build && node bench/probes/replay-fleet.mjs [DESIGN=shared-counter] [READS=every-sync] [ROUNDS=2]
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const [design = 'shared-counter', reads = 'every-sync', roundsArg = '2'] = process.argv.slice(2);
const dist = pathToFileURL(resolve('dist')).href;
const { ReplayFleet } = await import(`${dist}/replay/run/fleet.js`);
const { Random } = await import(`${dist}/sim/random.js`);
const N = 1_000_000;
const rng = new Random(7);
const keys = Array.from({ length: 10_000 }, (_, i) => `10.0.${i >> 8}.${i & 255}`);
const ks = new Int32Array(N);
for (let i = 0; i < N; i++) ks[i] = Math.floor(rng.uniform() * keys.length);
for (let r = 0; r < Number(roundsArg); r++) {
  for (const walk of [true, false]) {
    const f = new ReplayFleet({
      design,
      gateways: 1,
      limit: 100,
      windowMs: 60_000,
      syncMs: 1000,
      seed: 1,
      origin: 0,
      walk,
      ...(reads === 'every-sync' ? {} : { reads }),
    });
    const c0 = process.cpuUsage();
    let admitted = 0;
    for (let i = 0; i < N; i++) if (f.arrive(keys[ks[i]], 0, Math.floor(i / 2))) admitted++;
    const keySyncs = f.keySyncs();
    const c = process.cpuUsage(c0);
    const s = ((c.user + c.system) / 1e6).toFixed(2);
    console.log(`${walk ? 'walk   ' : 'per-key'} ${s} s CPU, admitted ${admitted}, key-syncs ${keySyncs}`);
  }
}
