import { createServer } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { withRateLimit } from '../../src/http/index.js';
import { close, get, listen, smallGateway } from '../support/http.js';

const servers: ReturnType<typeof createServer>[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map(close));
});

async function serve(...args: Parameters<typeof withRateLimit>) {
  const server = createServer(withRateLimit(...args));
  servers.push(server);
  return listen(server);
}

describe('node:http withRateLimit over real HTTP', () => {
  it('sends the RateLimit headers, then 429 with Retry-After once the key is spent', async () => {
    const { gw } = smallGateway();
    const url = await serve(gw, (_req, res) => res.end('ok'), { legacyHeaders: true });
    const a = await get(url);
    expect(a.status).toBe(200);
    expect(a.headers.get('ratelimit-policy')).toBe('"default";q=2;w=60');
    expect(a.headers.get('ratelimit')).toMatch(/^"default";r=1;t=\d+$/);
    expect(a.headers.get('x-ratelimit-limit')).toBe('2');
    expect((await get(url)).status).toBe(200);
    const c = await get(url);
    expect(c.status).toBe(429);
    expect(Number(c.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(c.headers.get('ratelimit')).toMatch(/^"default";r=0;t=\d+$/);
    expect(gw.limiterFor('127.0.0.1')).toBeDefined(); // the socket address is the default key
  });

  it('with standardHeaders false answers without RateLimit headers, a 429 still with Retry-After', async () => {
    const { gw } = smallGateway();
    const url = await serve(gw, (_req, res) => res.end('ok'), { standardHeaders: false });
    const a = await get(url);
    expect(a.status).toBe(200);
    expect(a.headers.get('ratelimit')).toBeNull();
    expect(a.headers.get('ratelimit-policy')).toBeNull();
    await get(url);
    const c = await get(url);
    expect(c.status).toBe(429);
    expect(c.headers.get('ratelimit')).toBeNull();
    expect(Number(c.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });

  it('names the option when standardHeaders is not a boolean', () => {
    const { gw } = smallGateway();
    expect(() => withRateLimit(gw, () => {}, { standardHeaders: 'no' as unknown as boolean })).toThrow(
      /standardHeaders/,
    );
  });

  it('keeps serving when the store fails: the fail mode decides', async () => {
    const { gw, store } = smallGateway('central-log');
    store.mode = 'fail';
    const url = await serve(gw, (_req, res) => res.end('ok'));
    expect((await get(url)).status).toBe(200);
    expect((await get(url)).status).toBe(200);
    expect((await get(url)).status).toBe(429);
    expect(gw.stats().decisions.degradedAllowed).toBe(2);
  });

  it('answers 500 instead of crashing when the key function throws; 400 when it returns a bad key', async () => {
    const { gw } = smallGateway();
    const url = await serve(gw, (_req, res) => res.end('ok'), {
      key: () => {
        throw new Error('key function bug');
      },
    });
    expect((await get(url)).status).toBe(500);
    const bad = await serve(gw, (_req, res) => res.end('ok'), { key: () => '' });
    expect((await get(bad)).status).toBe(400);
  });
});
