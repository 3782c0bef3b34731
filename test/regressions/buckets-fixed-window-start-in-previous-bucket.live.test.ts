import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Policy } from '../../src/config.js';
import { type SingleFixture, singleServer } from '../support/redis-fixtures.js';

// Issue 17, item 13: window-buckets.lua put an admit in bucket floor(t / (W / BUCKETS)) in floating
// point, so some window starts (W = 1000, 60 buckets: 17 of the first 50) fell into the previous
// window's last bucket. That bucket's latest admit then carried the previous window's admits into
// the new window: a fixed window counted admits that no longer count.

let fx: SingleFixture;
beforeAll(async () => {
  fx = await singleServer();
});
afterAll(async () => {
  await fx?.close();
});

it('a fixed window start lands in its own window’s first bucket (W = 1000, 60 buckets)', async () => {
  const store = fx.store({ clock: 'caller', mode: 'buckets', buckets: 60, expiryMarginMs: 600_000 });
  const policy: Policy = { limit: 1_000_000, windowMs: 1000, windowKind: 'fixed' };
  const wrong: number[] = [];
  for (let k = 1; k <= 50; k++) {
    const start = k * 1000;
    const sync = (seq: number, admits: number[], now: number) =>
      store.sync(
        {
          gatewayId: 'g',
          seq,
          policy,
          leaseTtlMs: 100,
          horizonMs: 10,
          entries: [{ key: `k${k}`, admits, read: true, release: false, ask: 0 }],
        },
        now,
      );
    // an admit just before the window starts and one at its start (its gateway's clock a ms ahead
    // of the store's), pushed together; at the start only the second counts
    await sync(2 * k - 1, [start - 2, start], start - 1);
    const r = await sync(2 * k, [], start);
    if (r.replies[0].count !== 1) wrong.push(start);
  }
  expect(wrong).toEqual([]);
});
