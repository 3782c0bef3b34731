import { createServer, type IncomingMessage, type Server } from 'node:http';
import express from 'express';
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config.js';
import { createPolicyGateways, type PolicyGateways } from '../../src/gateway/policies.js';
import { createAsyncGateway } from '../../src/gateway/runtime/index.js';
import {
  createRequestDecider,
  expressRateLimit,
  fastifyRateLimit,
  withRateLimit,
} from '../../src/http/index.js';
import { TestAsyncStore } from '../support/async-memory-store.js';
import { close, listen, smallGateway } from '../support/http.js';

// Issue 20: one gateway process, several named policies; the middleware picks one per request (a
// function of it) or per route, on Express, Fastify and node:http alike.

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((c) => c()));
});

function policySet(): PolicyGateways {
  return createPolicyGateways({
    id: 'http',
    design: 'split',
    gateways: 1,
    syncMs: 1_000,
    store: new TestAsyncStore(),
    policies: {
      free: { limit: 2, windowMs: 60_000 },
      pro: { limit: 4, windowMs: 60_000 },
      search: { limit: 3, windowMs: 10_000 },
    },
  });
}

const plan = (req: IncomingMessage) => (req.headers['x-plan'] as string | undefined) ?? 'free';

type Kind = 'express' | 'fastify' | 'node';

/** /api is held to the caller's plan (a function of the request), /search to its own policy (per route). */
async function serve(kind: Kind, set: PolicyGateways): Promise<string> {
  if (kind === 'express') {
    const app = express();
    app.get('/api', expressRateLimit(set, { policy: plan }), (_req, res) => res.send('ok'));
    app.get('/search', expressRateLimit(set, { policy: 'search' }), (_req, res) => res.send('ok'));
    // Express's default error handler logs the error; a test's fault is expected
    app.use((_err: unknown, _req: unknown, res: express.Response, _next: unknown) => res.status(500).end());
    const server = createServer(app);
    closers.push(() => close(server));
    return listen(server);
  }
  if (kind === 'fastify') {
    const app = Fastify();
    closers.push(() => app.close());
    const hook = fastifyRateLimit<FastifyRequest, FastifyReply>;
    app.get('/api', { onRequest: hook(set, { policy: (r) => plan(r.raw) }) }, async () => 'ok');
    app.get('/search', { onRequest: hook(set, { policy: 'search' }) }, async () => 'ok');
    return app.listen({ port: 0, host: '127.0.0.1' });
  }
  const api = withRateLimit(set, (_req, res) => res.end('ok'), { policy: plan });
  const search = withRateLimit(set, (_req, res) => res.end('ok'), { policy: 'search' });
  const server: Server = createServer((req, res) => (req.url === '/search' ? search : api)(req, res));
  closers.push(() => close(server));
  return listen(server);
}

async function get(url: string, headers: Record<string, string> = {}) {
  const res = await fetch(url, { headers });
  return { status: res.status, headers: res.headers, body: await res.text() };
}

describe.each<Kind>(['express', 'fastify', 'node'])('named policies on %s', (kind) => {
  it('picks the policy per request, names it in the headers, and keeps each policy’s count', async () => {
    const base = await serve(kind, policySet());
    const free = [await get(`${base}/api`), await get(`${base}/api`), await get(`${base}/api`)];
    expect(free.map((r) => r.status)).toEqual([200, 200, 429]);
    expect(free[0].headers.get('ratelimit-policy')).toBe('"free";q=2;w=60');
    expect(free[0].headers.get('ratelimit')).toMatch(/^"free";r=1;t=\d+$/);
    expect(free[2].headers.get('ratelimit')).toMatch(/^"free";r=0;t=\d+$/);
    const pro: number[] = [];
    for (let i = 0; i < 5; i++) pro.push((await get(`${base}/api`, { 'x-plan': 'pro' })).status);
    expect(pro).toEqual([200, 200, 200, 200, 429]);
    const p = await get(`${base}/api`, { 'x-plan': 'pro' });
    expect(p.headers.get('ratelimit-policy')).toBe('"pro";q=4;w=60');
    // a route of its own: its policy's count is untouched by /api's
    const search: number[] = [];
    for (let i = 0; i < 4; i++) search.push((await get(`${base}/search`)).status);
    expect(search).toEqual([200, 200, 200, 429]);
    expect((await get(`${base}/search`)).headers.get('ratelimit-policy')).toBe('"search";q=3;w=10');
  });

  it('an unknown policy name from the server’s function fails the request with a 500', async () => {
    const base = await serve(kind, policySet());
    expect((await get(`${base}/api`, { 'x-plan': 'gold' })).status).toBe(500);
    expect((await get(`${base}/api`, { 'x-plan': 'free' })).status).toBe(200);
  });
});

describe('the policy option', () => {
  it('names the unknown policy and the known ones', () => {
    const decide = createRequestDecider(policySet(), { policy: () => 'gold' });
    expect(() => decide({ headers: {}, socket: { remoteAddress: '127.0.0.1' } })).toThrow(
      /policy\(req\): no policy named "gold"; the policies are "free", "pro", "search"/,
    );
  });

  it('refuses bad configuration, naming the field', () => {
    const set = policySet();
    expect(() => createRequestDecider(set, { policy: 'gold' })).toThrow(ConfigError);
    expect(() => createRequestDecider(set, { policy: 'gold' })).toThrow(/^policy: no policy named "gold"/);
    expect(() => createRequestDecider(set)).toThrow(/^policy: with a set of policies/);
    expect(() => createRequestDecider(set, { policy: 'free', policyName: 'x' })).toThrow(/^policyName:/);
    expect(() => createRequestDecider(smallGateway().gw, { policy: 'free' })).toThrow(/^policy: needs a set/);
    expect(() => createRequestDecider({} as never)).toThrow(/^gateway:/);
  });

  it('a single gateway is named by policyName, or "default"', async () => {
    const out = await createRequestDecider(smallGateway().gw)({
      headers: {},
      socket: { remoteAddress: '127.0.0.1' },
    });
    expect(out.headers['RateLimit-Policy']).toBe('"default";q=2;w=60');
    expect(out.policy).toBeUndefined();
  });

  it("a single gateway's policyName names it in the headers, unless the middleware's policyName says otherwise", async () => {
    const gw = createAsyncGateway({
      id: 'named',
      design: 'split',
      limit: 2,
      windowMs: 60_000,
      gateways: 1,
      syncMs: 1_000,
      policyName: 'free',
      store: new TestAsyncStore(),
    });
    const req = { headers: {}, socket: { remoteAddress: '127.0.0.1' } };
    const out = await createRequestDecider(gw)(req);
    expect(out.headers['RateLimit-Policy']).toBe('"free";q=2;w=60');
    expect(out.headers.RateLimit).toMatch(/^"free";r=1;/);
    expect(out.policy).toBe('free');
    const renamed = await createRequestDecider(gw, { policyName: 'api' })(req);
    expect(renamed.headers['RateLimit-Policy']).toBe('"api";q=2;w=60');
  });
});
