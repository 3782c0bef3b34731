import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Policy } from '../../../src/config.js';
import { liveContract } from '../../support/live-contract.js';
import { type SingleFixture, singleServer } from '../../support/redis-fixtures.js';

let fx: SingleFixture;
beforeAll(async () => {
  fx = await singleServer();
});
afterAll(async () => {
  await fx?.close();
});

liveContract('RedisStore', () => fx.store({ clock: 'caller' }), 40);

describe('RedisStore live set', () => {
  const policy: Policy = { limit: 10, windowMs: 60_000, windowKind: 'sliding' };

  it("is one sorted set per policy, scored by each member's expiry, that expires a minute after its last member", async () => {
    const store = fx.store({ clock: 'caller' });
    const set = store.liveSetName(policy);
    expect(set).toBe(`${store.options.prefix}{live}g[10/60000s]`);
    await store.heartbeat({ gatewayId: 'a', policy, liveWithinMs: 5000 }, 1000);
    const c = fx.client();
    expect(await c.zrange(set, '0', '-1', 'WITHSCORES')).toEqual(['a', '6000']);
    let ttl = await c.pttl(set);
    expect(ttl).toBeGreaterThan(64_000);
    expect(ttl).toBeLessThanOrEqual(65_000);
    // a shorter window beating later leaves the set to live as long as its longest member
    await store.heartbeat({ gatewayId: 'b', policy, liveWithinMs: 60 }, 1010);
    expect(await c.zrange(set, '0', '-1', 'WITHSCORES')).toEqual(['b', '1070', 'a', '6000']);
    ttl = await c.pttl(set);
    expect(ttl).toBeGreaterThan(64_000);
    expect(ttl).toBeLessThanOrEqual(64_990);
    await store.heartbeat({ gatewayId: 'b', policy, liveWithinMs: 60, leaving: true }, 1011);
    await store.heartbeat({ gatewayId: 'a', policy, liveWithinMs: 5000, leaving: true }, 1012);
    expect(await c.exists(set)).toBe(0);
  });

  it('on the store clock, counts by Redis TIME whatever the caller passes', async () => {
    const store = fx.store();
    const before = Date.now();
    const r = await store.heartbeat({ gatewayId: 'a', policy, liveWithinMs: 3000 }, 0);
    expect(r.live).toBe(1);
    expect(r.now).toBeGreaterThanOrEqual(before - 1000);
    // a beat stamped long ago on the caller's clock would have aged out: TIME keeps it live
    expect((await store.heartbeat({ gatewayId: 'b', policy, liveWithinMs: 3000 }, 0)).live).toBe(2);
  });
});
