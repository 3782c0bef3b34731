// fleetlimitPlugin, registered as @fastify/rate-limit is: every route limited, per-route
// config.fleetlimit / config.rateLimit overrides (its own limit on a counter of its own, other options, or off),
// global: false, the decision on the request, the header styles, the hooks, and the gateways it made
// stopped on close (app.inject, MemoryStore).
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { createPolicyGateways } from '../../src/gateway/policies.js';
import { type FleetlimitPluginOptions, fleetlimitPlugin, type RateLimitInfo } from '../../src/http/index.js';
import { MemoryStore } from '../../src/store/memory-store.js';

const apps: FastifyInstance[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((a) => a.close()));
});

function app(): FastifyInstance {
  const a = Fastify();
  apps.push(a);
  return a;
}

// config.rateLimit is typed by @fastify/rate-limit's augmentation where both are loaded (these tests)
const own = (rateLimit: unknown) => ({ config: { rateLimit } }) as object;

describe('fleetlimitPlugin', () => {
  it('limits every route; a route’s own limit counts apart; off for config.rateLimit: false', async () => {
    const a = app();
    const seen: string[] = [];
    const opts: FleetlimitPluginOptions = {
      limit: 2,
      windowMs: 60_000,
      store: new MemoryStore(),
      gateways: 1,
      id: 'plugin',
      standardHeaders: 'draft-6',
      legacyHeaders: true,
      onExceeded: (_req, d) => seen.push(`exceeded ${d.key}`),
      onExceeding: (_req, d) => seen.push(`exceeding ${d.key}`),
    };
    await a.register(fleetlimitPlugin, opts);
    a.get('/', async (req) => (req as unknown as { rateLimit: RateLimitInfo }).rateLimit);
    a.get('/login', own({ limit: 1, message: { error: 'too many logins' } }), async () => 'hi');
    a.get('/health', own(false), async () => 'up');

    const r1 = await a.inject('/');
    expect(r1.statusCode).toBe(200);
    expect(r1.headers['ratelimit-limit']).toBe('2');
    expect(r1.headers['ratelimit-remaining']).toBe('1');
    expect(r1.headers['ratelimit-policy']).toBe('2;w=60');
    expect(r1.headers['x-ratelimit-remaining']).toBe('1');
    expect(r1.headers.ratelimit).toBeUndefined();
    expect(r1.json()).toMatchObject({ limit: 2, used: 1, remaining: 1, key: '127.0.0.1' });
    expect((await a.inject('/')).statusCode).toBe(200);
    const r3 = await a.inject('/');
    expect(r3.statusCode).toBe(429);
    expect(Number(r3.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(seen).toEqual(['exceeding 127.0.0.1', 'exceeding 127.0.0.1', 'exceeded 127.0.0.1']);

    for (let i = 0; i < 5; i++) expect((await a.inject('/health')).statusCode).toBe(200);
    expect((await a.inject('/login')).statusCode).toBe(200);
    const login = await a.inject('/login');
    expect(login.statusCode).toBe(429);
    expect(login.json()).toEqual({ error: 'too many logins' });
    expect(login.headers['ratelimit-limit']).toBe('1');
    await a.close();
  });

  it('global: false limits only the routes with a config.rateLimit; with a set of policies, a route names one', async () => {
    const limits = createPolicyGateways({
      id: 'plugin-set',
      design: 'shared-counter',
      gateways: 1,
      syncMs: 1_000,
      store: new MemoryStore(),
      policies: { search: { limit: 1, windowMs: 60_000 }, api: { limit: 5, windowMs: 60_000 } },
    });
    const a = app();
    await a.register(fleetlimitPlugin, { gateway: limits, global: false, policy: 'api' });
    a.get('/', async () => 'ok');
    a.get('/search', own({ policy: 'search' }), async () => 'found');
    for (let i = 0; i < 3; i++) {
      const r = await a.inject('/');
      expect(r.statusCode).toBe(200);
      expect(r.headers.ratelimit).toBeUndefined();
    }
    const s1 = await a.inject('/search');
    expect(s1.headers.ratelimit).toMatch(/^"search";r=0;t=\d+$/);
    expect((await a.inject('/search')).statusCode).toBe(429);
    expect(limits.stats()).toMatchObject({
      search: { decisions: { allowed: 1, limited: 1 } },
      api: { decisions: { allowed: 0, limited: 0 } },
    });
    await limits.stop();
  });

  it('refuses bad options at registration and a bad route option when the route is added, naming them', async () => {
    await expect(
      app().register(fleetlimitPlugin, {
        limit: 2,
        windowMs: 60_000,
        store: new MemoryStore(),
        gateways: 1,
        id: 'p',
        skipSuccessfulRequests: 'yes',
      } as unknown as FleetlimitPluginOptions),
    ).rejects.toThrow(/^skipSuccessfulRequests: must be true or false/);
    await expect(
      app().register(fleetlimitPlugin, {
        limit: 0,
        windowMs: 60_000,
        store: new MemoryStore(),
        gateways: 1,
        id: 'p',
      }),
    ).rejects.toThrow(/limit/);
    await expect(app().register(fleetlimitPlugin, {})).rejects.toThrow(/^gateway: give a gateway/);
    const limits = createPolicyGateways({
      id: 'plugin-bad',
      design: 'shared-counter',
      gateways: 1,
      syncMs: 1_000,
      store: new MemoryStore(),
      policies: { a: { limit: 1, windowMs: 60_000 } },
    });
    const a = app();
    await a.register(fleetlimitPlugin, { gateway: limits, policy: 'a' });
    expect(() => a.get('/x', own({ limit: 3 }), async () => 'x')).toThrow(
      /^config\.rateLimit: a route’s own limit/,
    );
    expect(() => a.get('/y', own('yes'), async () => 'y')).toThrow(
      /^config\.rateLimit: must be false or an object/,
    );
    expect(() => a.get('/z', { config: { fleetlimit: 'yes' } }, async () => 'z')).toThrow(
      /^config\.fleetlimit: must be false or an object/,
    );
  });

  it('config.fleetlimit: typed without a cast beside @fastify/rate-limit, and it wins over config.rateLimit', async () => {
    // @fastify/rate-limit's types are loaded in this file (own(), above): config.fleetlimit needs no cast
    const a = app();
    await a.register(fleetlimitPlugin, {
      limit: 3,
      windowMs: 60_000,
      store: new MemoryStore(),
      gateways: 1,
      id: 'plugin-own-name',
    });
    a.get('/login', { config: { fleetlimit: { limit: 1, message: 'slow down' } } }, async () => 'hi');
    // the other plugin's options stay its own: this route is limited by config.fleetlimit only
    a.get('/both', { config: { fleetlimit: false, rateLimit: { max: 1 } } }, async () => 'both');
    expect((await a.inject('/login')).statusCode).toBe(200);
    const r = await a.inject('/login');
    expect(r.statusCode).toBe(429);
    expect(r.body).toBe('slow down');
    for (let i = 0; i < 5; i++) expect((await a.inject('/both')).statusCode).toBe(200);
  });
});
