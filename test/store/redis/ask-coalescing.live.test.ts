import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { RedisStore } from '../../../src/store/redis/index.js';
import { twoConcurrentOnAnEmptyLease } from '../../support/lease-ask-coalescing.js';
import { type RedisServer, startRedisServer } from '../../support/redis-server.js';

/** leases-ask's one ask in flight per key (test/gateway/runtime/ask-coalescing.test.ts) on a real redis-server. */
describe('leases-ask: one ask in flight per key (real redis-server)', () => {
  let server: RedisServer;
  let client: Redis;
  beforeAll(async () => {
    server = await startRedisServer();
    client = new Redis(server.url, { maxRetriesPerRequest: 1 });
  });
  afterAll(async () => {
    client?.disconnect();
    await server?.stop();
  });

  it('two concurrent requests on an empty lease key make one ask and both spend its grant', async () => {
    await twoConcurrentOnAnEmptyLease(new RedisStore(client, { prefix: 'coalesce:' }));
  });
});
