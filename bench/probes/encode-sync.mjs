// The gateway's CPU per key in encodeSyncCall alone (no Redis): a sync of KEYS keys (3 admits and a
// read each, as bench/probes/sync-gateway.mjs) cut into calls of 100 and encoded as prebuilt RESP,
// REPS times, process CPU per key for each of ROUNDS rounds (the first warms the JIT up).
// Usage: npm run build && node bench/probes/encode-sync.mjs [DIST=dist] [KEYS=10000] [REPS=100] [ROUNDS=4]
// (DIST: another build, e.g. of an older commit, to run alternated with this one)
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const dist = pathToFileURL(resolve(process.argv[2] ?? 'dist')).href;
const n = Number(process.argv[3] ?? 10_000);
const reps = Number(process.argv[4] ?? 100);
const rounds = Number(process.argv[5] ?? 4);
const { KeyNameCache } = await import(`${dist}/store/redis/key-name-cache.js`);
const { chunkEntries } = await import(`${dist}/store/redis/sync-chunks.js`);
const { encodeSyncCall } = await import(`${dist}/store/redis/sync-wire.js`);
const { composeScript } = await import(`${dist}/store/redis/script.js`);
const { respBulks } = await import(`${dist}/store/redis/resp-wire.js`);
const { makePolicy } = await import(`${dist}/index.js`);

const policy = makePolicy(1_000_000_000, 60_000, 'sliding');
const cache = new KeyNameCache('fl:', 'l', 100_000, true);
const script = composeScript('sync.lua', 'window-exact.lua', true, true);
const args = ['', '60000', 's', '1000000000', '0', '1000', 'gw-1', '5', '3000', '4000'];
const head = { args, resp: respBulks(args) };
const now = Date.now();
const entries = Array.from({ length: n }, (_, i) => ({
  key: `user:${i}`,
  admits: [now - 2, now - 1, now],
  read: true,
  release: false,
  ask: 0,
}));
const names = entries.map((e) => cache.named(e.key, policy));
// chunkEntries took (entries, slots, …) before it took each entry's KeyMark
const chunks =
  chunkEntries.length === 5
    ? chunkEntries(entries, names, null, 100, 10_000)
    : chunkEntries(entries, null, 100, 10_000);
const out = [];
for (let r = 0; r < rounds; r++) {
  const c0 = process.cpuUsage();
  for (let k = 0; k < reps; k++)
    for (const c of chunks) encodeSyncCall(script, true, c, entries, names, head, true);
  const c = process.cpuUsage(c0);
  out.push((((c.user + c.system) * 1000) / (reps * n)).toFixed(0));
}
console.log(`encodeSyncCall, exact, ${n} keys × ${reps}: CPU ns per key by round: ${out.join(' ')}`);
