import type { Server } from 'node:http';
import express from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { expressRateLimit } from '../../src/http/index.js';
import { close, get, smallGateway } from '../support/http.js';

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map(close));
});

describe('Express middleware over real HTTP', () => {
  it('reads X-Forwarded-For only from trusted proxies, keys IPv4-mapped clients as IPv4, and answers 429', async () => {
    const { gw } = smallGateway();
    const app = express();
    app.use(expressRateLimit(gw, { trustedProxies: ['loopback'] }));
    app.get('/', (_req, res) => {
      res.send('ok');
    });
    const server = app.listen(0, '127.0.0.1');
    servers.push(server);
    await new Promise((r) => server.once('listening', r));
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/`;

    // the peer (127.0.0.1) is trusted, so the client is the first untrusted hop from the right
    expect((await get(url, '198.51.100.7')).status).toBe(200);
    expect((await get(url, '::ffff:198.51.100.7, 127.0.0.1')).status).toBe(200);
    const limited = await get(url, '203.0.113.1, 198.51.100.7');
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(limited.headers.get('ratelimit-policy')).toBe('"default";q=2;w=60');
    // another client behind the same proxy has its own budget
    const other = await get(url, '198.51.100.8');
    expect(other.status).toBe(200);
    expect(other.headers.get('ratelimit')).toMatch(/^"default";r=1;t=\d+$/);
    expect(gw.limiterFor('198.51.100.7')).toBeDefined();
    expect(gw.limiterFor('203.0.113.1')).toBeUndefined();
  });

  it('ignores X-Forwarded-For without trusted proxies', async () => {
    const { gw } = smallGateway();
    const app = express();
    app.use(expressRateLimit(gw));
    app.get('/', (_req, res) => {
      res.send('ok');
    });
    const server = app.listen(0, '127.0.0.1');
    servers.push(server);
    await new Promise((r) => server.once('listening', r));
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/`;
    expect((await get(url, '198.51.100.1')).status).toBe(200);
    expect((await get(url, '198.51.100.2')).status).toBe(200);
    expect((await get(url, '198.51.100.3')).status).toBe(429);
  });
});
