// The floor of a replay key-sync: the least work one can be, a store read of an unchanged key (nothing
// pushed, nothing expiring), timed in a loop on one hot key of a store holding N keys: the store's
// count (MemoryStore.countOf, what an idle read asks) and a read-only sync entry (syncNext, what a
// full sync with nothing to push sends, its reply written into one object). Prints ns per call.
// Usage: npm run build && node bench/probes/key-sync-floor.mjs [DIST=dist] [N=10000] [CALLS=5000000]
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const [distArg = 'dist', nArg = '10000', callsArg = '5000000'] = process.argv.slice(2);
const dist = pathToFileURL(resolve(distArg)).href;
const { makePolicy } = await import(`${dist}/config.js`);
const { MemoryStore } = await import(`${dist}/store/memory-store.js`);
const { newReply } = await import(`${dist}/store/memory/sync-entry.js`);
const N = Number(nArg);
const CALLS = Number(callsArg);
const policy = makePolicy(100, 60_000);
const store = new MemoryStore();
const req = { gatewayId: 'g0', seq: 1, policy, horizonMs: 4000 };
// every key 20 admits over the first second; the calls come later, well before any expires
for (let k = 0; k < N; k++) {
  const admits = Array.from({ length: 20 }, (_, j) => 50 * j);
  store.syncKey(
    req,
    { key: `10.0.${k >> 8}.${k & 255}`, admits, counts: undefined, read: false, release: false, ask: 0 },
    1000,
  );
}
const keys = Array.from({ length: 1024 }, (_, j) => `10.0.${((j * 7) % N) >> 8}.${((j * 7) % N) & 255}`);
const entry = { key: keys[0], admits: [], counts: undefined, read: true, release: false, ask: 0 };
const reply = newReply();
function time(label, f) {
  for (let i = 0; i < CALLS / 10; i++) f(i);
  const c0 = process.cpuUsage();
  for (let i = 0; i < CALLS; i++) f(i);
  const c = process.cpuUsage(c0);
  console.log(`${label}: ${(((c.user + c.system) * 1000) / CALLS).toFixed(1)} ns a call`);
}
let sink = 0;
const t0 = 2000;
time('countOf, one hot key', (i) => {
  sink += store.countOf(keys[0], policy, t0 + i * 1e-6);
});
time('countOf, 1,024 keys in turn', (i) => {
  sink += store.countOf(keys[i & 1023], policy, t0 + i * 1e-6);
});
time('syncNext read-only, one hot key', (i) => {
  entry.key = keys[0];
  sink += store.syncNext(req, entry, t0 + i * 1e-6, reply, false).count;
});
time('syncNext read-only, 1,024 keys in turn', (i) => {
  entry.key = keys[i & 1023];
  sink += store.syncNext(req, entry, t0 + i * 1e-6, reply, false).count;
});
if (sink === 0) console.log('(nothing counted)');
