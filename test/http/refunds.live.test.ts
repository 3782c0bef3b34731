// "5 failed logins per minute" on a two-instance Express fleet on one redis-server (issue 36):
// skipSuccessfulRequests through fleetlimit's own middleware and through express-rate-limit with
// FleetlimitStore, with an exact design (leases-ask, central-log). Logins alternate between the
// instances: successes are taken back, the fleet admits 5 failures in all, the sixth is limited on
// either instance, and Redis ends up counting exactly the 5 failures.
import express from 'express';
import { rateLimit } from 'express-rate-limit';
import { describe, expect, it } from 'vitest';
import type { AsyncGateway } from '../../src/gateway/runtime/index.js';
import { expressRateLimit, FleetlimitStore } from '../../src/http/index.js';
import type { RedisStore } from '../../src/store/redis/index.js';
import { expressPairOnRedis } from '../support/express-pair.js';

const pair = expressPairOnRedis();
const fleet = (design: 'leases-ask' | 'central-log') => pair.fleet(design, 5, 'login');

const KEY = 'user:alice';

async function instance(mw: express.RequestHandler): Promise<string> {
  const app = express();
  app.post('/login', mw, (req, res) => {
    res.status(req.query.ok === '1' ? 200 : 401).send('done');
  });
  return `${await pair.serve(app)}/login`;
}

const post = async (url: string, ok: boolean) =>
  (await fetch(`${url}?ok=${ok ? 1 : 0}`, { method: 'POST' })).status;

const counted = (store: RedisStore, gw: AsyncGateway) => pair.counted(store, gw, KEY);

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
