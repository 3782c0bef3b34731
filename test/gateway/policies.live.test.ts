import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, type Policy } from '../../src/config.js';
import { createPolicyGateways, type PolicyGatewaysOptions } from '../../src/gateway/policies.js';
import { createAsyncGateway } from '../../src/gateway/runtime/index.js';
import type { AnyStore } from '../../src/store/async-adapter.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import { policyTag } from '../../src/store/policy-tag.js';
import { type SingleFixture, singleServer } from '../support/redis-fixtures.js';

let fx: SingleFixture;
beforeAll(async () => {
  fx = await singleServer();
});
afterAll(async () => {
  await fx?.close();
});

const common = { id: 'api', design: 'central-log', gateways: 1, syncMs: 1_000 } as const;

async function admitted(admit: () => Promise<{ allowed: boolean }>, n: number): Promise<number> {
  let ok = 0;
  for (let i = 0; i < n; i++) if ((await admit()).allowed) ok++;
  return ok;
}

describe('policyTag: a policy’s identity in the store', () => {
  it('is the numbers, and the name when there is one', () => {
    expect(policyTag({ limit: 10, windowMs: 60_000, windowKind: 'sliding' })).toBe('10/60000s');
    expect(policyTag({ limit: 10, windowMs: 1_000, windowKind: 'fixed', name: 'free' })).toBe(
      'free=10/1000f',
    );
  });

  it('refuses a literal policy whose name could break a key name', () => {
    const bad: Policy = { limit: 1, windowMs: 1, windowKind: 'sliding', name: 'a]:b' };
    expect(() => policyTag(bad)).toThrow(/policy\.name/);
  });
});

describe.each<[string, () => AnyStore]>([
  ['MemoryStore', () => new MemoryStore()],
  ['RedisStore', () => fx.store({ clock: 'caller' })],
])('createPolicyGateways on one %s', (_name, makeStore) => {
  it('keeps two policies with the same numbers apart by name, and one policy’s gateways share it', async () => {
    const store = makeStore();
    const set = createPolicyGateways({
      ...common,
      store,
      policies: { free: { limit: 3, windowMs: 60_000 }, trial: { limit: 3, windowMs: 60_000 } },
    });
    expect(set.names).toEqual(['free', 'trial']);
    expect([...set.gateways.values()].map((g) => g.id)).toEqual(['api/free', 'api/trial']);
    expect(await admitted(() => set.get('free').admit('u'), 5)).toBe(3);
    expect(await admitted(() => set.get('trial').admit('u'), 5)).toBe(3);
    // a second process's set (another id) shares each policy's counter: the fleet's limit holds
    const other = createPolicyGateways({
      ...common,
      id: 'api-2',
      store,
      policies: { free: { limit: 3, windowMs: 60_000 } },
    });
    expect((await other.get('free').admit('u')).allowed).toBe(false);
    expect(set.stats().free.decisions).toMatchObject({ allowed: 3, limited: 2 });
  });

  it('syncs, stops and reports every policy; no duplicate-id alarm between them', async () => {
    const store = makeStore();
    const set = createPolicyGateways({
      ...common,
      design: 'shared-counter',
      store,
      policies: { free: { limit: 10, windowMs: 60_000 }, pro: { limit: 100, windowMs: 60_000, syncMs: 500 } },
    });
    const dup: string[] = [];
    for (const g of set.gateways.values()) g.on('duplicateId', (e) => dup.push(e.id));
    await set.get('free').admit('u');
    await set.get('pro').admit('u');
    expect(await set.syncNow()).toBe(true);
    expect(await set.syncNow()).toBe(true);
    expect(set.stats().free.syncs).toBeGreaterThan(0);
    expect(set.stats().pro.syncs).toBeGreaterThan(0);
    expect(await set.stop()).toBe(true);
    expect(dup).toEqual([]);
    const text = await set.registerMetrics().metrics();
    expect(text).toContain('gateway="api/free"');
    expect(text).toContain('gateway="api/pro"');
  });
});

describe.each<[string, () => AnyStore]>([
  ['MemoryStore', () => new MemoryStore()],
  ['RedisStore', () => fx.store({ clock: 'caller' })],
])('the policyName gateway option on one %s', (_name, makeStore) => {
  const gateway = (store: AnyStore, id: string, policyName?: string) =>
    createAsyncGateway({
      ...common,
      id,
      store,
      limit: 3,
      windowMs: 60_000,
      ...(policyName ? { policyName } : {}),
    });

  it('a gateway with a name and one without are separate counters; two with one name share one', async () => {
    const store = makeStore();
    const named = gateway(store, 'a', 'free');
    const unnamed = gateway(store, 'b');
    expect(named.options.policy.name).toBe('free');
    expect(await admitted(() => named.admit('u'), 5)).toBe(3);
    expect(await admitted(() => unnamed.admit('u'), 5)).toBe(3);
    // another process of the same fleet, the same name: the same counter, already full
    expect((await gateway(store, 'c', 'free').admit('u')).allowed).toBe(false);
    // another name with the same numbers: a counter of its own
    expect(await admitted(() => gateway(store, 'd', 'pro').admit('u'), 1)).toBe(1);
  });

  it('a set of policies names each gateway after its policy', () => {
    const set = createPolicyGateways({
      ...common,
      store: makeStore(),
      policies: { free: { limit: 3, windowMs: 60_000 }, pro: { limit: 30, windowMs: 60_000 } },
    });
    expect([...set.gateways.values()].map((g) => g.options.policy.name)).toEqual(['free', 'pro']);
  });
});

describe('createPolicyGateways configuration', () => {
  const store = new MemoryStore();
  const make = (o: Partial<PolicyGatewaysOptions>) =>
    createPolicyGateways({ ...common, store, policies: { free: { limit: 1, windowMs: 1000 } }, ...o });

  it('names the field of a bad policy, and a bad policy name', () => {
    expect(() => make({ policies: { free: { limit: 0, windowMs: 1000 } } })).toThrow(/policies\.free\.limit/);
    expect(() => make({ policies: { 'a b': { limit: 1, windowMs: 1000 } } })).toThrow(/policies\.a b/);
    expect(() => make({ policies: {} })).toThrow(ConfigError);
    expect(() => make({ id: '' })).toThrow(/^id:/);
  });

  it('reports every bad policy at once', () => {
    try {
      make({ policies: { a: { limit: -1, windowMs: 1000 }, b: { limit: 1, windowMs: -1 } } });
      expect.unreachable();
    } catch (e) {
      expect((e as Error).message).toMatch(/policies\.a\.limit[\s\S]*policies\.b\.windowMs/);
    }
  });

  it("names a gateway's bad policyName", () => {
    expect(() =>
      createAsyncGateway({ ...common, store, limit: 1, windowMs: 1000, policyName: 'a b' }),
    ).toThrow(/^policyName: must be 1 to 64 characters/);
  });

  it('refuses a policyName beside the policy names', () => {
    const withName = { ...common, store, policyName: 'x', policies: { free: { limit: 1, windowMs: 1000 } } };
    expect(() => createPolicyGateways(withName as PolicyGatewaysOptions)).toThrow(
      /^policyName: comes from the policy names/,
    );
    const inPolicy = { free: { limit: 1, windowMs: 1000, policyName: 'x' } };
    expect(() => make({ policies: inPolicy as PolicyGatewaysOptions['policies'] })).toThrow(
      /^policies\.free\.policyName:/,
    );
  });

  it('get() of an unknown policy names the known ones', () => {
    expect(() => make({}).get('pro')).toThrow(/no policy named "pro"; the policies are "free"/);
  });
});
