import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Policy } from '../../src/config.js';
import type { AsyncStore, Store, SyncEntry } from '../../src/store/contract.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import { type SingleFixture, singleServer } from '../support/redis-fixtures.js';

// Issue 17, item 3: a lease gateway cut off from the store for longer than the lease TTL. The store
// took its grant back at the lapse while the slots it had spent waited in its unsent sync, and
// granted them again: 54, 53, 50 admitted in a window of L = 50 (3 gateways, W = 3 s, one link cut
// for 2.5 s). The store now keeps a lapsed grant counted until an admit made at the lapse would age
// out; the gateway's late sync then turns it into the admits it made.

const policy: Policy = { limit: 10, windowMs: 3000, windowKind: 'sliding' };
const ttl = 1000;
const lease = (ask: number, admits: number[] = []): SyncEntry => ({
  key: 'k',
  admits,
  read: false,
  release: true,
  ask,
});

let fx: SingleFixture;
beforeAll(async () => {
  fx = await singleServer();
});
afterAll(async () => {
  await fx?.close();
});

const stores: [string, () => AsyncStore | Store][] = [
  ['MemoryStore', () => new MemoryStore()],
  ['RedisStore (exact)', () => fx.store({ clock: 'caller' })],
  ['RedisStore (buckets)', () => fx.store({ clock: 'caller', mode: 'buckets' })],
];

describe.each(stores)('a gateway cut off past its lease TTL (%s)', (_name, make) => {
  it('never has its spent, unpushed slots granted again while they could still count', async () => {
    const s = make();
    const sync = (gw: string, seq: number, e: SyncEntry, now: number) =>
      Promise.resolve(
        s.sync({ gatewayId: gw, seq, policy, leaseTtlMs: ttl, horizonMs: 0, entries: [e] }, now),
      );
    const first = await sync('a', 1, lease(10), 0);
    expect(first.replies[0].granted).toBe(10);
    expect(first.replies[0].grantExpiresAt).toBe(ttl);
    // gateway a spends all 10 at 500, then its link is cut; it stops spending at its lapse (1000)
    const spent = Array.from({ length: 10 }, () => 500);
    // 1500: the grant has lapsed; another gateway asks for everything
    expect((await s.ask({ gatewayId: 'b', key: 'k', policy, leaseTtlMs: ttl, ask: 10 }, 1500)).granted).toBe(
      0,
    );
    // 2500: a's link is back; its sync pushes what it spent and hands the grant back
    const back = await sync('a', 2, lease(0, spent), 2500);
    expect(back.replies[0].granted).toBe(0);
    expect((await s.ask({ gatewayId: 'b', key: 'k', policy, leaseTtlMs: ttl, ask: 10 }, 2600)).granted).toBe(
      0,
    );
    // 3500: a's admits have aged out: the slots are free again
    expect((await s.ask({ gatewayId: 'b', key: 'k', policy, leaseTtlMs: ttl, ask: 10 }, 3500)).granted).toBe(
      10,
    );
  });

  it('a gateway that never comes back strands its slots until its lapse plus the window, no longer', async () => {
    const s = make();
    await Promise.resolve(
      s.sync({ gatewayId: 'a', seq: 1, policy, leaseTtlMs: ttl, horizonMs: 0, entries: [lease(10)] }, 0),
    );
    expect(
      (await s.ask({ gatewayId: 'b', key: 'k', policy, leaseTtlMs: ttl, ask: 10 }, ttl + policy.windowMs - 1))
        .granted,
    ).toBe(0);
    expect(
      (await s.ask({ gatewayId: 'b', key: 'k', policy, leaseTtlMs: ttl, ask: 10 }, ttl + policy.windowMs))
        .granted,
    ).toBe(10);
  });
});
