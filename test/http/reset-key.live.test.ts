// express-rate-limit's resetKey on a two-instance Express fleet on one redis-server (issue 36):
// "5 failed logins per minute" with FleetlimitStore and an exact design (leases-ask, central-log).
// Five failures across the instances limit both (429); limiter.resetKey on one instance resets the
// key at the store in that instance's next sync round, and the other instance admits the key again
// after its own next sync. Redis then counts only the admits made after the reset.
// On the shared fixture, whose gateways' clocks are caught up with Redis's before a test: a gateway's
// clock left ahead made the reset keep its admits, stamped after Redis's now (regression:
// test/regressions/express-pair-gateway-clock-ahead-outlives-reset.live.test.ts).
import express from 'express';
import { type RateLimitRequestHandler, rateLimit } from 'express-rate-limit';
import { describe, expect, it } from 'vitest';
import type { AsyncGateway } from '../../src/gateway/runtime/index.js';
import { FleetlimitStore } from '../../src/http/index.js';
import type { RedisStore } from '../../src/store/redis/index.js';
import { expressPairOnRedis } from '../support/express-pair.js';

const pair = expressPairOnRedis();
const fleet = (design: 'leases-ask' | 'central-log') => pair.fleet(design, 5, 'login');

const KEY = 'ip:10.0.0.7';

async function instance(limiter: RateLimitRequestHandler): Promise<string> {
  const app = express();
  app.post('/login', limiter, (req, res) => {
    res.status(req.query.ok === '1' ? 200 : 401).send('done');
  });
  return `${await pair.serve(app)}/login`;
}

const post = async (url: string, ok: boolean) =>
  (await fetch(`${url}?ok=${ok ? 1 : 0}`, { method: 'POST' })).status;

/** The admits Redis counts for KEY. */
const counted = (store: RedisStore, gw: AsyncGateway) => pair.counted(store, gw, KEY);

describe('express-rate-limit resetKey, two Express instances with FleetlimitStore on one redis-server', () => {
  for (const design of ['leases-ask', 'central-log'] as const) {
    it(`${design}: 5 failed logins → 429 on both; resetKey on one → the other admits after its next sync`, async () => {
      const { gws, store } = await fleet(design);
      const limiters = gws.map((gw) =>
        rateLimit({
          windowMs: 60_000,
          limit: 5,
          keyGenerator: () => KEY,
          skipSuccessfulRequests: true,
          store: new FleetlimitStore(gw),
        }),
      );
      const urls = await Promise.all(limiters.map(instance));
      const failures: number[] = [];
      for (let i = 0; i < 5; i++) failures.push(await post(urls[i % 2], false));
      expect(failures).toEqual(Array(5).fill(401));
      expect([await post(urls[0], false), await post(urls[1], false)]).toEqual([429, 429]);
      // every admit pushed: Redis counts the five
      for (const gw of gws) await gw.syncNow();
      expect(await counted(store, gws[0])).toBe(5);

      // the admin's reset, on instance 0: it lands in that instance's next sync round
      const reset = limiters[0].resetKey(KEY);
      await gws[0].syncNow();
      await reset;
      expect(gws[0].resetStats).toEqual({ sent: 1, pending: 0 });
      expect(await counted(store, gws[0])).toBe(0);
      // instance 1 from its next sync (leases-ask asks the store on a request from then; central-log
      // asks on every request)
      await gws[1].syncNow();
      expect(await post(urls[1], false)).toBe(401);
      expect(await post(urls[0], false)).toBe(401);
      for (const gw of gws) await gw.syncNow();
      expect(await counted(store, gws[0])).toBe(2);
    });
  }
});
