/**
 * fleetlimit/redis: the store contract on Redis or Redis Cluster, over ioredis.
 *
 *   import { Redis } from 'ioredis';
 *   import { RedisStore } from 'fleetlimit/redis';
 *   const store = new RedisStore(new Redis(process.env.REDIS_URL!), { prefix: 'fl:' });
 *
 * Run Redis with `maxmemory-policy noeviction` (or enough memory): an evicted record loses admits.
 */
export { type KeyNames, keyNames, MAX_VERBATIM_KEY_BYTES } from './key-names.js';
export {
  type RedisStoreOptions,
  type ResolvedRedisStoreOptions,
  resolveRedisStoreOptions,
} from './options.js';
export { RedisStore } from './redis-store.js';
export { LuaScript, type RedisClient } from './script.js';
