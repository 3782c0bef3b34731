import {
  externalRedis,
  type RedisServer,
  type RedisServerOptions,
  startRedisServer as startPrivate,
} from '../../src/fleet/redis-server.js';

export {
  freePort,
  type RedisServer,
  type RedisServerOptions,
  waitForPing,
} from '../../src/fleet/redis-server.js';

/**
 * The tests' redis-server: src/fleet/redis-server.ts's private server, or, with REDIS_URL set (a box
 * without redis-server), that server — whose process controls then throw, so the tests that signal
 * it skip themselves.
 */
export function startRedisServer(opts: RedisServerOptions = {}): Promise<RedisServer> {
  const external = process.env.REDIS_URL;
  if (external !== undefined && external !== '' && opts.args === undefined)
    return Promise.resolve(externalRedis(external));
  return startPrivate(opts);
}
