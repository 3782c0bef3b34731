import Fastify from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import type { PeerLike } from '../../src/http/client-address.js';
import type { FastifyReplyLike } from '../../src/http/fastify.js';
import { fastifyRateLimit } from '../../src/http/index.js';
import { get, smallGateway } from '../support/http.js';

const apps: ReturnType<typeof Fastify>[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((a) => a.close()));
});

describe('Fastify onRequest hook over real HTTP', () => {
  it('sends the headers, answers 429 with Retry-After, and honours trusted proxies', async () => {
    const { gw } = smallGateway('shared-counter');
    gw.start();
    const app = Fastify();
    apps.push(app);
    app.addHook('onRequest', fastifyRateLimit(gw, { trustedProxies: ['127.0.0.1'], policyName: 'api' }));
    let routeRuns = 0;
    app.get('/', async () => {
      routeRuns++;
      return 'ok';
    });
    const base = await app.listen({ port: 0, host: '127.0.0.1' });
    const url = `${base}/`;
    const a = await get(url, '192.0.2.44');
    expect(a.status).toBe(200);
    expect(a.headers.get('ratelimit-policy')).toBe('"api";q=2;w=60');
    expect(a.headers.get('ratelimit')).toMatch(/^"api";r=1;t=\d+$/);
    expect((await get(url, '::ffff:192.0.2.44')).status).toBe(200);
    const c = await get(url, '192.0.2.44');
    expect(c.status).toBe(429);
    expect(Number(c.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(routeRuns).toBe(2);
    expect((await get(url, '192.0.2.45')).status).toBe(200);
    await gw.stop();
  });

  it('waits on the store when the design does (central-log), 400 on a bad key, 500 when the key function throws', async () => {
    const { gw } = smallGateway('central-log');
    const app = Fastify();
    apps.push(app);
    app.addHook(
      'onRequest',
      fastifyRateLimit<{ url: string } & PeerLike, FastifyReplyLike>(gw, {
        key: (req) => {
          if (req.url === '/throws') throw new Error('key function bug');
          return req.url === '/bad' ? '' : 'k';
        },
      }),
    );
    let routeRuns = 0;
    app.get('/', async () => {
      routeRuns++;
      return 'ok';
    });
    app.get('/bad', async () => 'never');
    app.get('/throws', async () => 'never');
    const base = await app.listen({ port: 0, host: '127.0.0.1' });
    expect((await get(`${base}/`)).status).toBe(200);
    expect((await get(`${base}/`)).status).toBe(200);
    const c = await get(`${base}/`);
    expect(c.status).toBe(429);
    expect(Number(c.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(routeRuns).toBe(2);
    expect((await get(`${base}/bad`)).status).toBe(400);
    expect((await get(`${base}/throws`)).status).toBe(500);
  });
});
