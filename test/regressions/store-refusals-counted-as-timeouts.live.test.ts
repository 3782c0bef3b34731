import { once } from 'node:events';
import { Redis, type RedisOptions } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AsyncGateway, createAsyncGateway } from '../../src/gateway/runtime/index.js';
import { RedisStore } from '../../src/store/redis/index.js';
import { uniquePrefix } from '../support/redis-fixtures.js';
import { type RedisServer, startRedisServer, usingExternalRedis } from '../support/redis-server.js';

/**
 * Issue 20: a gateway whose redis-server was down counted its failed syncs as timeouts (with
 * ioredis' default offline queue the calls wait until the timeout) or as store errors (with
 * enableOfflineQueue: false they fail at once): the metrics could not tell "the store is gone"
 * from "the store is slow" or "the store's script failed". Both read `refused` now.
 */

const CLIENTS: [string, RedisOptions][] = [
  ['default options (offline queue)', {}],
  ['enableOfflineQueue: false', { enableOfflineQueue: false, maxRetriesPerRequest: 0 }],
  ['maxRetriesPerRequest: 0', { maxRetriesPerRequest: 0 }],
];

let server: RedisServer;
const clients: Redis[] = [];
beforeAll(async () => {
  if (usingExternalRedis) return;
  server = await startRedisServer();
  for (const [, o] of CLIENTS) {
    const c = new Redis(server.port, server.host, o);
    c.on('error', () => {});
    clients.push(c);
  }
  await Promise.all(clients.map((c) => (c.status === 'ready' ? null : once(c, 'ready'))));
  await server.kill9();
  // every client has seen its connection close
  while (clients.some((c) => c.status === 'ready')) await new Promise((r) => setTimeout(r, 10));
});
afterAll(async () => {
  for (const c of clients) c.disconnect();
  await server?.stop();
});

function gateway(client: Redis, design: 'shared-counter' | 'central-log'): AsyncGateway {
  return createAsyncGateway({
    id: 'g',
    design,
    limit: 10,
    windowMs: 60_000,
    gateways: 1,
    syncMs: 60_000,
    storeTimeoutMs: 300,
    failMode: 'closed',
    store: new RedisStore(client, { prefix: uniquePrefix() }),
  });
}

describe.skipIf(usingExternalRedis)('store refusals counted as timeouts', () => {
  it.each(CLIENTS.map(([name], i) => [name, i] as const))(
    'a sync to a stopped server is refused: %s',
    async (_n, i) => {
      const g = gateway(clients[i], 'shared-counter');
      const reasons: string[] = [];
      g.on('syncError', (e) => reasons.push(e.reason));
      g.admitNow('k');
      expect(await g.syncNow()).toBe(false);
      expect(reasons).toEqual(['refused']);
      const text = await g.registerMetrics().metrics();
      expect(text).toContain('fleetlimit_sync_failures_total{gateway="g",reason="refused"} 1');
      expect(text).toContain('fleetlimit_sync_failures_total{gateway="g",reason="timeout"} 0');
    },
  );

  it.each(CLIENTS.map(([name], i) => [name, i] as const))(
    'a central-log call to a stopped server is refused: %s',
    async (_n, i) => {
      const g = gateway(clients[i], 'central-log');
      const reasons: string[] = [];
      g.on('storeCallError', (e) => reasons.push(e.reason));
      const d = await g.admit('k');
      expect(d.allowed).toBe(false);
      expect(reasons).toEqual(['refused']);
      const text = await g.registerMetrics().metrics();
      expect(text).toContain('fleetlimit_store_call_failures_total{gateway="g",reason="refused"} 1');
    },
  );
});
