import { randomBytes } from 'node:crypto';
import { Cluster, Redis } from 'ioredis';
import { RedisStore, type RedisStoreOptions } from '../../src/store/redis/index.js';
import { type RedisClusterHandle, startRedisCluster } from './redis-cluster.js';
import { type RedisServer, startRedisServer } from './redis-server.js';

/** A unique key prefix per store, so tests sharing a server (or REDIS_URL) never see each other's keys. */
export function uniquePrefix(): string {
  return `flt:${randomBytes(4).toString('hex')}:`;
}

/** A private server and its clients; `close()` quits every client and stops the server. */
export interface SingleFixture {
  server: RedisServer;
  client(): Redis;
  store(opts?: RedisStoreOptions): RedisStore;
  close(): Promise<void>;
}

export async function singleServer(): Promise<SingleFixture> {
  const server = await startRedisServer();
  const clients: Redis[] = [];
  const client = () => {
    const c = new Redis(server.port, server.host, { lazyConnect: false, maxRetriesPerRequest: 3 });
    // connection errors while a test restarts the server surface as failed commands; the event is noise
    c.on('error', () => {});
    clients.push(c);
    return c;
  };
  const shared = client();
  return {
    server,
    client,
    store: (opts = {}) => new RedisStore(shared, { prefix: uniquePrefix(), ...opts }),
    close: async () => {
      for (const c of clients) c.disconnect();
      await server.stop();
    },
  };
}

export interface ClusterFixture {
  cluster: RedisClusterHandle;
  client: Cluster;
  store(opts?: RedisStoreOptions): RedisStore;
  close(): Promise<void>;
}

export async function localCluster(): Promise<ClusterFixture> {
  const cluster = await startRedisCluster(3);
  const client = new Cluster(cluster.startup, { redisOptions: { maxRetriesPerRequest: 3 } });
  client.on('error', () => {});
  return {
    cluster,
    client,
    store: (opts = {}) => new RedisStore(client, { prefix: uniquePrefix(), ...opts }),
    close: async () => {
      client.disconnect();
      await cluster.stop();
    },
  };
}
