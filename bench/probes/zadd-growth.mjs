// Redis CPU of the sync bench's floor (one pipeline of ZADD of 3 runs + ZCARD per key) as the keys'
// sorted sets grow: a small sorted set is a listpack that ZADD scans whole, so a key-sync costs more
// the more members the key holds. 10,000 keys on a private redis-server, INFO cpu per round of
// ROUNDS syncs; prints the members per key and µs of Redis CPU per key-sync for each round.
// Usage: npm run build && node bench/probes/zadd-growth.mjs [KEYS=10000] [ROUNDS=6] [SYNCS=5]
import { Redis } from 'ioredis';
import { startRedisServer } from '../../dist/fleet/redis-server.js';

const keys = Number(process.argv[2] ?? 10_000);
const rounds = Number(process.argv[3] ?? 6);
const syncs = Number(process.argv[4] ?? 5);
const redis = await startRedisServer();
const client = new Redis({ host: '127.0.0.1', port: redis.port });
const cpu = async () => {
  const t = await client.info('cpu');
  return Number(/used_cpu_user:([\d.]+)/.exec(t)[1]) + Number(/used_cpu_sys:([\d.]+)/.exec(t)[1]);
};
let run = 0;
const once = async () => {
  run++;
  const t = Date.now();
  const p = client.pipeline();
  for (let i = 0; i < keys; i++) {
    const key = `zg:${i}`;
    p.zadd(key, t - 2, `${run}:1*1`, t - 1, `${run}:2*1`, t, `${run}:3*1`);
    p.zcard(key);
  }
  await p.exec();
};
try {
  for (let r = 0; r < rounds; r++) {
    const before = 3 * run;
    const c0 = await cpu();
    for (let s = 0; s < syncs; s++) await once();
    const us = (((await cpu()) - c0) * 1e6) / (syncs * keys);
    console.log(`members ${before + 3}–${3 * run}: ${us.toFixed(2)} µs of Redis CPU per key-sync`);
  }
} finally {
  client.disconnect();
  await redis.stop();
}
