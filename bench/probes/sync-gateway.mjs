// One mode's sync alone, repeated, on a private redis-server: gateway CPU (process.cpuUsage around
// store.sync) and Redis CPU (INFO cpu) per key-sync, and the commands Redis ran per key. No floor,
// no peers: the loop to run under `node --cpu-prof` (then bench/probes/profile-top.mjs) while
// changing the store. Same entries as bench/sync.ts (3 admits per key, read back).
// Usage: npm run build && node bench/probes/sync-gateway.mjs [exact|buckets] [KEYS=10000] [REPS=5] [DIST=dist]
// (DIST: another build, e.g. of an older commit, for an A/B run alternated with this one)
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Redis } from 'ioredis';

const dist = pathToFileURL(resolve(process.argv[5] ?? 'dist')).href;
const { startRedisServer } = await import(`${dist}/fleet/redis-server.js`);
const { makePolicy } = await import(`${dist}/index.js`);
const { RedisStore } = await import(`${dist}/store/redis/index.js`);

const mode = process.argv[2] ?? 'exact';
const n = Number(process.argv[3] ?? 10_000);
const reps = Number(process.argv[4] ?? 5);
const redis = await startRedisServer();
const client = new Redis({ host: '127.0.0.1', port: redis.port });
try {
  const store = new RedisStore(client, { mode });
  const policy = makePolicy(1_000_000_000, 60_000, 'sliding');
  let seq = 0;
  const entries = (t) =>
    Array.from({ length: n }, (_, i) => ({
      key: `user:${i}`,
      admits: [t - 2, t - 1, t],
      read: true,
      release: false,
      ask: 0,
    }));
  const sync = () =>
    store.sync(
      {
        gatewayId: 'gw-1',
        seq: ++seq,
        policy,
        leaseTtlMs: 3000,
        horizonMs: 4000,
        entries: entries(Date.now()),
      },
      Date.now(),
    );
  await sync();
  const cpu = async () => {
    const t = await client.info('cpu');
    return Number(/used_cpu_user:([\d.]+)/.exec(t)[1]) + Number(/used_cpu_sys:([\d.]+)/.exec(t)[1]);
  };
  await client.config('RESETSTAT');
  const r0 = await cpu();
  let gw = 0;
  for (let r = 0; r < reps; r++) {
    const e = entries(Date.now());
    const c = process.cpuUsage();
    await store.sync(
      { gatewayId: 'gw-1', seq: ++seq, policy, leaseTtlMs: 3000, horizonMs: 4000, entries: e },
      Date.now(),
    );
    const d = process.cpuUsage(c);
    gw += d.user + d.system;
  }
  const r1 = await cpu();
  const stats = await client.info('commandstats');
  const cmds = [...stats.matchAll(/cmdstat_([^:]+):calls=(\d+),usec=(\d+)/g)]
    .filter((m) => m[1] !== 'info' && !m[1].startsWith('config'))
    .map(
      (m) => `${m[1]} ${(Number(m[2]) / (reps * n)).toFixed(2)}/${(Number(m[3]) / (reps * n)).toFixed(2)}`,
    );
  console.log(
    `${mode} ${n} keys × ${reps}: Redis CPU ${(((r1 - r0) * 1e6) / (reps * n)).toFixed(2)} µs/key, gateway CPU ${(gw / (reps * n)).toFixed(2)} µs/key`,
  );
  console.log(`  commands (calls/µs per key): ${cmds.join('; ')}`);
} finally {
  client.disconnect();
  await redis.stop();
}
