// fleetlimitFastifyStore under @fastify/rate-limit 11, as its README and types describe the plugin:
// max, timeWindow, allowList, keyGenerator, errorResponseBuilder, per-route config.rateLimit and the
// onExceeding/onExceeded hooks unchanged, only the store swapped (app.inject, MemoryStore). Each
// response is checked against the gateway's decisions, the totals against its counters.
import rateLimit from '@fastify/rate-limit';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { type AsyncGateway, createAsyncGateway } from '../../src/gateway/runtime/index.js';
import { fleetlimitFastifyStore } from '../../src/http/index.js';
import { MemoryStore } from '../../src/store/memory-store.js';

const apps: FastifyInstance[] = [];
const gateways: AsyncGateway[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((a) => a.close()));
  await Promise.all(gateways.splice(0).map((g) => g.stop()));
});

function app(): FastifyInstance {
  const a = Fastify();
  apps.push(a);
  return a;
}

const hit = (a: FastifyInstance, url = '/', key = 'k') => a.inject({ url, headers: { 'x-key': key } });

function totals(gws: Iterable<AsyncGateway>) {
  let allowed = 0;
  let limited = 0;
  for (const g of gws) {
    const d = g.stats().decisions;
    allowed += d.allowed + d.degradedAllowed;
    limited += d.limited + d.degradedLimited;
  }
  return { allowed, limited };
}

describe('fleetlimitFastifyStore under @fastify/rate-limit', () => {
  it('max, timeWindow, keyGenerator, allowList, hooks, errorResponseBuilder and per-route config.rateLimit', async () => {
    const Store = fleetlimitFastifyStore({ id: 'frl', gateways: 1, store: new MemoryStore() });
    const a = app();
    a.addHook('onClose', Store.close);
    const exceeding: string[] = [];
    const exceeded: string[] = [];
    await a.register(rateLimit, {
      max: 3,
      timeWindow: 60_000,
      store: Store,
      keyGenerator: (req) => String(req.headers['x-key']),
      allowList: ['vip'],
      onExceeding: (_req, key) => exceeding.push(key),
      onExceeded: (_req, key) => exceeded.push(key),
      errorResponseBuilder: (_req, ctx) => ({
        statusCode: ctx.statusCode,
        error: 'slow down',
        after: ctx.after,
      }),
    });
    a.get('/', async () => 'ok');
    a.get('/login', { config: { rateLimit: { max: 1, timeWindow: '1 minute' } } }, async () => 'hi');
    a.get('/free', { config: { rateLimit: false } }, async () => 'free');

    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) {
      const r = await hit(a);
      statuses.push(r.statusCode);
      if (i === 0) {
        expect(r.headers['x-ratelimit-limit']).toBe('3');
        expect(r.headers['x-ratelimit-remaining']).toBe('2');
        expect(Number(r.headers['x-ratelimit-reset'])).toBeLessThanOrEqual(60);
      }
      if (r.statusCode === 429) {
        expect(r.json()).toMatchObject({ error: 'slow down' });
        expect(r.headers['x-ratelimit-remaining']).toBe('0');
        const retry = Number(r.headers['retry-after']);
        expect(retry).toBeGreaterThanOrEqual(1);
        expect(retry).toBeLessThanOrEqual(60);
      }
    }
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
    expect(exceeding).toEqual(['k', 'k', 'k']);
    expect(exceeded).toEqual(['k', 'k']);
    // the allow list and an exempt route are never counted
    for (let i = 0; i < 5; i++) expect((await hit(a, '/', 'vip')).statusCode).toBe(200);
    for (let i = 0; i < 5; i++) expect((await hit(a, '/free')).statusCode).toBe(200);
    // the route's own limit, on a counter of its own
    expect((await hit(a, '/login')).statusCode).toBe(200);
    const login = await hit(a, '/login');
    expect(login.statusCode).toBe(429);
    expect(login.headers['x-ratelimit-limit']).toBe('1');

    expect(Store.gateways.size).toBe(2);
    const [root, route] = [...Store.gateways.values()];
    expect(root.options.policy).toMatchObject({ limit: 3, windowMs: 60_000 });
    expect(route.options.policy).toMatchObject({ limit: 1, windowMs: 60_000 });
    expect(route.options.policy.name).toMatch(/^GET_login-[0-9a-f]{8}$/);
    expect(totals([root])).toEqual({ allowed: 3, limited: 2 });
    expect(totals([route])).toEqual({ allowed: 1, limited: 1 });
  });

  it('a gateway passed in: central-log, waiting on the store, with draft-spec headers', async () => {
    const gw = createAsyncGateway({
      id: 'frl-gw',
      design: 'central-log',
      limit: 2,
      windowMs: 10_000,
      gateways: 1,
      syncMs: 1_000,
      store: new MemoryStore(),
    });
    gateways.push(gw);
    const a = app();
    await a.register(rateLimit, {
      max: 2,
      timeWindow: 10_000,
      enableDraftSpec: true,
      store: fleetlimitFastifyStore(gw),
    });
    a.get('/', async () => 'ok');
    const r1 = await hit(a);
    expect(r1.headers['ratelimit-remaining']).toBe('1');
    expect((await hit(a)).statusCode).toBe(200);
    const r3 = await hit(a);
    expect(r3.statusCode).toBe(429);
    expect(r3.json()).toMatchObject({
      statusCode: 429,
      message: expect.stringMatching(/^Rate limit exceeded, retry in/),
    });
    expect(totals([gw])).toEqual({ allowed: 2, limited: 1 });
  });

  const refused: [string, Record<string, unknown>, RegExp][] = [
    [
      'a max other than the gateway’s',
      { max: 5, timeWindow: 10_000 },
      /^max: is 5 but the fleetlimit gateway's is 2/,
    ],
    [
      'a timeWindow other than the gateway’s',
      { max: 2, timeWindow: '1 minute' },
      /^timeWindow: is 60000 but/,
    ],
    [
      'a max function',
      { max: () => 2, timeWindow: 10_000 },
      /^max: a function of the request is not supported/,
    ],
    ['ban', { max: 2, timeWindow: 10_000, ban: 2 }, /^ban: is not supported/],
    [
      'continueExceeding',
      { max: 2, timeWindow: 10_000, continueExceeding: true },
      /^continueExceeding: is not supported/,
    ],
    [
      'exponentialBackoff',
      { max: 2, timeWindow: 10_000, exponentialBackoff: true },
      /^exponentialBackoff: is not supported/,
    ],
  ];
  for (const [what, opts, message] of refused) {
    it(`refuses ${what} at registration`, async () => {
      const gw = createAsyncGateway({
        id: 'frl-bad',
        design: 'shared-counter',
        limit: 2,
        windowMs: 10_000,
        gateways: 1,
        syncMs: 1_000,
        store: new MemoryStore(),
      });
      gateways.push(gw);
      const a = app();
      await expect(a.register(rateLimit, { ...opts, store: fleetlimitFastifyStore(gw) })).rejects.toThrow(
        message,
      );
    });
  }

  // made from options: the plugin's max and timeWindow must match the options' limit and window where
  // given, and a route's may differ (a gateway of its own) but never be a function of the request
  const refusedWithOptions: [string, Record<string, unknown>, Record<string, unknown> | null, RegExp][] = [
    ['a plugin max unlike the options’ limit', { limit: 5 }, null, /^max: is 2 but the store's is 5/],
    [
      'a plugin timeWindow unlike the options’ window',
      { windowMs: 20_000 },
      null,
      /^timeWindow: is 10000 but the store's is 20000/,
    ],
    [
      'a route’s max function',
      {},
      { max: () => 1, timeWindow: 10_000 },
      /^max: a function of the request is not supported/,
    ],
  ];
  for (const [what, extra, route, message] of refusedWithOptions) {
    it(`made from options, refuses ${what}`, async () => {
      const Store = fleetlimitFastifyStore({
        id: 'frl-opts',
        gateways: 1,
        store: new MemoryStore(),
        ...extra,
      });
      const a = app();
      a.addHook('onClose', Store.close);
      const registered = a.register(rateLimit, { max: 2, timeWindow: 10_000, store: Store });
      if (route === null) {
        await expect(registered).rejects.toThrow(message);
        return;
      }
      await registered;
      expect(() => a.get('/x', { config: { rateLimit: route } }, async () => 'x')).toThrow(message);
    });
  }
  it('made from options, a route with limits of its own unlike the options’ gets its own gateway', async () => {
    const Store = fleetlimitFastifyStore({ id: 'frl-own', gateways: 1, store: new MemoryStore(), limit: 2 });
    const a = app();
    a.addHook('onClose', Store.close);
    await a.register(rateLimit, { max: 2, timeWindow: 10_000, store: Store, keyGenerator: () => 'k' });
    a.get('/x', { config: { rateLimit: { max: 1, timeWindow: 10_000 } } }, async () => 'x');
    await a.ready();
    expect((await hit(a, '/x')).statusCode).toBe(200);
    expect((await hit(a, '/x')).statusCode).toBe(429);
  });

  it('refuses a route of its own limits when given one gateway, naming config.rateLimit', async () => {
    const gw = createAsyncGateway({
      id: 'frl-route',
      design: 'shared-counter',
      limit: 2,
      windowMs: 10_000,
      gateways: 1,
      syncMs: 1_000,
      store: new MemoryStore(),
    });
    gateways.push(gw);
    const a = app();
    await a.register(rateLimit, { max: 2, timeWindow: 10_000, store: fleetlimitFastifyStore(gw) });
    expect(() => a.get('/x', { config: { rateLimit: { max: 1 } } }, async () => 'x')).toThrow(
      /^config\.rateLimit: a route with limits of its own needs/,
    );
  });
});
