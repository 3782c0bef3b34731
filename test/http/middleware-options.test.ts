// The options express-rate-limit and @fastify/rate-limit users reach for, on fleetlimit's own Express
// middleware over real HTTP (MemoryStore): allowList, onExceeding/onExceeded, req.rateLimit, the
// header styles, one policy set on the middleware, and bad values of the refund options refused.
import { createServer, type Server } from 'node:http';
import express from 'express';
import Fastify from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { createAsyncGateway } from '../../src/gateway/runtime/index.js';
import {
  expressRateLimit,
  fastifyRateLimit,
  type HttpDecision,
  type RateLimitInfo,
  withRateLimit,
} from '../../src/http/index.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import { close, listen } from '../support/http.js';

const servers: Server[] = [];
const stops: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map(close));
  await Promise.all(stops.splice(0).map((s) => s()));
});

async function serve(mw: express.RequestHandler): Promise<string> {
  const app = express();
  app.use(mw);
  app.get('/', (req, res) => {
    res.json((req as unknown as { rateLimit?: RateLimitInfo }).rateLimit ?? null);
  });
  const server = app.listen(0, '127.0.0.1');
  servers.push(server);
  return listen(server).catch(() => `http://127.0.0.1:${(server.address() as { port: number }).port}`);
}

const asHandler = (mw: unknown) => mw as express.RequestHandler;

describe('the middleware options from express-rate-limit and @fastify/rate-limit', () => {
  it('one policy on the middleware: the gateway made, draft-6 headers, req.rateLimit, the hooks, allowList', async () => {
    const seen: string[] = [];
    const limiter = expressRateLimit({
      limit: 2,
      windowMs: 60_000,
      store: new MemoryStore(),
      gateways: 1,
      id: 'mw',
      standardHeaders: 'draft-6',
      key: (req) => String(req.headers['x-key']),
      allowList: ['vip'],
      onExceeding: (_req: unknown, d: HttpDecision) => seen.push(`ok ${d.key}`),
      onExceeded: (_req: unknown, d: HttpDecision) => seen.push(`limited ${d.key}`),
    });
    stops.push(() => limiter.gateway.stop());
    expect(limiter.gateway.options.design).toBe('adaptive-early');
    expect(limiter.gateway.running).toBe(true);
    const url = await serve(asHandler(limiter));
    const get = (key: string) => fetch(url, { headers: { 'x-key': key } });
    const r1 = await get('a');
    expect(r1.headers.get('ratelimit-limit')).toBe('2');
    expect(r1.headers.get('ratelimit-remaining')).toBe('1');
    expect(Number(r1.headers.get('ratelimit-reset'))).toBeLessThanOrEqual(60);
    expect(r1.headers.get('ratelimit-policy')).toBe('2;w=60');
    expect(r1.headers.get('ratelimit')).toBeNull();
    const info = await r1.json();
    expect(info).toMatchObject({ limit: 2, used: 1, remaining: 1, key: 'a' });
    expect(Date.parse(info.resetTime)).toBeGreaterThan(Date.now() - 1_000);
    expect((await get('a')).status).toBe(200);
    const r3 = await get('a');
    expect(r3.status).toBe(429);
    expect(Number(r3.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    for (let i = 0; i < 4; i++) {
      const vip = await get('vip');
      expect(vip.status).toBe(200);
      expect(vip.headers.get('ratelimit-limit')).toBeNull();
      expect(await vip.json()).toBeNull();
    }
    expect(seen).toEqual(['ok a', 'ok a', 'limited a']);
    expect(limiter.gateway.stats().decisions).toMatchObject({ allowed: 2, limited: 1 });
  });

  it('the design chosen for a small limit is leases-ask; requestPropertyName moves or drops the decision', async () => {
    const small = expressRateLimit({
      limit: 5,
      windowMs: 60_000,
      store: new MemoryStore(),
      gateways: 3,
      id: 's',
    });
    stops.push(() => small.gateway.stop());
    expect(small.gateway.options.design).toBe('leases-ask');
    const gw = createAsyncGateway({
      id: 'prop',
      design: 'shared-counter',
      limit: 3,
      windowMs: 60_000,
      gateways: 1,
      syncMs: 1_000,
      store: new MemoryStore(),
    });
    const url = await serve(asHandler(expressRateLimit(gw, { requestPropertyName: false })));
    expect(await (await fetch(url)).json()).toBeNull();
  });

  const refused: [string, Record<string, unknown>, RegExp][] = [
    [
      'a skipSuccessfulRequests not true or false',
      { skipSuccessfulRequests: 'yes' },
      /^skipSuccessfulRequests: must be true or false/,
    ],
    [
      'a skipFailedRequests not true or false',
      { skipFailedRequests: 1 },
      /^skipFailedRequests: must be true or false/,
    ],
    [
      'a requestWasSuccessful not a function',
      { skipFailedRequests: true, requestWasSuccessful: 'status < 400' },
      /^requestWasSuccessful: must be a function/,
    ],
    [
      'a bad standardHeaders',
      { standardHeaders: 'draft-9' },
      /^standardHeaders: must be true, false, 'draft-6' or 'draft-8'/,
    ],
    ['a bad allowList', { allowList: 'vip' }, /^allowList: must be a list of keys or a function/],
    ['a bad onExceeded', { onExceeded: 'log' }, /^onExceeded: must be a function/],
  ];
  for (const [what, opts, message] of refused) {
    it(`refuses ${what} at setup, given a gateway or one policy`, () => {
      const gw = createAsyncGateway({
        id: 'bad',
        design: 'shared-counter',
        limit: 3,
        windowMs: 60_000,
        gateways: 1,
        syncMs: 1_000,
        store: new MemoryStore(),
      });
      expect(() => expressRateLimit(gw, opts)).toThrow(message);
      expect(() =>
        expressRateLimit({
          limit: 3,
          windowMs: 60_000,
          store: new MemoryStore(),
          gateways: 1,
          id: 'x',
          ...opts,
        }),
      ).toThrow(message);
    });
  }

  it('one policy on the Fastify hook and on withRateLimit: the gateway made, req.rateLimit set', async () => {
    const hook = fastifyRateLimit({
      limit: 1,
      windowMs: 60_000,
      store: new MemoryStore(),
      gateways: 1,
      id: 'hook',
    });
    stops.push(() => hook.gateway.stop());
    const app = Fastify();
    stops.push(() => app.close());
    app.addHook('onRequest', hook);
    app.get('/', async (req) => (req as unknown as { rateLimit: RateLimitInfo }).rateLimit);
    const first = await app.inject('/');
    expect(first.json()).toMatchObject({ limit: 1, used: 1, remaining: 0 });
    expect((await app.inject('/')).statusCode).toBe(429);
    expect(hook.gateway.stats().decisions).toMatchObject({ allowed: 1, limited: 1 });

    const handler = withRateLimit(
      { limit: 1, windowMs: 60_000, store: new MemoryStore(), gateways: 1, id: 'node' },
      (req, res) => res.end(JSON.stringify((req as unknown as { rateLimit: RateLimitInfo }).rateLimit)),
    );
    stops.push(() => handler.gateway.stop());
    const server = createServer(handler);
    servers.push(server);
    const url = await listen(server);
    expect(await (await fetch(url)).json()).toMatchObject({ limit: 1, used: 1, remaining: 0 });
    expect((await fetch(url)).status).toBe(429);
  });
});
