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

/** REDIS_URL is set: the tests' redis-server is that server, not one this process started. */
export const usingExternalRedis = (process.env.REDIS_URL ?? '') !== '';

/**
 * The tests' redis-server: src/fleet/redis-server.ts's private server, or, with REDIS_URL set (a box
 * without redis-server), that server — whose process controls (kill9, pause, resume, restart) then
 * throw: a test that signals the server fails there unless it skips itself with
 * `it.skipIf(usingExternalRedis)` (stop() does nothing, so every test may call it). A test that
 * sends SCRIPT FLUSH flushes that server's script cache: skip it there too. Servers started with
 * extra arguments (the cluster's) are always private.
 */
export function startRedisServer(opts: RedisServerOptions = {}): Promise<RedisServer> {
  const external = process.env.REDIS_URL;
  if (usingExternalRedis && external !== undefined && opts.args === undefined)
    return Promise.resolve(externalRedis(external));
  return startPrivate(opts);
}
