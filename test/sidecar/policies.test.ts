// Several policies on one sidecar (issue 22): the configuration (sidecar.policies, descriptor rules
// and NGINX paths naming a policy, per-policy key headers), its checks with every bad field named, and
// the HTTP side on the in-memory store choosing the policy by path. The gRPC side on a real Redis:
// test/sidecar/grpc.live.test.ts.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ConfigError } from '../../src/config.js';
import { loadConfig } from '../../src/config-file.js';
import { resolveSidecarOptions } from '../../src/sidecar/options.js';
import { type Sidecar, startSidecar } from '../../src/sidecar/sidecar.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import { runFleetlimit } from '../support/run-cli.js';

const BASE = {
  id: 'sc-1',
  design: 'shared-counter',
  limit: 2,
  windowMs: 60_000,
  gateways: 1,
  syncMs: 1_000,
  policyName: 'per-key',
  sidecar: {
    policies: { 'per-ip': { limit: 4, windowMs: 1_000, syncMs: 250 } },
    http: {
      port: 0,
      keyHeaders: ['x-api-key'],
      policies: { 'per-ip': { keyHeaders: ['x-real-ip'], costHeader: 'x-cost' } },
    },
    grpc: {
      port: 0,
      domain: 'edge',
      descriptors: [['api_key'], { keys: ['remote_address'], policy: 'per-ip' }],
    },
  },
};

/** The fields (and the start of their messages) loadConfig names for a configuration. */
function errorsOf(raw: unknown): string[] {
  try {
    loadConfig(raw);
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    return e.message.split('\n');
  }
  return [];
}

function withSidecar(sidecar: Record<string, unknown>, top: Record<string, unknown> = {}) {
  return { ...BASE, ...top, sidecar: { ...BASE.sidecar, ...sidecar } };
}

describe('sidecar.policies: the configuration', () => {
  it('resolves the top-level policy as the default, the named ones beside it, and each rule’s policy', () => {
    const c = loadConfig(BASE);
    const o = resolveSidecarOptions(c.sidecar, { gateway: { valid: true, options: c.gateway as never } });
    expect(o.defaultPolicy).toBe('per-key');
    expect(Object.keys(o.policies)).toEqual(['per-ip']);
    expect(o.grpc?.descriptors).toEqual([
      { keys: ['api_key'], policy: 'per-key' },
      { keys: ['remote_address'], policy: 'per-ip' },
    ]);
    expect(o.http.policies.get('per-key')).toEqual({ keyHeaders: ['x-api-key'], costHeader: null });
    expect(o.http.policies.get('per-ip')).toEqual({ keyHeaders: ['x-real-ip'], costHeader: 'x-cost' });
  });

  it('without a top-level policyName the default policy is called "default"; the single-policy file is as before', () => {
    const { policyName: _, ...noName } = BASE;
    const o = resolveSidecarOptions(
      { grpc: { domain: 'edge', descriptors: [['api_key'], { keys: ['ip'], policy: 'default' }] } },
      { gateway: { valid: false, options: noName } },
    );
    expect(o.defaultPolicy).toBe('default');
    expect(o.grpc?.descriptors.map((r) => r.policy)).toEqual(['default', 'default']);
    const single = resolveSidecarOptions({ grpc: { domain: 'e', descriptors: [['a'], ['b', 'c']] } });
    expect(single.policies).toEqual({});
    expect(single.grpc?.descriptors).toEqual([
      { keys: ['a'], policy: 'default' },
      { keys: ['b', 'c'], policy: 'default' },
    ]);
  });

  it('names every bad field: unknown policies, a name taken twice, a policy’s own options', () => {
    expect(
      errorsOf(
        withSidecar({
          grpc: {
            domain: 'edge',
            descriptors: [['api_key'], { keys: ['remote_address'], policy: 'per-ipx' }],
          },
        }),
      ),
    ).toEqual([
      'sidecar.grpc.descriptors[1].policy: must name a policy: "per-key", "per-ip" (the top-level policyName, else "default", and sidecar.policies); got "per-ipx"',
    ]);
    // the top-level policy's name is taken: two policies with one name
    expect(
      errorsOf(
        withSidecar({ policies: { 'per-key': { limit: 1, windowMs: 1000 } }, http: {}, grpc: undefined }),
      ),
    ).toEqual([
      'sidecar.policies.per-key: is the top-level policy\'s name (its policyName, else "default"): give one of them another name',
    ]);
    const { policyName: _, ...noName } = BASE;
    expect(
      errorsOf({ ...noName, sidecar: { policies: { default: { limit: 1, windowMs: 1000 } } } })[0],
    ).toMatch(/^sidecar\.policies\.default: is the top-level policy's name/);
    const many = errorsOf(
      withSidecar({
        policies: {
          'bad name': { limit: 1, windowMs: 1000 },
          x: { windowMs: 1000 },
          y: { limit: 1, windowMs: 1000, id: 'y' },
        },
        http: { policies: { nope: {} } },
        grpc: {
          domain: 'edge',
          descriptors: [['a'], { keys: ['a'], policy: 'x' }, { key: ['b'] }, { keys: [], policy: 'y' }],
        },
      }),
    );
    for (const start of [
      'sidecar.policies.bad name: must be 1 to 64 characters',
      'sidecar.policies.x.limit: is required for a named policy',
      'sidecar.policies.y.id: is not an option',
      'sidecar.http.policies.nope: must name a policy',
      'sidecar.grpc.descriptors[1]: has the entry keys of sidecar.grpc.descriptors[0] but policy "x", not "per-key"',
      'sidecar.grpc.descriptors[2].key: is not an option; expected one of keys, policy',
      'sidecar.grpc.descriptors[3].keys: must be a list of 1 to 8 descriptor entry keys',
    ])
      expect(
        many.some((m) => m.startsWith(start)),
        `${start}\n${many.join('\n')}`,
      ).toBe(true);
    expect(many).toHaveLength(7);
  });

  it('checks each named policy as the gateway it becomes, the field named under the policy', () => {
    expect(errorsOf(withSidecar({ policies: { 'per-ip': { limit: 0, windowMs: 1000 } } }))).toEqual([
      'sidecar.policies.per-ip.limit: must be a positive integer, got 0',
    ]);
    expect(
      errorsOf(withSidecar({ policies: { 'per-ip': { limit: 1, windowMs: 1000, syncMs: 2000 } } })),
    ).toEqual(['sidecar.policies.per-ip.syncMs: must not exceed windowMs (1000), got 2000']);
    // the top-level syncMs (1 s) does not fit a 500 ms window: the fix is the policy's own syncMs
    expect(errorsOf(withSidecar({ policies: { 'per-ip': { limit: 1, windowMs: 500 } } }))).toEqual([
      'sidecar.policies.per-ip.syncMs: must not exceed windowMs (500), got 1000 (the top-level syncMs: set one for this policy)',
    ]);
    expect(
      errorsOf(withSidecar({ policies: { 'per-ip': { limit: 1, windowMs: 1000, design: 'x' } } }))[0],
    ).toMatch(/^sidecar\.policies\.per-ip\.design: must be one of/);
    // a bad top level is said once, not again for every named policy
    expect(errorsOf({ ...BASE, syncMs: -1 })).toEqual(['syncMs: must be a positive finite number, got -1']);
  });

  it('bounds the policies: 1 to 16 (each is a gateway with its own timer and key cap)', () => {
    expect(errorsOf(withSidecar({ policies: {} }))[0]).toMatch(
      /^sidecar\.policies: must name 1 to 16 policies, got 0/,
    );
    const seventeen = Object.fromEntries(
      Array.from({ length: 17 }, (_, i) => [`p${i}`, { limit: 1, windowMs: 1000 }]),
    );
    expect(errorsOf(withSidecar({ policies: seventeen, http: {}, grpc: undefined }))[0]).toMatch(
      /^sidecar\.policies: must name 1 to 16 policies, got 17/,
    );
  });

  it('fleetlimit validate names a rule’s unknown policy and exits 2', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fl-policies-'));
    const good = join(dir, 'good.json');
    writeFileSync(good, JSON.stringify(BASE));
    expect((await runFleetlimit(['validate', good])).code).toBeUndefined();
    const bad = join(dir, 'bad.json');
    writeFileSync(
      bad,
      JSON.stringify(
        withSidecar({ grpc: { domain: 'edge', descriptors: [{ keys: ['ip'], policy: 'per-host' }] } }),
      ),
    );
    const r = await runFleetlimit(['validate', bad]);
    expect(r.code).toBe(2);
    expect(r.err).toContain('sidecar.grpc.descriptors[0].policy: must name a policy');
  });
});

describe('sidecar.policies: the NGINX endpoint picks the policy by path', () => {
  let sc: Sidecar | null = null;
  afterEach(async () => {
    await sc?.stop();
    sc = null;
  });
  const decide = (s: Sidecar, path: string, headers: Record<string, string>) =>
    fetch(`${s.httpUrl}${path}`, { headers });

  it('/decide is the top-level policy, /decide/<name> the named one, each with its key headers and limit', async () => {
    const s = await startSidecar(loadConfig(BASE), { store: new MemoryStore() });
    sc = s;
    expect([...s.gateways.keys()]).toEqual(['per-key', 'per-ip']);
    expect(s.gateways.get('per-ip')?.id).toBe('sc-1/per-ip');
    expect(s.gateway.id).toBe('sc-1');
    const both = { 'x-api-key': 'k', 'x-real-ip': '10.0.0.1' };
    // per-key: L = 2 per minute, keyed by x-api-key (the request's x-real-ip does not matter)
    const a = await decide(s, '/decide', both);
    expect(a.status).toBe(204);
    expect(a.headers.get('ratelimit')).toBe('"per-key";r=1;t=60');
    expect((await decide(s, '/decide/per-key', both)).status).toBe(204);
    expect((await decide(s, '/decide', both)).status).toBe(429);
    // per-ip: L = 4 per second, keyed by x-real-ip (x-api-key ignored), its own counter, its own cost header
    const b = await decide(s, '/decide/per-ip', { ...both, 'x-cost': '3' });
    expect(b.status).toBe(204);
    expect(b.headers.get('ratelimit-policy')).toBe('"per-ip";q=4;w=1');
    expect(b.headers.get('ratelimit')).toBe('"per-ip";r=1;t=1');
    expect(s.gateways.get('per-ip')?.limiterFor('x-real-ip:10.0.0.1')).toBeDefined();
    expect(s.gateway.limiterFor('x-real-ip:10.0.0.1')).toBeUndefined();
    const none = await decide(s, '/decide/per-ip', { 'x-api-key': 'k' });
    expect(none.status).toBe(400);
    expect(await none.text()).toMatch(/no key: none of the headers x-real-ip is set/);
  });

  it('an unknown policy in the path is a 404 naming the known ones; /readyz and /metrics cover every policy', async () => {
    const s = await startSidecar(loadConfig(BASE), { store: new MemoryStore() });
    sc = s;
    const r = await decide(s, '/decide/per-host', { 'x-api-key': 'k' });
    expect(r.status).toBe(404);
    expect(await r.text()).toBe(
      'no policy named "per-host"; the policies are /decide/per-key, /decide/per-ip (and /decide; several: /decide/a,b)\n',
    );
    await decide(s, '/decide/per-ip', { 'x-real-ip': 'a' });
    const ready = await (await fetch(`${s.httpUrl}/readyz`)).json();
    expect(ready).toMatchObject({
      ready: true,
      storeDown: false,
      policies: { 'per-key': { storeDown: false }, 'per-ip': { storeDown: false } },
    });
    const m = await (await fetch(`${s.httpUrl}/metrics`)).text();
    expect(m).toMatch(/fleetlimit_decisions_total\{[^}]*gateway="sc-1\/per-ip"[^}]*\} 1/);
    expect(m).toMatch(/gateway="sc-1"/);
    expect(m).toMatch(/fleetlimit_sidecar_requests_total\{protocol="http",outcome="invalid"\} 1/);
  });

  it('/decide/a,b holds one request to both policies in order: the first refusal answers, and ends it', async () => {
    const s = await startSidecar(
      loadConfig(withSidecar({ policies: { 'per-ip': { limit: 4, windowMs: 60_000 } } })),
      { store: new MemoryStore() },
    );
    sc = s;
    const both = { 'x-api-key': 'k', 'x-real-ip': '10.0.0.1' };
    const ratelimit = async (path: string, h: Record<string, string> = both) => {
      const r = await decide(s, path, h);
      return [r.status, r.headers.get('ratelimit')];
    };
    // per-key 2 per minute by API key, per-ip 4 per minute by address: the answer is the one with
    // the fewest left, then the first rejection
    expect(await ratelimit('/decide/per-key,per-ip')).toEqual([204, '"per-key";r=1;t=60']);
    expect(await ratelimit('/decide/per-key,per-ip')).toEqual([204, '"per-key";r=0;t=60']);
    const over = await decide(s, '/decide/per-key,per-ip', both);
    expect(over.status).toBe(429);
    expect(over.headers.get('ratelimit-policy')).toBe('"per-key";q=2;w=60');
    // the address was counted for the two the key's limit let through, not for the one it refused
    // (per-key was asked first): a refused request makes no state in the policies after it
    expect(await ratelimit('/decide/per-ip')).toEqual([204, '"per-ip";r=1;t=60']);
    // the other order: per-ip admits its fourth (and per-key counts the new key), then refuses, and
    // per-key never sees the request, nor makes state for its new key
    expect(await ratelimit('/decide/per-ip,per-key', { ...both, 'x-api-key': 'new' })).toEqual([
      204,
      '"per-ip";r=0;t=60',
    ]);
    expect(await ratelimit('/decide/per-ip,per-key', { ...both, 'x-api-key': 'newer' })).toEqual([
      429,
      expect.stringMatching(/^"per-ip";r=0;t=\d+$/),
    ]);
    expect(s.gateways.get('per-key')?.stats().keys).toBe(2);
    // a key missing for one policy answers 400 before either counts the request
    const bad = await decide(s, '/decide/per-ip,per-key', { 'x-api-key': 'fresh' });
    expect(bad.status).toBe(400);
    expect(await bad.text()).toBe('per-ip: no key: none of the headers x-real-ip is set\n');
    expect(await ratelimit('/decide', { 'x-api-key': 'fresh' })).toEqual([204, '"per-key";r=1;t=60']);
    // a name twice counts once; an unknown one is a 404
    expect(await ratelimit('/decide/per-ip,per-ip', { 'x-real-ip': '10.0.0.2' })).toEqual([
      204,
      '"per-ip";r=3;t=60',
    ]);
    expect((await decide(s, '/decide/per-key,nope', both)).status).toBe(404);
  });

  it('the stop makes every policy’s last sync', async () => {
    // Real sockets, so real timers: each gateway's first tick comes at a random phase in [0, Δ), and
    // with per-ip's Δ = 250 ms a tick under load pushed the admits between a decide and the check
    // below (issue 32). Here every Δ is a minute and the phase (Math.random() × Δ) its end, so no
    // tick falls within the test: the admits are pending until the stop's last sync pushes them.
    const slowTicks = withSidecar(
      { policies: { 'per-ip': { limit: 4, windowMs: 120_000, syncMs: 60_000 } } },
      { windowMs: 120_000, syncMs: 60_000 },
    );
    const phase = vi.spyOn(Math, 'random').mockReturnValue(0.999);
    let s: Sidecar;
    try {
      s = await startSidecar(loadConfig(slowTicks), { store: new MemoryStore() });
    } finally {
      phase.mockRestore();
    }
    sc = s;
    const syncs = () => [...s.gateways.values()].map((g) => g.stats().syncs);
    const before = syncs();
    await decide(s, '/decide', { 'x-api-key': 'z' });
    await decide(s, '/decide/per-ip', { 'x-real-ip': 'z' });
    for (const g of s.gateways.values()) expect(g.stats().unsyncedAdmits).toBe(1);
    expect(syncs()).toEqual(before);
    expect(await s.stop()).toBe(true);
    for (const g of s.gateways.values()) expect(g.stats().unsyncedAdmits).toBe(0);
    expect(syncs()).toEqual(before.map((n) => n + 1));
  });
});
