// FleetlimitStore under express-rate-limit 8, as its README and Store interface describe it: the
// middleware, its options, headers and handler unchanged, only the store swapped. Each request's
// status is checked against the gateway's own decision, and the totals against its counters.
import type { Server } from 'node:http';
import express from 'express';
import { rateLimit } from 'express-rate-limit';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { DesignId } from '../../src/config.js';
import { type AsyncGateway, createAsyncGateway } from '../../src/gateway/runtime/index.js';
import { FleetlimitStore } from '../../src/http/index.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import { close, listen } from '../support/http.js';

const servers: Server[] = [];
const gateways: AsyncGateway[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map(close));
  await Promise.all(gateways.splice(0).map((g) => g.stop()));
});

function gateway(design: DesignId = 'shared-counter', limit = 3): AsyncGateway {
  const gw = createAsyncGateway({
    id: 'erl',
    design,
    limit,
    windowMs: 60_000,
    gateways: 1,
    syncMs: 1_000,
    store: new MemoryStore(),
  });
  gateways.push(gw);
  return gw;
}

async function serve(app: express.Express): Promise<string> {
  const server = app.listen(0, '127.0.0.1');
  servers.push(server);
  return listen(server).catch(() => `http://127.0.0.1:${(server.address() as { port: number }).port}`);
}

async function appWith(limiter: express.RequestHandler): Promise<string> {
  const app = express();
  app.use(limiter);
  app.get('/', (req, res) => {
    res.json((req as unknown as { rateLimit: unknown }).rateLimit);
  });
  app.use((err: Error, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
    res.status(500).send(err.message);
  });
  return serve(app);
}

/** A logger that keeps what express-rate-limit logs (init errors are logged, not thrown). */
function logger() {
  const errors: unknown[] = [];
  return { errors, error: (e: unknown) => errors.push(e), warn: () => {} };
}

describe('FleetlimitStore under express-rate-limit', () => {
  for (const design of ['shared-counter', 'central-log', 'leases-ask'] as const) {
    it(`${design}: its limit, draft-7 and legacy headers, message, req.rateLimit, and totals exact against the gateway`, async () => {
      const gw = gateway(design);
      await gw.syncNow();
      const url = await appWith(
        rateLimit({
          windowMs: 60_000,
          limit: 3,
          standardHeaders: 'draft-7',
          legacyHeaders: true,
          keyGenerator: (req) => String(req.headers['x-key']),
          store: new FleetlimitStore(gw),
        }),
      );
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++) {
        const r = await fetch(url, { headers: { 'x-key': 'a' } });
        statuses.push(r.status);
        if (i === 0) {
          expect(r.headers.get('ratelimit')).toMatch(/^limit=3, remaining=2, reset=\d+$/);
          expect(r.headers.get('ratelimit-policy')).toBe('3;w=60');
          expect(r.headers.get('x-ratelimit-remaining')).toBe('2');
          expect(await r.json()).toMatchObject({ limit: 3, used: 1, remaining: 2, key: 'a' });
        } else if (r.status === 429) {
          // express-rate-limit's default message, and Retry-After from the store's resetTime
          expect(await r.text()).toBe('Too many requests, please try again later.');
          const retry = Number(r.headers.get('retry-after'));
          expect(retry).toBeGreaterThanOrEqual(1);
          expect(retry).toBeLessThanOrEqual(61); // W, and Δ more where the design waits for a sync
          expect(r.headers.get('ratelimit')).toMatch(/^limit=3, remaining=0, reset=\d+$/);
        } else await r.arrayBuffer();
      }
      expect(statuses).toEqual([200, 200, 200, 429, 429]);
      // another key has its own count
      expect((await fetch(url, { headers: { 'x-key': 'b' } })).status).toBe(200);
      const { allowed, limited, degradedAllowed, degradedLimited } = gw.stats().decisions;
      expect({ allowed: allowed + degradedAllowed, limited: limited + degradedLimited }).toEqual({
        allowed: 4,
        limited: 2,
      });
    });
  }

  it('draft-8 headers, a custom handler and statusCode, skip and max keep working', async () => {
    const gw = gateway('shared-counter', 2);
    const seen: { used: number; limit: number }[] = [];
    const url = await appWith(
      rateLimit({
        windowMs: 60_000,
        max: 2,
        standardHeaders: 'draft-8',
        legacyHeaders: false,
        skip: (req) => req.headers['x-skip'] === '1',
        handler: (req, res, _next, options) => {
          seen.push((req as unknown as { rateLimit: { used: number; limit: number } }).rateLimit);
          res.status(options.statusCode).send('slow down');
        },
        statusCode: 503,
        store: new FleetlimitStore(gw),
      }),
    );
    const first = await fetch(url);
    expect(first.headers.get('ratelimit')).toMatch(/^"2-in-1min"; r=1; t=\d+$/);
    await first.arrayBuffer();
    expect((await fetch(url, { headers: { 'x-skip': '1' } })).status).toBe(200);
    expect((await fetch(url)).status).toBe(200);
    const limited = await fetch(url);
    expect(limited.status).toBe(503);
    expect(await limited.text()).toBe('slow down');
    expect(seen).toEqual([expect.objectContaining({ limit: 2, used: 3 })]);
    expect(gw.stats().decisions).toMatchObject({ allowed: 2, limited: 1 });
  });

  it('the options form makes the gateway from express-rate-limit’s limit and windowMs; shutdown stops it', async () => {
    const store = new FleetlimitStore({ id: 'erl-own', gateways: 1, store: new MemoryStore() });
    const url = await appWith(rateLimit({ windowMs: 30_000, limit: 1, store }));
    expect(store.gateway?.options.policy).toMatchObject({ limit: 1, windowMs: 30_000 });
    expect((await fetch(url)).status).toBe(200);
    expect((await fetch(url)).status).toBe(429);
    expect((store.gateway as AsyncGateway).running).toBe(true);
    await store.shutdown();
    expect((store.gateway as AsyncGateway).running).toBe(false);
  });

  it('get reads the count without counting; decrement takes an admit back; resetKey forgets the key; resetAll forgets every key', async () => {
    const gw = gateway('shared-counter', 3);
    const store = new FleetlimitStore(gw);
    store.init({ limit: 3, windowMs: 60_000 });
    expect(store.get('k')).toBeUndefined();
    await store.increment('k');
    await store.increment('k');
    expect(store.get('k')).toMatchObject({ totalHits: 2 });
    expect(store.get('k')).toMatchObject({ totalHits: 2 });
    expect(store.localKeys).toBe(false);
    expect(store.prefix).toBe('fleetlimit:3/60000s:');
    await store.resetKey('k');
    expect(store.get('k')).toMatchObject({ totalHits: 0 });
    await store.increment('k');
    await store.increment('k');
    await store.increment('j');
    await store.resetAll();
    expect(store.get('k')).toMatchObject({ totalHits: 0 });
    expect(store.get('j')).toMatchObject({ totalHits: 0 });
    await store.increment('k');
    await store.increment('k');
    // without the refund options no decision is kept: a decrement takes nothing back
    await store.decrement('k');
    expect(store.get('k')).toMatchObject({ totalHits: 2 });
    const refunding = new FleetlimitStore(gateway('shared-counter', 3));
    refunding.init({ limit: 3, windowMs: 60_000, skipSuccessfulRequests: true });
    await refunding.increment('k');
    await refunding.increment('k');
    await refunding.decrement('k');
    expect(refunding.get('k')).toMatchObject({ totalHits: 1 });
    // a decrement of a key with nothing left takes nothing, and does not fail
    await refunding.decrement('k');
    await refunding.decrement('k');
    await refunding.decrement('other');
    expect(refunding.get('k')).toMatchObject({ totalHits: 0 });
  });

  it('refuses the refund options at init with a gateway whose store cannot take admits back', async () => {
    const mem = new MemoryStore();
    const noRefunds = {
      sync: mem.sync.bind(mem),
      logAdmit: mem.logAdmit.bind(mem),
      ask: mem.ask.bind(mem),
      voidLogAdmits: mem.voidLogAdmits.bind(mem),
    };
    const gw = createAsyncGateway({
      id: 'old',
      design: 'shared-counter',
      limit: 3,
      windowMs: 60_000,
      gateways: 1,
      syncMs: 1_000,
      store: noRefunds as unknown as MemoryStore,
    });
    gateways.push(gw);
    for (const f of ['skipSuccessfulRequests', 'skipFailedRequests']) {
      const log = logger();
      const url = await appWith(
        rateLimit({ limit: 3, windowMs: 60_000, [f]: true, logger: log, store: new FleetlimitStore(gw) }),
      );
      expect((log.errors[0] as Error).message).toMatch(
        new RegExp(`^${f}: needs a gateway that takes admits back`),
      );
      expect((await fetch(url)).status).toBe(500);
    }
    expect(gw.stats().decisions).toMatchObject({ allowed: 0, limited: 0 });
    // nor can that store reset a key: resetKey rejects, saying so (never a silent no-op)
    const store = new FleetlimitStore(gw);
    store.init({ limit: 3, windowMs: 60_000 });
    await expect(store.resetKey('k')).rejects.toThrow(
      /resetKey is not supported yet: the store has no operation/,
    );
  });

  const refused: [string, Record<string, unknown>, RegExp][] = [
    ['a limit other than the gateway’s', { limit: 10 }, /^limit: is 10 but the fleetlimit gateway's is 3/],
    ['max other than the gateway’s', { max: 4 }, /^max: is 4 but the fleetlimit gateway's is 3/],
    ['a windowMs other than the gateway’s', { limit: 3, windowMs: 1_000 }, /^windowMs: is 1000 but/],
    ['a limit function', { limit: () => 3 }, /^limit: a function of the request is not supported/],
  ];
  for (const [what, opts, message] of refused) {
    it(`refuses ${what} at init, and every request then fails with that error, counting nothing`, async () => {
      const gw = gateway('shared-counter', 3);
      const log = logger();
      const url = await appWith(
        rateLimit({ windowMs: 60_000, ...opts, logger: log, store: new FleetlimitStore(gw) }),
      );
      expect(log.errors).toHaveLength(1);
      expect((log.errors[0] as Error).message).toMatch(message);
      const r = await fetch(url);
      expect(r.status).toBe(500);
      expect(await r.text()).toMatch(message);
      expect(gw.stats().decisions).toMatchObject({ allowed: 0, limited: 0 });
    });
  }

  it('the options form refuses a bad gateway option at init, naming it', async () => {
    const log = logger();
    const spy = vi.fn();
    const url = await appWith(
      rateLimit({
        limit: 5,
        logger: {
          ...log,
          error: (e: unknown) => {
            spy();
            log.error(e);
          },
        },
        store: new FleetlimitStore({ id: '', gateways: 1, store: new MemoryStore() }),
      }),
    );
    expect(spy).toHaveBeenCalledOnce();
    expect((log.errors[0] as Error).message).toMatch(/^id: must be a non-empty string/);
    expect((await fetch(url)).status).toBe(500);
  });

  it('the options form with its own limit makes the gateway at once, and init checks express-rate-limit’s against it', async () => {
    expect(
      () =>
        new FleetlimitStore({ id: '', limit: 5, windowMs: 60_000, gateways: 1, store: new MemoryStore() }),
    ).toThrow(/^id: must be a non-empty string/);
    const store = new FleetlimitStore({
      id: 'eager',
      limit: 5,
      windowMs: 60_000,
      gateways: 1,
      store: new MemoryStore(),
    });
    expect(store.gateway?.options.policy).toMatchObject({ limit: 5, windowMs: 60_000 });
    expect(() => store.init({ limit: 6, windowMs: 60_000 })).toThrow(
      /^limit: is 6 but the fleetlimit gateway's is 5/,
    );
    await store.shutdown();
  });
});
