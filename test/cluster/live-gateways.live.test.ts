import { afterAll, beforeAll } from 'vitest';
import { liveContract } from '../support/live-contract.js';
import { type ClusterFixture, localCluster } from '../support/redis-fixtures.js';

let fx: ClusterFixture;
beforeAll(async () => {
  fx = await localCluster();
});
afterAll(async () => {
  await fx?.close();
});

liveContract('RedisStore, 3-master cluster', () => fx.store({ clock: 'caller' }), 40);
