import type { Redis } from 'ioredis';
import { afterAll, beforeAll } from 'vitest';
import { gatewayClient, ready } from './fault-fleet.js';
import { type RedisServer, startRedisServer } from './redis-server.js';

/** What useRedisServer sets up: `server` is filled in by its beforeAll, so read it inside tests only. */
export interface RedisPerFile {
  server: RedisServer;
  /** A gateway's client on the server (gatewayClient), ready; disconnected after the tests. */
  gatewayClient(storeTimeoutMs?: number): Promise<Redis>;
  /** `c`, disconnected after the tests. */
  keep<C extends Redis>(c: C): C;
}

/**
 * The set-up the Redis fleet tests share: one private redis-server for the tests of the file (or of
 * the describe it is called in), and every client made on it disconnected before the server stops.
 */
export function useRedisServer(): RedisPerFile {
  const clients: Redis[] = [];
  const fx: RedisPerFile = {
    server: undefined as unknown as RedisServer,
    keep: (c) => {
      clients.push(c);
      return c;
    },
    gatewayClient: async (storeTimeoutMs) =>
      fx.keep(await ready(gatewayClient(fx.server.url, storeTimeoutMs))),
  };
  beforeAll(async () => {
    fx.server = await startRedisServer();
  });
  afterAll(async () => {
    for (const c of clients) c.disconnect();
    await fx.server?.stop();
  });
  return fx;
}
