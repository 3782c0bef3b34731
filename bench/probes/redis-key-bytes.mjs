// Redis memory per user key (MEMORY USAGE of its log and meta hash) after SYNCS syncs of RUNS admit
// instants each, 200 keys, on a private redis-server, for a build.
// Usage: npm run build && node bench/probes/redis-key-bytes.mjs DIST [exact|buckets] [SYNCS=10] [RUNS=3]
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Redis } from 'ioredis';

const dist = pathToFileURL(resolve(process.argv[2])).href;
const { startRedisServer } = await import(`${dist}/fleet/redis-server.js`);
const { makePolicy } = await import(`${dist}/index.js`);
const { RedisStore } = await import(`${dist}/store/redis/index.js`);
const mode = process.argv[3] ?? 'exact';
const syncs = Number(process.argv[4] ?? 10),
  runs = Number(process.argv[5] ?? 3);
const redis = await startRedisServer();
const client = new Redis({ host: '127.0.0.1', port: redis.port });
const store = new RedisStore(client, { mode });
const policy = makePolicy(1_000_000_000, 60_000, 'sliding');
const n = 200;
for (let s = 1; s <= syncs; s++) {
  const t = Date.now();
  const admits = Array.from({ length: runs }, (_, i) => t - runs + 1 + i);
  await store.sync(
    {
      gatewayId: 'gw-1',
      seq: s,
      policy,
      leaseTtlMs: 3000,
      horizonMs: 4000,
      entries: Array.from({ length: n }, (_, i) => ({
        key: `user:${i}`,
        admits,
        read: true,
        release: false,
        ask: 0,
      })),
    },
    t,
  );
  await new Promise((r) => setTimeout(r, 5));
}
let bytes = 0;
for (let i = 0; i < n; i++) {
  const k = store.keyNames(`user:${i}`, policy);
  bytes += (await client.memory('USAGE', k.log)) ?? 0;
  bytes += (await client.memory('USAGE', k.meta)) ?? 0;
}
console.log(
  `${process.argv[2]} ${mode}: ${syncs} syncs x ${runs} runs: ${(bytes / n).toFixed(0)} B per key (log + meta)`,
);
client.disconnect();
await redis.stop();
