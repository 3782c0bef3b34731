import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Policy } from '../../src/config.js';
import type { SyncRequest } from '../../src/store/contract.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import { type SingleFixture, singleServer } from '../support/redis-fixtures.js';
import type { AnyStore } from '../support/store-contract.js';

// Found by exact-log-one-member-per-unit-of-cost's property (CI, FC_SEED=212163325): after a central-log
// call was voided, or an admit refunded, that held the key's oldest admit, a read that lists no
// expiry answered RedisStore's `oldestExpiry` from the meta record's `o`, a bound below the oldest
// admit that the removal left behind: the removed admit's expiry, earlier than the true one (2001
// against MemoryStore's 2002 here). A gateway reading it thinks a slot frees before it does.

let fx: SingleFixture;
beforeAll(async () => {
  fx = await singleServer();
});
afterAll(async () => {
  await fx?.close();
});

const policy: Policy = { limit: 1000, windowMs: 1000, windowKind: 'sliding' };

/** A read of `key` that lists no expiry (horizon 100 ms, the oldest admit leaves later). */
function read(key: string, seq: number): SyncRequest {
  return {
    gatewayId: 'reader',
    seq,
    policy,
    leaseTtlMs: 100,
    horizonMs: 100,
    entries: [{ key, admits: [], read: true, release: false, ask: 0 }],
  };
}

/** Two admits at 1001 and 1002, the one at 1001 taken back by `takeBack`, then a read at 1003. */
async function oldestAfter(
  store: AnyStore,
  takeBack: (s: AnyStore) => Promise<unknown> | unknown,
): Promise<number | undefined> {
  await store.logAdmit({ key: 'k', policy, cost: 1, call: { gatewayId: 'gw', seq: 1 } }, 1001);
  await store.logAdmit({ key: 'k', policy, cost: 1, call: { gatewayId: 'gw', seq: 2 } }, 1002);
  await takeBack(store);
  const r = await store.sync(read('k', 1), 1003);
  expect(r.replies[0].count).toBe(1);
  return r.replies[0].oldestExpiry;
}

describe('RedisStore: the oldest expiry after the oldest admit is taken back', () => {
  const cases: [string, (s: AnyStore) => Promise<unknown> | unknown][] = [
    [
      'a void of the call that made it',
      (s) => s.voidLogAdmits('gw', policy, [{ key: 'k', seq: 1, cost: 1 }], 1002),
    ],
    [
      'a refund of it',
      (s) => s.refundAdmits?.('gw', policy, [{ key: 'k', seq: 1, at: 1001, cost: 1 }], 1002),
    ],
  ];
  for (const [what, takeBack] of cases) {
    it(`after ${what}, the next oldest admit's expiry, as MemoryStore says`, async () => {
      expect(await oldestAfter(new MemoryStore(), takeBack)).toBe(2002);
      expect(await oldestAfter(fx.store({ clock: 'caller' }), takeBack)).toBe(2002);
    });
  }
});
