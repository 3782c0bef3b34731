// "5 failed logins per minute" on a two-instance Express fleet on one redis-server (issue 36):
// skipSuccessfulRequests through fleetlimit's own middleware and through express-rate-limit with
// FleetlimitStore, with an exact design (leases-ask, central-log). Logins alternate between the
// instances: successes are taken back, the fleet admits 5 failures in all, the sixth is limited on
// either instance, and Redis ends up counting exactly the 5 failures.
import type { Server } from 'node:http';
import express from 'express';
import { rateLimit } from 'express-rate-limit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { DesignId } from '../../src/config.js';
import { type AsyncGateway, createAsyncGateway } from '../../src/gateway/runtime/index.js';
import { expressRateLimit, FleetlimitStore } from '../../src/http/index.js';
import type { RedisStore } from '../../src/store/redis/index.js';
import { close, listen } from '../support/http.js';
import { type SingleFixture, singleServer, uniquePrefix } from '../support/redis-fixtures.js';

let fx: SingleFixture;
const servers: Server[] = [];
const gateways: AsyncGateway[] = [];
beforeAll(async () => {
  fx = await singleServer();
});
afterEach(async () => {
  await Promise.all(servers.splice(0).map(close));
  await Promise.all(gateways.splice(0).map((g) => g.stop()));
});
afterAll(async () => {
  await fx?.close();
});

const KEY = 'user:alice';

/** Two started gateways on one prefix; their timed syncs a window away (each synced once now). */
async function fleet(design: DesignId): Promise<{ gws: AsyncGateway[]; store: RedisStore }> {
  const prefix = uniquePrefix();
  const gws: AsyncGateway[] = [];
  for (let i = 0; i < 2; i++) {
    const gw = createAsyncGateway({
      id: `login-${i}`,
      design,
      limit: 5,
      windowMs: 60_000,
      gateways: 2,
      syncMs: 60_000,
      store: fx.store({ prefix }),
      // the first timed sync at the end of its interval: none lands mid-test
      random: () => 0.999,
    });
    gw.start();
    for (let tries = 0; tries < 50 && !(await gw.syncNow()); tries++)
      await new Promise((r) => setTimeout(r, 20));
    gws.push(gw);
    gateways.push(gw);
  }
  return { gws, store: fx.store({ prefix }) };
}

async function instance(mw: express.RequestHandler): Promise<string> {
  const app = express();
  app.post('/login', mw, (req, res) => {
    res.status(req.query.ok === '1' ? 200 : 401).send('done');
  });
  const server = app.listen(0, '127.0.0.1');
  servers.push(server);
  return `${await listen(server).catch(() => `http://127.0.0.1:${(server.address() as { port: number }).port}`)}/login`;
}

const post = async (url: string, ok: boolean) =>
  (await fetch(`${url}?ok=${ok ? 1 : 0}`, { method: 'POST' })).status;

/** The admits Redis counts for KEY, read as a gateway of its own would. */
async function counted(store: RedisStore, gw: AsyncGateway): Promise<number> {
  const r = await store.sync(
    {
      gatewayId: 'reader',
      seq: 1,
      policy: gw.options.policy,
      leaseTtlMs: 1_000,
      horizonMs: 1_000,
      entries: [{ key: KEY, admits: [], read: true, release: false, ask: 0 }],
    },
    0,
  );
  return r.replies[0].count;
}

async function loginRun(urls: string[], gws: AsyncGateway[], store: RedisStore): Promise<void> {
  const successes: number[] = [];
  for (let i = 0; i < 10; i++) successes.push(await post(urls[i % 2], true));
  expect(successes).toEqual(Array(10).fill(200));
  const failures: number[] = [];
  for (let i = 0; i < 5; i++) failures.push(await post(urls[i % 2], false));
  expect(failures).toEqual(Array(5).fill(401));
  expect([await post(urls[1], false), await post(urls[0], false), await post(urls[1], true)]).toEqual([
    429, 429, 429,
  ]);
  // every gateway pushes what it holds, and any refund still to send goes first
  for (let round = 0; round < 2; round++) for (const gw of gws) await gw.syncNow();
  expect(await counted(store, gws[0])).toBe(5);
}

describe('5 failed logins per minute, two Express instances on one redis-server', () => {
  for (const design of ['leases-ask', 'central-log'] as const) {
    it(`${design}, fleetlimit's middleware: successes taken back, 5 failures in the fleet`, async () => {
      const { gws, store } = await fleet(design);
      const urls = await Promise.all(
        gws.map((gw) =>
          instance(
            expressRateLimit(gw, {
              key: () => KEY,
              skipSuccessfulRequests: true,
            }) as unknown as express.RequestHandler,
          ),
        ),
      );
      await loginRun(urls, gws, store);
    });

    it(`${design}, express-rate-limit with FleetlimitStore: the same`, async () => {
      const { gws, store } = await fleet(design);
      const urls = await Promise.all(
        gws.map((gw) =>
          instance(
            rateLimit({
              windowMs: 60_000,
              limit: 5,
              keyGenerator: () => KEY,
              skipSuccessfulRequests: true,
              store: new FleetlimitStore(gw),
            }),
          ),
        ),
      );
      await loginRun(urls, gws, store);
    });
  }
});
