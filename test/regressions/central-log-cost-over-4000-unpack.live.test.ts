import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Policy } from '../../src/config.js';
import { type SingleFixture, singleServer } from '../support/redis-fixtures.js';

// Issue 17, item 5: window-exact.lua built one ZADD/ZREM argument per unit of cost and unpack()ed
// them, so a central-log call of cost above ~4,000 failed with "too many results to unpack" (the
// gateway took the store for down), and a void of such a call never landed (resent forever).

let fx: SingleFixture;
beforeAll(async () => {
  fx = await singleServer();
});
afterAll(async () => {
  await fx?.close();
});

const policy: Policy = { limit: 1_000_000, windowMs: 10_000, windowKind: 'sliding' };

describe('central-log calls of a large cost on Redis (exact mode)', () => {
  it('a logAdmit of cost 5,000 is admitted and counted', async () => {
    const store = fx.store({ clock: 'caller' });
    const r = await store.logAdmit({ key: 'k', policy, cost: 5000, call: { gatewayId: 'gw', seq: 1 } }, 1000);
    expect(r).toMatchObject({ allowed: true, count: 5000 });
    expect((await store.logAdmit({ key: 'k', policy, cost: 1 }, 1001)).count).toBe(5001);
  });

  it('a logAdmit of cost 20,000 made with a call id is taken back by a void', async () => {
    const store = fx.store({ clock: 'caller' });
    const call = { gatewayId: 'gw', seq: 1 };
    expect((await store.logAdmit({ key: 'k', policy, cost: 20_000, call }, 1000)).allowed).toBe(true);
    await store.voidLogAdmits('gw', policy, [{ key: 'k', seq: 1, cost: 20_000 }], 1001);
    expect((await store.logAdmit({ key: 'k', policy, cost: 1 }, 1002)).count).toBe(1);
  });

  it('a void of a cost-20,000 call that never landed lands, and refuses the call later', async () => {
    const store = fx.store({ clock: 'caller' });
    await store.voidLogAdmits('gw', policy, [{ key: 'k', seq: 3, cost: 20_000 }], 1000);
    const late = await store.logAdmit(
      { key: 'k', policy, cost: 20_000, call: { gatewayId: 'gw', seq: 3 } },
      1001,
    );
    expect(late).toMatchObject({ allowed: false, count: 0 });
  });
});
