import type { PeerLike } from './client-address.js';
import {
  createRequestDecider,
  type RateLimitGateway,
  type RateLimitHttpOptions,
  TOO_MANY_REQUESTS_BODY,
} from './core.js';

/** The parts of Fastify's reply the hook uses. */
export interface FastifyReplyLike {
  header(name: string, value: string): unknown;
  code(status: number): unknown;
  send(payload: string): unknown;
}

/**
 * A Fastify `onRequest` hook: `app.addHook('onRequest', fastifyRateLimit(gateway, opts))`, on the root
 * instance for every route or inside a plugin for its routes. A hook needs no fastify-plugin wrapper and
 * no dependency on fastify. Errors of the options' functions become Fastify errors (500).
 */
export function fastifyRateLimit<Req extends PeerLike, Reply extends FastifyReplyLike>(
  gateway: RateLimitGateway,
  opts?: RateLimitHttpOptions<Req>,
): (request: Req, reply: Reply) => Promise<Reply | undefined> {
  const decide = createRequestDecider<Req>(gateway, opts);
  return async (request, reply) => {
    const out = await decide(request);
    for (const name in out.headers) reply.header(name, out.headers[name]);
    if (out.status !== 429) return undefined;
    reply.code(429);
    reply.header('Content-Type', 'text/plain; charset=utf-8');
    reply.send(TOO_MANY_REQUESTS_BODY);
    // returning the reply tells Fastify the response is sent and the route must not run
    return reply;
  };
}
