export { type KeyNames, keyNames, MAX_VERBATIM_KEY_BYTES } from './key-names.js';
export {
  type RedisStoreOptions,
  type ResolvedRedisStoreOptions,
  resolveRedisStoreOptions,
} from './options.js';
export { RedisStore } from './redis-store.js';
export { LuaScript, type RedisClient } from './script.js';
