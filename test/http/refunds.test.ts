// Refunds through the front ends (issue 36), on MemoryStore over loopback HTTP: "5 failed logins per
// minute" with skipSuccessfulRequests (successful logins not counted) and its mirror,
// skipFailedRequests, on Express, Fastify and node:http, and express-rate-limit's own options with
// FleetlimitStore (its decrement).
import { createServer, type Server } from 'node:http';
import express from 'express';
import { rateLimit } from 'express-rate-limit';
import Fastify from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import type { DesignId } from '../../src/config.js';
import { type AsyncGateway, createAsyncGateway } from '../../src/gateway/runtime/index.js';
import {
  expressRateLimit,
  FleetlimitStore,
  fastifyRateLimit,
  fleetlimitPlugin,
  type RateLimitHttpOptions,
  withRateLimit,
} from '../../src/http/index.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import { close, listen } from '../support/http.js';

const servers: Server[] = [];
const gateways: AsyncGateway[] = [];
const apps: { close(): Promise<unknown> }[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map(close));
  await Promise.all(apps.splice(0).map((a) => a.close()));
  await Promise.all(gateways.splice(0).map((g) => g.stop()));
});

/**
 * One gateway, started; its syncs a window apart, so none lands mid-test (a refund of an admit the
 * store counts frees its slot from the next sync round: docs/refunds.md).
 */
function gateway(design: DesignId, limit = 5): AsyncGateway {
  const gw = createAsyncGateway({
    id: `login-${design}`,
    design,
    limit,
    windowMs: 60_000,
    gateways: 1,
    syncMs: 60_000,
    store: new MemoryStore(),
  });
  gateways.push(gw);
  gw.start();
  return gw;
}

/** A login route: `?ok=1` succeeds (200), anything else fails (401). */
function login(req: { url?: string }): number {
  return (req.url ?? '').includes('ok=1') ? 200 : 401;
}

async function expressApp(mw: express.RequestHandler): Promise<string> {
  const app = express();
  app.post('/login', mw, (req, res) => {
    res.status(login(req)).send('done');
  });
  const server = createServer(app);
  servers.push(server);
  return `${await listen(server)}/login`;
}

const post = async (url: string, ok: boolean) =>
  (await fetch(`${url}?ok=${ok ? 1 : 0}`, { method: 'POST' })).status;

/** 10 successful logins, then failed ones until limited: the statuses. */
async function loginRun(url: string): Promise<{ successes: number[]; failures: number[] }> {
  const successes: number[] = [];
  for (let i = 0; i < 10; i++) successes.push(await post(url, true));
  const failures: number[] = [];
  for (let i = 0; i < 7; i++) failures.push(await post(url, false));
  return { successes, failures };
}

// (leases gets its slots only at syncs, one at the first: its refunds are the same code as
// leases-ask's, checked in test/designs/refunds.property.test.ts)
describe('5 failed logins per minute: skipSuccessfulRequests', () => {
  for (const design of ['leases-ask', 'central-log', 'shared-counter', 'adaptive-early', 'split'] as const) {
    it(`${design}: successful logins are taken back, the sixth failure is limited, then successes too`, async () => {
      const gw = gateway(design);
      const url = await expressApp(
        expressRateLimit(gw, { skipSuccessfulRequests: true }) as unknown as express.RequestHandler,
      );
      const { successes, failures } = await loginRun(url);
      expect(successes).toEqual(Array(10).fill(200));
      expect(failures).toEqual([401, 401, 401, 401, 401, 429, 429]);
      // limited: a right password is limited too (it is not admitted, so nothing to take back)
      expect(await post(url, true)).toBe(429);
      expect(gw.stats().decisions.allowed).toBe(15);
    });
  }

  it('skipFailedRequests counts only successes; requestWasSuccessful decides what a success is', async () => {
    const gw = gateway('leases-ask', 3);
    const url = await expressApp(
      expressRateLimit(gw, { skipFailedRequests: true }) as unknown as express.RequestHandler,
    );
    for (let i = 0; i < 8; i++) expect(await post(url, false)).toBe(401);
    expect([await post(url, true), await post(url, true), await post(url, true)]).toEqual([200, 200, 200]);
    expect(await post(url, false)).toBe(429);

    const gw2 = gateway('central-log', 2);
    const url2 = await expressApp(
      expressRateLimit(gw2, {
        skipSuccessfulRequests: true,
        // a 401 is a "success" here: only 200s count
        requestWasSuccessful: async (_req, res) => res.statusCode === 401,
      }) as unknown as express.RequestHandler,
    );
    for (let i = 0; i < 5; i++) expect(await post(url2, false)).toBe(401);
    expect([await post(url2, true), await post(url2, true), await post(url2, true)]).toEqual([200, 200, 429]);
  });

  it('refuses the options with a gateway that cannot take admits back, naming the option', () => {
    const gw = gateway('shared-counter');
    const bare = { options: gw.options, admitNow: gw.admitNow.bind(gw) };
    expect(() => expressRateLimit(bare, { skipFailedRequests: true })).toThrow(
      /^skipFailedRequests: needs a gateway that takes admits back/,
    );
    // without the options, such a gateway is fine
    expect(() => expressRateLimit(bare, {})).not.toThrow();
  });

  it('Fastify (the hook on the reply) and node:http take successful logins back', async () => {
    const opts: RateLimitHttpOptions = { skipSuccessfulRequests: true };
    const fgw = gateway('leases-ask');
    const app = Fastify();
    apps.push(app);
    app.addHook('onRequest', fastifyRateLimit(fgw, { skipSuccessfulRequests: true }));
    app.post('/login', async (req, reply) => {
      reply.code(login(req)).send('done');
    });
    const furl = `${await app.listen({ port: 0, host: '127.0.0.1' })}/login`;
    const f = await loginRun(furl);
    expect(f.successes).toEqual(Array(10).fill(200));
    expect(f.failures).toEqual([401, 401, 401, 401, 401, 429, 429]);

    const ngw = gateway('shared-counter');
    const server = createServer(
      withRateLimit(
        ngw,
        (req, res) => {
          res.statusCode = login(req);
          res.end('done');
        },
        opts,
      ),
    );
    servers.push(server);
    const nurl = `${await listen(server)}/login`;
    const n = await loginRun(nurl);
    expect(n.successes).toEqual(Array(10).fill(200));
    expect(n.failures).toEqual([401, 401, 401, 401, 401, 429, 429]);
  });
});

describe('the Fastify plugin', () => {
  it("a route's own limit with skipSuccessfulRequests (a gateway made on its first request)", async () => {
    const app = Fastify();
    apps.push(app);
    await app.register(fleetlimitPlugin, {
      limit: 100,
      windowMs: 60_000,
      store: new MemoryStore(),
      gateways: 1,
      id: 'plugin',
    });
    app.post(
      '/login',
      { config: { rateLimit: { limit: 2, skipSuccessfulRequests: true } } } as object,
      async (req, reply) => {
        reply.code(login(req)).send('done');
      },
    );
    const codes: number[] = [];
    for (let i = 0; i < 6; i++)
      codes.push((await app.inject({ method: 'POST', url: '/login?ok=1' })).statusCode);
    for (let i = 0; i < 3; i++)
      codes.push((await app.inject({ method: 'POST', url: '/login?ok=0' })).statusCode);
    expect(codes).toEqual([200, 200, 200, 200, 200, 200, 401, 401, 429]);
  });
});

describe("express-rate-limit's skipSuccessfulRequests and skipFailedRequests with FleetlimitStore", () => {
  for (const design of ['leases-ask', 'central-log', 'shared-counter'] as const) {
    it(`${design}: decrement takes successful logins back`, async () => {
      const gw = gateway(design);
      const url = await expressApp(
        rateLimit({
          windowMs: 60_000,
          limit: 5,
          skipSuccessfulRequests: true,
          store: new FleetlimitStore(gw),
        }),
      );
      const { successes, failures } = await loginRun(url);
      expect(successes).toEqual(Array(10).fill(200));
      expect(failures).toEqual([401, 401, 401, 401, 401, 429, 429]);
    });
  }

  it('skipFailedRequests: the decrement of a limited request takes nothing back', async () => {
    const gw = gateway('leases-ask', 3);
    const url = await expressApp(
      rateLimit({ windowMs: 60_000, limit: 3, skipFailedRequests: true, store: new FleetlimitStore(gw) }),
    );
    for (let i = 0; i < 6; i++) expect(await post(url, false)).toBe(401);
    expect([await post(url, true), await post(url, true), await post(url, true)]).toEqual([200, 200, 200]);
    // limited now: each 429 is decremented by express-rate-limit, and must free nothing
    for (let i = 0; i < 4; i++) expect(await post(url, true)).toBe(429);
    // a few turns of the event loop for any decrement the last responses made to land (no wall time)
    for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
    expect(await post(url, true)).toBe(429);
  });
});
