import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config-file.js';
import { type Sidecar, startSidecar } from '../../src/sidecar/sidecar.js';
import type { AsyncStore, SyncRequest, SyncResult } from '../../src/store/contract.js';
import { PassThroughStore } from '../../src/store/pass-through.js';
import { RedisStore } from '../../src/store/redis/index.js';
import { type RedisServer, startRedisServer } from '../support/redis-server.js';

/** The store the sidecar syncs with: Redis, noting what each sync carries for KEY as it goes out. */
class SyncLog extends PassThroughStore<AsyncStore> implements AsyncStore {
  override sync(req: SyncRequest, now: number): Promise<SyncResult> {
    // copied: a gateway may reuse a sync entry's arrays for its next sync
    for (const e of req.entries)
      if (e.key === KEY && e.admits.length > 0)
        carried.push({ admits: [...e.admits], counts: e.counts && [...e.counts] });
    return this.inner.sync(req, now);
  }
}

/**
 * Issue 32, item 2, through the sidecar: `x-cost: 1000000000` on a policy with L = 2·10⁹ answered 204
 * and then crashed the process within 60 s: the next sync expanded the admit into 10⁹ array entries
 * (the gateway's admit log, the sync's entry). Now the admit is one (time, count) run from the
 * gateway to Redis: the sidecar answers, syncs it, and keeps answering.
 *
 * Seen failing on main (0ed42fc): the vitest worker aborts out of memory ("invalid table size
 * Allocation failed - JavaScript heap out of memory") at the first sync after the 204.
 */

let redis: RedisServer;
let client: Redis;
let sc: Sidecar;
let store: RedisStore;
/** The runs (admits, counts) each sync carried for KEY, in the order the syncs were sent. */
const carried: { admits: number[]; counts: number[] | undefined }[] = [];
const KEY = 'x-api-key:big';
const L = 2_000_000_000;

beforeAll(async () => {
  redis = await startRedisServer();
  client = new Redis(redis.url, { maxRetriesPerRequest: 1 });
  store = new RedisStore(client);
  sc = await startSidecar(
    loadConfig({
      id: 'big-cost',
      design: 'shared-counter',
      limit: L,
      windowMs: 60_000,
      gateways: 1,
      syncMs: 100,
      redis: { prefix: `cost-${Date.now()}:` },
      sidecar: { http: { port: 0, keyHeaders: ['x-api-key'], costHeader: 'x-cost' } },
    }),
    { store: new SyncLog(store) },
  );
});

afterAll(async () => {
  await sc?.stop();
  client?.disconnect();
  await redis?.stop();
});

function decide(cost: number): Promise<Response> {
  return fetch(`${sc.httpUrl}/decide`, { headers: { 'x-api-key': 'big', 'x-cost': String(cost) } });
}

/** Waits until the key's admits are all in the store (a sync took and confirmed them). */
async function synced(): Promise<void> {
  const until = Date.now() + 10_000;
  while (sc.gateway.limiterFor(KEY)!.unsyncedAdmits() > 0) {
    if (Date.now() > until) throw new Error('no sync took the admits within 10 s');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('regression: the sidecar admits x-cost 10⁹ on L = 2·10⁹ and stays up past its syncs', () => {
  it('answers 204, syncs the admit as one run, and keeps answering', async () => {
    const heap0 = process.memoryUsage().heapUsed;
    const first = await decide(1_000_000_000);
    expect(first.status).toBe(204);
    await synced();
    // the sync that took it carried the admit as one run of 10⁹ (read from the sync itself: a check
    // of the unsynced count after the 204 raced the 100 ms sync on a loaded machine)
    expect(carried).toEqual([{ admits: [expect.any(Number)], counts: [1_000_000_000] }]);
    // a second sync after it, with the key read back
    await new Promise((r) => setTimeout(r, 300));
    const second = await decide(1_000_000_000);
    expect(second.status).toBe(204);
    await synced();
    // the window is full: one more is refused, with a Retry-After the gateway worked out on runs
    const third = await decide(1);
    expect(third.status).toBe(429);
    expect(Number(third.headers.get('retry-after'))).toBeGreaterThan(0);
    // Redis holds both admits (one exact-log member each)
    const names = store.keyNames(KEY, sc.gateway.options.policy);
    expect(await client.zcard(names.log)).toBe(2);
    // memory follows requests, not cost: 2·10⁹ admits held and sent in far less than 100 MB
    expect(process.memoryUsage().heapUsed - heap0).toBeLessThan(100_000_000);
  });
});
