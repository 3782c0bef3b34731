import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import express from 'express';
import Fastify from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config.js';
import type { HttpLimited, LimitedResponseOptions } from '../../src/http/index.js';
import { expressRateLimit, fastifyRateLimit, withRateLimit } from '../../src/http/index.js';
import { close, listen, smallGateway } from '../support/http.js';

// Issue 20, "The 429 is yours": statusCode, message (string or JSON) and handler, as express-rate-limit
// names them, on every adapter; the default stays plain text.

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((c) => c()));
});

type Kind = 'express' | 'fastify' | 'node';

/** A response either adapter's handler can write: Express and node:http `res`, or Fastify's `reply`. */
interface Sink {
  status(code: number): void;
  json(body: unknown): void;
}

function sinkOf(kind: Kind, res: unknown): Sink {
  if (kind === 'fastify') {
    const reply = res as { code(n: number): unknown; type(t: string): unknown; send(b: string): unknown };
    let code = 200;
    return {
      status: (n) => void (code = n),
      json: (b) => {
        reply.code(code);
        reply.type('application/problem+json');
        reply.send(JSON.stringify(b));
      },
    };
  }
  const r = res as ServerResponse;
  return {
    status: (n) => void (r.statusCode = n),
    json: (b) => {
      r.setHeader('Content-Type', 'application/problem+json');
      r.end(JSON.stringify(b));
    },
  };
}

/** A server whose one route is limited (2 per minute per client) with the given 429 options. */
async function serve(kind: Kind, opts: LimitedResponseOptions<never, never>): Promise<string> {
  const { gw } = smallGateway();
  const o = opts as LimitedResponseOptions<unknown, unknown>;
  if (kind === 'express') {
    const app = express();
    app.use(expressRateLimit(gw, o));
    app.get('/', (_req, res) => res.send('ok'));
    const server = createServer(app);
    closers.push(() => close(server));
    return listen(server);
  }
  if (kind === 'fastify') {
    const app = Fastify();
    closers.push(() => app.close());
    app.addHook('onRequest', fastifyRateLimit(gw, o));
    app.get('/', async () => 'ok');
    return app.listen({ port: 0, host: '127.0.0.1' });
  }
  const server: Server = createServer(withRateLimit(gw, (_req: IncomingMessage, res) => res.end('ok'), o));
  closers.push(() => close(server));
  return listen(server);
}

/** The third request: the first refused. */
async function limited(url: string) {
  for (let i = 0; i < 2; i++) expect((await fetch(url)).status).toBe(200);
  const res = await fetch(url);
  return { status: res.status, headers: res.headers, body: await res.text() };
}

describe.each<Kind>(['express', 'fastify', 'node'])('the 429 on %s', (kind) => {
  it('is plain text by default', async () => {
    const r = await limited(await serve(kind, {}));
    expect(r.status).toBe(429);
    expect(r.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(r.body).toBe('Too Many Requests\n');
    expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });

  it('takes a status and a string message', async () => {
    const r = await limited(await serve(kind, { statusCode: 503, message: 'slow down\n' }));
    expect(r.status).toBe(503);
    expect(r.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(r.body).toBe('slow down\n');
    expect(r.headers.get('ratelimit')).toMatch(/^"default";r=0;t=\d+$/);
  });

  it('sends an object message as JSON', async () => {
    const r = await limited(await serve(kind, { message: { error: 'rate_limited', retry: true } }));
    expect(r.status).toBe(429);
    expect(r.headers.get('content-type')).toMatch(/^application\/json/);
    expect(JSON.parse(r.body)).toEqual({ error: 'rate_limited', retry: true });
  });

  it('lets a handler take the response over, with the decision and the headers already set', async () => {
    const seen: HttpLimited[] = [];
    // typed HttpLimited: a 429's decision and key need no null check (they were `| null`, issue 36)
    const handler = (_req: unknown, res: unknown, d: HttpLimited) => {
      seen.push(d);
      const sink = sinkOf(kind, res);
      sink.status(429);
      sink.json({
        type: 'https://iana.org/assignments/http-problem-types#quota-exceeded',
        retryAfterMs: d.decision.retryAfterMs,
        key: d.key.length,
      });
    };
    const r = await limited(await serve(kind, { handler, statusCode: 418, message: 'unused' }));
    expect(r.status).toBe(429);
    expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(JSON.parse(r.body).type).toMatch(/quota-exceeded$/);
    expect(r.headers.get('retry-after')).not.toBeNull();
    expect(seen).toHaveLength(1);
    expect(seen[0].decision.allowed).toBe(false);
    expect(seen[0].status).toBe(429);
  });

  it('a handler that throws fails its request with a 500, not the server', async () => {
    const url = await serve(kind, {
      handler: () => {
        throw new Error('handler bug');
      },
    });
    const r = await limited(url);
    expect(r.status).toBe(500);
  });
});

describe('the 429 options are checked', () => {
  const { gw } = smallGateway();
  it.each<[string, LimitedResponseOptions<unknown, unknown>]>([
    ['statusCode', { statusCode: 200 }],
    ['statusCode', { statusCode: 429.5 }],
    ['message', { message: 42 as never }],
    ['message', { message: { big: 10n } as never }],
    ['handler', { handler: 'x' as never }],
  ])('a bad %s throws a ConfigError naming it', (field, o) => {
    for (const make of [
      () => expressRateLimit(gw, o),
      () => fastifyRateLimit(gw, o),
      () => withRateLimit(gw, () => {}, o),
    ]) {
      expect(make).toThrow(ConfigError);
      expect(make).toThrow(new RegExp(`^${field}:`));
    }
  });
});
