import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Policy } from '../../../src/config.js';
import { RedisStore } from '../../../src/store/redis/index.js';
import { type SingleFixture, singleServer, uniquePrefix } from '../../support/redis-fixtures.js';

let fx: SingleFixture;
beforeAll(async () => {
  fx = await singleServer();
});
afterAll(async () => {
  await fx?.close();
});

it('1,000 simultaneous requests on central-log when the count is L − 1: exactly one is admitted', async () => {
  const policy: Policy = { limit: 50, windowMs: 60_000, windowKind: 'sliding' };
  const prefix = uniquePrefix();
  // four connections, as four gateways would have, on the store's own clock
  const stores = Array.from({ length: 4 }, () => new RedisStore(fx.client(), { prefix }));
  await stores[0].logAdmit({ key: 'hot', policy, cost: policy.limit - 1 }, 0);
  const replies = await Promise.all(
    Array.from({ length: 1000 }, (_, i) => stores[i % 4].logAdmit({ key: 'hot', policy, cost: 1 }, 0)),
  );
  expect(replies.filter((r) => r.allowed).length).toBe(1);
  expect(replies.every((r) => r.count === policy.limit)).toBe(true);
});
