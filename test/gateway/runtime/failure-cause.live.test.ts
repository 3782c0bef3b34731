import { once } from 'node:events';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AsyncGateway, createAsyncGateway } from '../../../src/gateway/runtime/index.js';
import { RedisStore } from '../../../src/store/redis/index.js';
import { uniquePrefix } from '../../support/redis-fixtures.js';
import { type RedisServer, startRedisServer, usingExternalRedis } from '../../support/redis-server.js';

/**
 * Store failures by cause on a private redis-server, through the gateway's events and metrics: a
 * script that fails is `error`, a paused server (SIGSTOP: the connection stays open, nothing
 * answers) is `timeout`, a stopped one is `refused`. The client is the one the README recommends.
 */

const POLICY = { limit: 10, windowMs: 60_000, windowKind: 'sliding' } as const;

let server: RedisServer;
let client: Redis;
let admin: Redis;
beforeAll(async () => {
  if (usingExternalRedis) return;
  server = await startRedisServer();
  client = new Redis(server.port, server.host, { enableOfflineQueue: false, maxRetriesPerRequest: 0 });
  admin = new Redis(server.port, server.host, { enableOfflineQueue: false, maxRetriesPerRequest: 0 });
  for (const c of [client, admin]) c.on('error', () => {});
  await Promise.all([client, admin].map((c) => (c.status === 'ready' ? null : once(c, 'ready'))));
});
afterAll(async () => {
  client?.disconnect();
  admin?.disconnect();
  await server?.stop();
});

interface Pair {
  store: RedisStore;
  /** Syncs (shared-counter): syncError reasons. */
  syncer: AsyncGateway;
  /** Calls the store per request (central-log): storeCallError reasons. */
  caller: AsyncGateway;
  reasons: { sync: string[]; call: string[] };
}

function pair(): Pair {
  const store = new RedisStore(client, { prefix: uniquePrefix() });
  const make = (design: 'shared-counter' | 'central-log') =>
    createAsyncGateway({
      id: design,
      design,
      limit: POLICY.limit,
      windowMs: POLICY.windowMs,
      gateways: 1,
      syncMs: 60_000,
      storeTimeoutMs: 300,
      failMode: 'closed',
      store,
    });
  const p: Pair = {
    store,
    syncer: make('shared-counter'),
    caller: make('central-log'),
    reasons: { sync: [], call: [] },
  };
  p.syncer.on('syncError', (e) => p.reasons.sync.push(e.reason));
  p.caller.on('storeCallError', (e) => p.reasons.call.push(e.reason));
  return p;
}

/**
 * Requests for `key` on both gateways and a sync; returns the failure reasons they brought (a new
 * key's first request may start a sync of its own: every reason is counted, each must be `cause`).
 */
async function fail(p: Pair, key: string, cause: string): Promise<void> {
  p.reasons = { sync: [], call: [] };
  await p.syncer.admit(key);
  expect(await p.syncer.syncNow()).toBe(false);
  expect((await p.caller.admit(key)).allowed).toBe(false);
  expect(new Set(p.reasons.sync)).toEqual(new Set([cause]));
  expect(p.reasons.call).toEqual([cause]);
}

async function metric(g: AsyncGateway, name: string, reason: string): Promise<number> {
  const m = await g.registerMetrics().getSingleMetric(`fleetlimit_${name}`)!.get();
  return m.values.find((v) => v.labels.reason === reason)?.value ?? Number.NaN;
}

describe.skipIf(usingExternalRedis)('store failures by cause on a redis-server', () => {
  it('a failing script is error, a paused server timeout, a stopped server refused', async () => {
    // a gateway whose call failed decides without the store until a sync answers: fresh ones per cause
    const p = pair();

    // the key's window log holds a string: the store's script fails on it (WRONGTYPE)
    await admin.set(p.store.keyNames('broken', POLICY).log, 'not a log');
    await fail(p, 'broken', 'error');

    const paused = pair();
    server.pause();
    try {
      await fail(paused, 'k', 'timeout');
    } finally {
      server.resume();
    }

    await server.stop();
    while (client.status === 'ready') await new Promise((r) => setTimeout(r, 10));
    const stopped = pair();
    await fail(stopped, 'k', 'refused');

    for (const [q, reason] of [
      [p, 'error'],
      [paused, 'timeout'],
      [stopped, 'refused'],
    ] as const) {
      for (const other of ['timeout', 'refused', 'error']) {
        const syncs = await metric(q.syncer, 'sync_failures_total', other);
        expect(syncs > 0, `${reason} pair: ${syncs} sync failures reason="${other}"`).toBe(other === reason);
        expect(await metric(q.caller, 'store_call_failures_total', other)).toBe(other === reason ? 1 : 0);
      }
      expect(q.caller.stats().storeCallFailures).toBe(1);
    }
  });
});
