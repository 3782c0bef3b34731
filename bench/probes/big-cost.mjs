// Redis time for central-log requests of large cost in exact mode (issue 17, items 5 and 6: a cost of
// 10^6 held Redis 3.3 s when each unit of cost was a ZSET member): a logAdmit and its void, each
// measured by Redis itself (INFO commandstats, evalsha usec), on a private redis-server.
// Usage: npm run build && node bench/probes/big-cost.mjs [COST=1000000]
import { Redis } from 'ioredis';
import { startRedisServer } from '../../dist/fleet/redis-server.js';
import { RedisStore } from '../../dist/store/redis/index.js';

const cost = Number(process.argv[2] ?? 1_000_000);
const server = await startRedisServer();
const client = new Redis(server.port, server.host);
try {
  const store = new RedisStore(client, { clock: 'caller' });
  const policy = { limit: 2 * cost, windowMs: 60_000, windowKind: 'sliding' };
  // scripts loaded and warm before measuring
  await store.logAdmit({ key: 'warm', policy, cost: 1, call: { gatewayId: 'g', seq: 1 } }, 0);
  const usec = async () => {
    const info = await client.info('commandstats');
    let total = 0;
    for (const m of info.matchAll(/cmdstat_(evalsha|eval):calls=\d+,usec=(\d+)/g)) total += Number(m[2]);
    return total;
  };
  await client.config('RESETSTAT');
  const r = await store.logAdmit({ key: 'k', policy, cost, call: { gatewayId: 'g', seq: 2 } }, 1);
  const admitUs = await usec();
  await client.config('RESETSTAT');
  await store.voidLogAdmits('g', policy, [{ key: 'k', seq: 2, cost }], 2);
  const voidUs = await usec();
  const members = await client.zcard(store.keyNames('k').log);
  console.log(
    `cost ${cost}: logAdmit ${r.allowed ? 'admitted' : 'refused'} (count ${r.count}) in ${admitUs} µs of Redis time; ` +
      `its void ${voidUs} µs; ${members} log members left`,
  );
} finally {
  client.disconnect();
  await server.stop();
}
