import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Policy } from '../../src/config.js';
import { createAsyncGateway } from '../../src/gateway/runtime/index.js';
import type { AnyStore } from '../../src/store/async-adapter.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import { type SingleFixture, singleServer } from '../support/redis-fixtures.js';

// Issue 20, "One gateway, several limits": two gateways with different limits (10 and 100) on one
// store, and the same key string, shared one counter: after 50 requests on the 100-route, the
// 10-route refused. The store now names a key's records after the policy too (policyTag).

let fx: SingleFixture;
beforeAll(async () => {
  fx = await singleServer();
});
afterAll(async () => {
  await fx?.close();
});

const stores: [string, () => AnyStore][] = [
  ['MemoryStore', () => new MemoryStore()],
  ['RedisStore', () => fx.store({ clock: 'caller' })],
];

describe.each(stores)('two policies, one key string, on one %s', (_name, makeStore) => {
  it('50 admits on the 100-route leave the 10-route all of its 10', async () => {
    const store = makeStore();
    const common = { design: 'central-log' as const, windowMs: 60_000, gateways: 1, syncMs: 1_000, store };
    const route100 = createAsyncGateway({ ...common, id: 'route-100', limit: 100 });
    const route10 = createAsyncGateway({ ...common, id: 'route-10', limit: 10 });
    for (let i = 0; i < 50; i++) expect((await route100.admit('user-1')).allowed).toBe(true);
    const ten: boolean[] = [];
    for (let i = 0; i < 11; i++) ten.push((await route10.admit('user-1')).allowed);
    expect(ten).toEqual([...Array(10).fill(true), false]);
    // and the 100-route still has its other 50
    for (let i = 0; i < 50; i++) expect((await route100.admit('user-1')).allowed).toBe(true);
    expect((await route100.admit('user-1')).allowed).toBe(false);
  });

  it('a sync under one policy counts none of the admits made under another', async () => {
    const store = makeStore();
    const p100: Policy = { limit: 100, windowMs: 60_000, windowKind: 'sliding' };
    const p10: Policy = { limit: 10, windowMs: 60_000, windowKind: 'sliding' };
    const entry = (admits: number[]) => ({ key: 'user-1', admits, read: true, release: false, ask: 0 });
    const sync = (gatewayId: string, policy: Policy, admits: number[]) =>
      Promise.resolve(
        store.sync(
          { gatewayId, seq: 1, policy, leaseTtlMs: 1000, horizonMs: 1000, entries: [entry(admits)] },
          1000,
        ),
      );
    expect((await sync('a', p100, Array(50).fill(1000))).replies[0].count).toBe(50);
    expect((await sync('b', p10, [1000])).replies[0].count).toBe(1);
  });
});
