// Go/no-go for key-grouped processing (issue 33): the replay fleet alone (per-key syncs) on the
// bench-shaped stream (1,000,000 arrivals on 10,000 keys at 2 per ms, one gateway, 100 per minute,
// Δ = 1 s), time-ordered vs key-grouped in chunks of at most CHUNK arrivals and W (the fleet's sweeps
// held until a chunk is decided, as ReplayRun does), alternating in one process, CPU seconds each;
// the decisions must match.
// Usage: npm run build && node bench/probes/replay-fleet-grouped.mjs [DESIGN] [READS] [ROUNDS=2] [CHUNK=131072]
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const [design = 'shared-counter', reads = 'every-sync', roundsArg = '2', chunkArg = '131072'] =
  process.argv.slice(2);
const dist = pathToFileURL(resolve('dist')).href;
const { ReplayFleet } = await import(`${dist}/replay/run/fleet.js`);
const { Random } = await import(`${dist}/sim/random.js`);
const N = 1_000_000;
const CHUNK = Number(chunkArg);
const rng = new Random(7);
const NK = 10_000;
const keys = Array.from({ length: NK }, (_, i) => `10.0.${i >> 8}.${i & 255}`);
const ks = new Int32Array(N);
for (let i = 0; i < N; i++) ks[i] = Math.floor(rng.uniform() * keys.length);
const mk = () =>
  new ReplayFleet({
    design,
    gateways: 1,
    limit: 100,
    windowMs: 60_000,
    syncMs: 1000,
    seed: 1,
    origin: 0,
    ...(reads === 'every-sync' ? {} : { reads }),
  });

function timeOrdered(out) {
  const f = mk();
  for (let i = 0; i < N; i++) out[i] = f.arrive(keys[ks[i]], 0, Math.floor(i / 2)) ? 1 : 0;
  return f.keySyncs();
}

function grouped(out) {
  const f = mk();
  f.holdSweeps();
  // the chunk: arrival index, its sync index; per key a linked list (head, tail by key, next by slot)
  const idx = new Int32Array(CHUNK);
  const end = new Float64Array(CHUNK);
  const nxt = new Int32Array(CHUNK);
  const head = new Int32Array(NK).fill(-1);
  const tail = new Int32Array(NK);
  const order = new Int32Array(CHUNK);
  let n = 0;
  let nKeys = 0;
  let from = 0;
  const flush = () => {
    for (let j = 0; j < nKeys; j++) {
      const k = order[j];
      const key = keys[k];
      for (let s = head[k]; s !== -1; s = nxt[s]) {
        const i = idx[s];
        out[i] = f.decideAt(key, 0, Math.floor(i / 2), end[s]) ? 1 : 0;
      }
      head[k] = -1;
    }
    n = 0;
    nKeys = 0;
    f.sweepHeld();
  };
  for (let i = 0; i < N; i++) {
    const t = Math.floor(i / 2);
    // as the engine: its sweep, every W, ends a chunk
    if (n > 0 && t - from >= 60_000) flush();
    if (n === 0) from = t;
    const k = ks[i];
    idx[n] = i;
    end[n] = f.clockTo(t);
    nxt[n] = -1;
    if (head[k] === -1) {
      head[k] = n;
      order[nKeys++] = k;
    } else nxt[tail[k]] = n;
    tail[k] = n;
    if (++n === CHUNK) flush();
  }
  flush();
  return f.keySyncs();
}

const a = new Uint8Array(N);
const b = new Uint8Array(N);
for (let r = 0; r < Number(roundsArg); r++) {
  for (const [name, fn, out] of [
    ['time-ordered', timeOrdered, a],
    ['grouped     ', grouped, b],
  ]) {
    const c0 = process.cpuUsage();
    const keySyncs = fn(out);
    const c = process.cpuUsage(c0);
    let admitted = 0;
    for (let i = 0; i < N; i++) admitted += out[i];
    console.log(
      `${name} ${((c.user + c.system) / 1e6).toFixed(2)} s CPU, admitted ${admitted}, key-syncs ${keySyncs}`,
    );
  }
  let diff = 0;
  for (let i = 0; i < N; i++) if (a[i] !== b[i]) diff++;
  console.log(`decisions differing: ${diff}`);
}
