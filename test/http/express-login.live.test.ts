// Issue 31, as a new user met it: a login policy (5 per minute) over three gateways on one
// redis-server, leases-ask (the design `advise` picks for it), behind Express. The client's 200s count
// down 4, 3, 2, 1, 0 and its 429 says when the first login leaves the window (about 60 s, within
// Δ = 1 s), not `Retry-After: 1`, on its own gateway and on another once the first has synced.
import { createServer, type Server } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AsyncGateway, createAsyncGateway } from '../../src/gateway/runtime/index.js';
import { expressRateLimit } from '../../src/http/index.js';
import { close, listen } from '../support/http.js';
import { type SingleFixture, singleServer, uniquePrefix } from '../support/redis-fixtures.js';

let fx: SingleFixture;
const gateways: AsyncGateway[] = [];
const servers: Server[] = [];
const urls: string[] = [];

beforeAll(async () => {
  fx = await singleServer();
  const prefix = uniquePrefix();
  for (let i = 0; i < 3; i++) {
    const gw = createAsyncGateway({
      id: `login-${i}`,
      design: 'leases-ask',
      limit: 5,
      windowMs: 60_000,
      gateways: 3,
      syncMs: 1_000,
      store: fx.store({ prefix }),
    });
    gw.start();
    // its first sync learns the store's clock (until then it decides degraded); the client may still
    // be connecting for the first
    for (let tries = 0; tries < 50 && !(await gw.syncNow()); tries++) await sleep(20);
    gateways.push(gw);
    const app = express();
    app.use(expressRateLimit(gw, { policyName: 'login' }));
    app.post('/login', (_req, res) => {
      res.send('ok');
    });
    const server = createServer(app);
    servers.push(server);
    urls.push(`${await listen(server)}/login`);
  }
});
afterAll(async () => {
  await Promise.all(servers.map(close));
  await Promise.all(gateways.map((g) => g.stop()));
  await fx?.close();
});

describe('Express, leases-ask, 5 logins per minute over three gateways on Redis', () => {
  it('counts down 4, 3, 2, 1, 0 and answers the 429 with the true wait, on any gateway', async () => {
    const first = Date.now();
    const shown: string[] = [];
    for (let i = 0; i < 5; i++) {
      const r = await fetch(urls[0], { method: 'POST' });
      expect(r.status).toBe(200);
      shown.push(r.headers.get('ratelimit') ?? '');
      await r.arrayBuffer();
    }
    expect(shown.map((h) => h.replace(/;t=\d+$/, ''))).toEqual([4, 3, 2, 1, 0].map((n) => `"login";r=${n}`));
    // the first login leaves 60 s after it was made: whole seconds, rounded up, within Δ = 1 s
    const check = async (url: string) => {
      const limited = await fetch(url, { method: 'POST' });
      expect(limited.status).toBe(429);
      const trueWait = (first + 60_000 - Date.now()) / 1000;
      const retryAfter = Number(limited.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThanOrEqual(Math.floor(trueWait));
      expect(retryAfter).toBeLessThanOrEqual(Math.ceil(trueWait + 1));
      expect(limited.headers.get('ratelimit')).toMatch(/^"login";r=0;t=\d+$/);
      await limited.arrayBuffer();
    };
    await check(urls[0]);
    // once gateway 0 has pushed them, another gateway's answer is the same (its ask's reply says so)
    await gateways[0].syncNow();
    await check(urls[1]);
  });
});
