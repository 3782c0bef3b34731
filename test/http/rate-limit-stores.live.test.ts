// The stores for express-rate-limit and @fastify/rate-limit, and fleetlimit's own middleware with the
// gateway made for it, each as a two-instance fleet on one redis-server (leases-ask: exact, so the
// fleet admits L in the window, not more). Every response's status is the gateway's decision: the
// 200s and 429s equal the two gateways' own counts of allowed and limited, exactly.
import type { Server } from 'node:http';
import rateLimit from '@fastify/rate-limit';
import express from 'express';
import { rateLimit as expressRateLimitPkg } from 'express-rate-limit';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { AsyncGateway } from '../../src/gateway/runtime/index.js';
import {
  expressRateLimit,
  FleetlimitStore,
  fleetlimitFastifyStore,
  fleetlimitPlugin,
  type RateLimitInfo,
} from '../../src/http/index.js';
import { close, listen } from '../support/http.js';
import { type SingleFixture, singleServer, uniquePrefix } from '../support/redis-fixtures.js';

let fx: SingleFixture;
const servers: Server[] = [];
const apps: FastifyInstance[] = [];
const stops: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  fx = await singleServer();
});
afterEach(async () => {
  await Promise.all(servers.splice(0).map(close));
  await Promise.all(apps.splice(0).map((a) => a.close()));
  await Promise.all(stops.splice(0).map((s) => s()));
});
afterAll(async () => {
  await fx?.close();
});

const L = 5;
const N = 16;

function decisions(gws: AsyncGateway[]) {
  let allowed = 0;
  let limited = 0;
  for (const g of gws) {
    const d = g.stats().decisions;
    allowed += d.allowed + d.degradedAllowed;
    limited += d.limited + d.degradedLimited;
  }
  return { allowed, limited };
}

function count(statuses: number[]) {
  return {
    allowed: statuses.filter((s) => s === 200).length,
    limited: statuses.filter((s) => s === 429).length,
  };
}

async function expressFleet(limiter: (i: number) => express.RequestHandler): Promise<string[]> {
  const urls: string[] = [];
  for (let i = 0; i < 2; i++) {
    const app = express();
    app.use(limiter(i));
    app.get('/', (_req, res) => {
      res.send('ok');
    });
    const server = app.listen(0, '127.0.0.1');
    servers.push(server);
    urls.push(
      await listen(server).catch(() => `http://127.0.0.1:${(server.address() as { port: number }).port}`),
    );
  }
  return urls;
}

async function alternate(urls: string[]): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < N; i++) {
    const r = await fetch(`${urls[i % 2]}/`);
    await r.arrayBuffer();
    statuses.push(r.status);
  }
  return statuses;
}

describe('two instances on one redis-server, leases-ask, L = 5 per minute', () => {
  it('express-rate-limit with FleetlimitStore', async () => {
    const store = fx.store({ prefix: uniquePrefix() });
    const stores = [0, 1].map(
      (i) => new FleetlimitStore({ id: `erl-${i}`, design: 'leases-ask', gateways: 2, store }),
    );
    stops.push(...stores.map((s) => () => s.shutdown()));
    const urls = await expressFleet((i) =>
      expressRateLimitPkg({ windowMs: 60_000, limit: L, standardHeaders: 'draft-7', store: stores[i] }),
    );
    const statuses = await alternate(urls);
    const gws = stores.map((s) => s.gateway as AsyncGateway);
    expect(count(statuses)).toEqual(decisions(gws));
    expect(count(statuses)).toEqual({ allowed: L, limited: N - L });
  });

  it('@fastify/rate-limit with fleetlimitFastifyStore', async () => {
    const store = fx.store({ prefix: uniquePrefix() });
    const stores = [0, 1].map((i) =>
      fleetlimitFastifyStore({ id: `frl-${i}`, design: 'leases-ask', gateways: 2, store }),
    );
    stops.push(...stores.map((s) => () => s.close()));
    for (const s of stores) {
      const app = Fastify();
      apps.push(app);
      await app.register(rateLimit, { max: L, timeWindow: '1 minute', store: s });
      app.get('/', async () => 'ok');
    }
    const statuses: number[] = [];
    for (let i = 0; i < N; i++) statuses.push((await apps[i % 2].inject({ url: '/' })).statusCode);
    const gws = stores.flatMap((s) => [...s.gateways.values()]);
    expect(gws).toHaveLength(2);
    expect(count(statuses)).toEqual(decisions(gws));
    expect(count(statuses)).toEqual({ allowed: L, limited: N - L });
  });

  it("fleetlimit's own middleware, the gateway made for it (design chosen: leases-ask below 5 K)", async () => {
    const store = fx.store({ prefix: uniquePrefix() });
    const limiters = [0, 1].map((i) =>
      expressRateLimit({ limit: L, windowMs: 60_000, store, gateways: 2, id: `own-${i}` }),
    );
    stops.push(...limiters.map((l) => () => l.gateway.stop()));
    expect(limiters[0].gateway.options.design).toBe('leases-ask');
    const urls = await expressFleet((i) => limiters[i] as unknown as express.RequestHandler);
    const statuses = await alternate(urls);
    const gws = limiters.map((l) => l.gateway);
    expect(count(statuses)).toEqual(decisions(gws));
    expect(count(statuses)).toEqual({ allowed: L, limited: N - L });
  });

  it("fleetlimit's Fastify plugin, the gateway made for it, and req.rateLimit counting down across the fleet", async () => {
    const store = fx.store({ prefix: uniquePrefix() });
    const fleet: FastifyInstance[] = [];
    for (let i = 0; i < 2; i++) {
      const app = Fastify();
      apps.push(app);
      fleet.push(app);
      await app.register(fleetlimitPlugin, {
        limit: L,
        windowMs: 60_000,
        store,
        gateways: 2,
        id: `plugin-${i}`,
      });
      app.get('/', async (req) => (req as unknown as { rateLimit: RateLimitInfo }).rateLimit.remaining);
    }
    const statuses: number[] = [];
    const remaining: string[] = [];
    for (let i = 0; i < N; i++) {
      const r = await fleet[i % 2].inject({ url: '/' });
      statuses.push(r.statusCode);
      if (r.statusCode === 200) remaining.push(r.body);
    }
    expect(count(statuses)).toEqual({ allowed: L, limited: N - L });
    // leases-ask asks the store for slots as each instance runs out: the fleet's count, not one instance's
    expect(remaining.map(Number).every((n) => n >= 0 && n < L)).toBe(true);
  });
});
