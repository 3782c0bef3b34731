import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Policy } from '../../../src/config.js';
import type { SyncRequest } from '../../../src/store/contract.js';
import { MemoryStore } from '../../../src/store/memory-store.js';
import { RedisStore } from '../../../src/store/redis/index.js';
import { type SingleFixture, singleServer, uniquePrefix } from '../../support/redis-fixtures.js';

/**
 * A sync call is written as prebuilt RESP bytes (key names' encoding cached per key, the batch packed
 * in place) unless the client prefixes keys (ioredis keyPrefix), where the client encodes it. Both
 * must name the keys exactly: multi-byte UTF-8 in user keys and gateway ids, and the client's prefix.
 */
let fx: SingleFixture;
beforeAll(async () => {
  fx = await singleServer();
});
afterAll(async () => {
  await fx?.close();
});

const policy: Policy = { limit: 100, windowMs: 600_000, windowKind: 'sliding' };
const KEYS = ['plain', 'ключ-🙂', 'é{x}', 'x'.repeat(300)];

function request(seq: number, t: number): SyncRequest {
  return {
    gatewayId: 'gw-ü',
    seq,
    policy,
    leaseTtlMs: 1000,
    horizonMs: 1_000_000,
    entries: KEYS.map((key, i) => ({
      key,
      admits: [t - 2, t - 1, t - 1, t].slice(i),
      read: true,
      release: false,
      ask: i,
    })),
  };
}

describe('sync call bytes', () => {
  it.each([false, true])('name every key exactly (client keyPrefix: %s)', async (prefixed) => {
    const keyPrefix = prefixed ? 'cp:' : '';
    const client = new Redis(fx.server.port, fx.server.host, { keyPrefix, maxRetriesPerRequest: 3 });
    try {
      const store = new RedisStore(client, { clock: 'caller', prefix: uniquePrefix() });
      const memory = new MemoryStore();
      const t = 1_764_800_000_000;
      for (let seq = 1; seq <= 2; seq++) {
        const req = request(seq, t + seq);
        expect(await store.sync(req, t + seq)).toEqual(memory.sync(req, t + seq));
      }
      const raw = fx.client();
      for (const key of KEYS) {
        const names = store.keyNames(key, policy);
        expect(await raw.exists(`${keyPrefix}${names.log}`, `${keyPrefix}${names.meta}`)).toBe(2);
      }
    } finally {
      client.disconnect();
    }
  });
});
