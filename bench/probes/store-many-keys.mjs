// CPU ns per request of a gateway on the memory store over many keys, each request's key a fresh
// string as a server parses it: one central-log gateway (every admit looks its key's record up in the
// store), KEYS keys admitted once, then N admits spread over them in a fixed stride; virtual time.
// For a "no slower" check of the store's record table, two builds run alternately (A B A B …).
// Usage: npm run build && node bench/probes/store-many-keys.mjs DIST [KEYS=100000] [N=2000000]
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const [distArg = 'dist', keysArg = '100000', nArg = '2000000'] = process.argv.slice(2);
const { Gateway, MemoryStore } = await import(`${pathToFileURL(resolve(distArg)).href}/index.js`);
const gw = new Gateway(
  { id: 'g', design: 'central-log', limit: 1e9, windowMs: 60_000, gateways: 1, syncMs: 1000 },
  new MemoryStore(),
);
const keys = Number(keysArg);
const n = Number(nArg);
const clock = { now: 0 };
for (let i = 0; i < keys; i++) gw.admit(`user:${i}`, clock.now);
let allowed = 0;
const c0 = process.cpuUsage();
for (let i = 0; i < n; i++) {
  clock.now += 0.01;
  if (gw.admit(`user:${(i * 7919) % keys}`, clock.now).allowed) allowed++;
}
const c = process.cpuUsage(c0);
console.log(
  `${(((c.user + c.system) * 1000) / n).toFixed(1)} ns a request (${keys} keys, ${allowed} of ${n} admitted)`,
);
