import { createServer, type IncomingMessage, type Server } from 'node:http';
import express from 'express';
import Fastify from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import type { PeerLike } from '../../src/http/client-address.js';
import type { RateLimitHttpOptions } from '../../src/http/index.js';
import { expressRateLimit, fastifyRateLimit, withRateLimit } from '../../src/http/index.js';
import { close, listen, smallGateway } from '../support/http.js';

/**
 * Issue 17, item 9: a key function returning undefined, '' or more than 1,024 characters, or a cost
 * function returning 0, −1, NaN, 1.5 or '', made the middleware answer 500 (Express: with a stack
 * trace): any client could make the server error at will. Now it is the client's error: 400 with a
 * one-line body saying what is wrong, or what `onInvalidKey` / `onInvalidCost` choose. And a cost
 * above the limit got a 429 whose Retry-After promised a retry that can never succeed: now the 429
 * has no Retry-After.
 */
type Req = PeerLike & { url?: string };
type Opts = RateLimitHttpOptions<Req>;

const BAD_KEYS: [string, unknown][] = [
  ['undefined', undefined],
  ['empty', ''],
  ['long', 'x'.repeat(1025)],
  ['number', 5],
];
const BAD_COSTS: [string, unknown][] = [
  ['zero', 0],
  ['negative', -1],
  ['nan', Number.NaN],
  ['fraction', 1.5],
  ['empty', ''],
  ['infinite', Number.POSITIVE_INFINITY],
];

/** /?key=NAME or /?cost=NAME picks a bad value; anything else is key 'k', cost 1. */
function param(req: Req, name: string): string | null {
  return new URL(req.url ?? '/', 'http://x').searchParams.get(name);
}
const keyFn = (req: Req) => {
  const p = param(req, 'key');
  return (p === null ? 'k' : BAD_KEYS.find(([n]) => n === p)?.[1]) as string;
};
const costFn = (req: Req) => {
  const p = param(req, 'cost');
  if (p !== null && /^\d+$/.test(p)) return Number(p);
  return (p === null ? 1 : BAD_COSTS.find(([n]) => n === p)?.[1]) as number;
};

const servers: Server[] = [];
const apps: ReturnType<typeof Fastify>[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map(close));
  await Promise.all(apps.splice(0).map((a) => a.close()));
});

type Framework = 'node' | 'express' | 'fastify';
async function serve(framework: Framework, opts: Opts) {
  const { gw } = smallGateway('shared-counter');
  const full: Opts = { key: keyFn, cost: costFn, ...opts };
  let handled = 0;
  if (framework === 'fastify') {
    const app = Fastify();
    apps.push(app);
    app.addHook('onRequest', fastifyRateLimit(gw, full));
    app.get('/', async () => {
      handled++;
      return 'ok';
    });
    const url = await app.listen({ port: 0, host: '127.0.0.1' });
    return { gw, url, handled: () => handled };
  }
  let server: Server;
  if (framework === 'express') {
    const app = express();
    app.use(expressRateLimit(gw, full));
    app.get('/', (_req, res) => {
      handled++;
      res.send('ok');
    });
    server = createServer(app);
  } else {
    server = createServer(
      withRateLimit(
        gw,
        (_req, res) => {
          handled++;
          res.end('ok');
        },
        full as RateLimitHttpOptions<IncomingMessage>,
      ),
    );
  }
  servers.push(server);
  return { gw, url: await listen(server), handled: () => handled };
}

async function get(url: string) {
  const res = await fetch(url);
  return { status: res.status, body: await res.text(), headers: res.headers };
}

describe('regression: a bad key or cost is the client’s error', () => {
  for (const framework of ['node', 'express', 'fastify'] as const) {
    it(`${framework}: 400 with a one-line body and no stack, by default`, async () => {
      const { url, handled } = await serve(framework, {});
      const cases = [
        ...BAD_KEYS.map(([n]) => [`key=${n}`, /key/] as const),
        ...BAD_COSTS.map(([n]) => [`cost=${n}`, /cost/] as const),
      ];
      for (const [q, what] of cases) {
        const r = await get(`${url}/?${q}`);
        expect(r.status, q).toBe(400);
        expect(r.body, q).toMatch(/^Bad Request: [^\n]+\n$/);
        expect(r.body, q).toMatch(what);
        expect(r.body, q).not.toMatch(/ at |\.ts:|\.js:/);
      }
      expect(handled()).toBe(0);
      expect((await get(url)).status).toBe(200);
    });

    it(`${framework}: onInvalidKey / onInvalidCost 'skip' let the request through unlimited`, async () => {
      const { gw, url, handled } = await serve(framework, { onInvalidKey: 'skip', onInvalidCost: 'skip' });
      for (let i = 0; i < 4; i++) {
        for (const q of ['key=empty', 'cost=nan']) {
          const r = await get(`${url}/?${q}`);
          expect(r.status, q).toBe(200);
          expect(r.headers.get('ratelimit')).toBeNull();
        }
      }
      expect(handled()).toBe(8);
      expect(gw.stats().decisions.allowed).toBe(0);
    });

    it(`${framework}: a function maps a bad key or cost to a fallback`, async () => {
      const problems: string[] = [];
      const { gw, url } = await serve(framework, {
        onInvalidKey: (_req, problem) => {
          problems.push(problem);
          return 'bad-keys';
        },
        onInvalidCost: () => 2,
      });
      // the fallback key has its own budget of 2
      expect((await get(`${url}/?key=undefined`)).status).toBe(200);
      expect((await get(`${url}/?key=long`)).status).toBe(200);
      expect((await get(`${url}/?key=empty`)).status).toBe(429);
      expect(problems).toHaveLength(3);
      expect(problems[1]).toMatch(/1025/);
      expect(gw.limiterFor('bad-keys')).toBeDefined();
      // a bad cost counts 2: the key's whole budget
      expect((await get(`${url}/?cost=fraction`)).status).toBe(200);
      expect((await get(`${url}/`)).status).toBe(429);
    });

    it(`${framework}: a cost above the limit gets a 429 without Retry-After`, async () => {
      const { url, gw } = await serve(framework, {});
      const r = await get(`${url}/?cost=3`);
      expect(r.status).toBe(429);
      expect(r.headers.get('retry-after')).toBeNull();
      expect(r.body).toMatch(/^Too Many Requests: [^\n]*cost 3[^\n]*limit[^\n]*\n$/);
      // nothing was counted: the key's budget is whole
      expect((await get(`${url}/?cost=2`)).status).toBe(200);
      expect(gw.stats().decisions).toMatchObject({ allowed: 1, limited: 1 });
      // an ordinary rejection still says when to come back
      const again = await get(`${url}/`);
      expect(again.status).toBe(429);
      expect(Number(again.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    });
  }
});
