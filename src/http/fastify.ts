import type { AsyncGateway } from '../gateway/runtime/index.js';
import { type AdapterOptions, adapterParts, onOnePolicy } from './adapter.js';
import type { PeerLike } from './client-address.js';
import {
  eventsOf,
  type HttpDecision,
  type LimitedResponse,
  type RateLimitTarget,
  type RefundRule,
  TOO_MANY_REQUESTS_BODY,
  watchForRefund,
} from './core.js';
import { isOnePolicy, type OnePolicyOptions } from './one-policy.js';

/** The parts of Fastify's reply the hook uses. */
export interface FastifyReplyLike {
  header(name: string, value: string): unknown;
  code(status: number): unknown;
  send(payload: string): unknown;
  /** The node response under the reply (Fastify's `reply.raw`): the refund options watch it. */
  readonly raw?: unknown;
}

/** The Fastify hook's options: the core ones and what a limited request gets (`handler` must `reply.send`). */
export type FastifyRateLimitOptions<Req, Reply> = AdapterOptions<Req, Reply>;

/** One policy set on the hook: the gateway made and started for you, its `gateway` (see expressRateLimit). */
export function fastifyRateLimit<Req extends PeerLike, Reply extends FastifyReplyLike>(
  opts: OnePolicyOptions & FastifyRateLimitOptions<Req, Reply>,
): ((request: Req, reply: Reply, done: (err?: Error) => void) => void) & { gateway: AsyncGateway };
/**
 * A Fastify `onRequest` hook: `app.addHook('onRequest', fastifyRateLimit(gateway, opts))`, on the root
 * instance for every route or inside a plugin for its routes, or one route's own
 * (`app.get('/search', { onRequest: fastifyRateLimit(policies, { policy: 'search' }) }, handler)`).
 * A hook needs no fastify-plugin wrapper and no dependency on fastify. A bad key or cost is answered
 * 400 (onInvalidKey, onInvalidCost); an option's function that throws (and an unknown policy name
 * from `policy`) becomes a Fastify error (500).
 *
 * Callback style, not async: a local decision goes on to the route in the same turn, without a promise
 * per request (measured with autocannon on Fastify 5: the async hook cost about 4 µs more server CPU
 * per request, of ~30).
 */
export function fastifyRateLimit<Req extends PeerLike, Reply extends FastifyReplyLike>(
  gateway: RateLimitTarget,
  opts?: FastifyRateLimitOptions<Req, Reply>,
): (request: Req, reply: Reply, done: (err?: Error) => void) => void;
export function fastifyRateLimit<Req extends PeerLike, Reply extends FastifyReplyLike>(
  target: RateLimitTarget | (OnePolicyOptions & FastifyRateLimitOptions<Req, Reply>),
  options?: FastifyRateLimitOptions<Req, Reply>,
): (request: Req, reply: Reply, done: (err?: Error) => void) => void {
  if (isOnePolicy(target)) {
    return onOnePolicy(target, (gw, m: FastifyRateLimitOptions<Req, Reply>) =>
      fastifyRateLimit<Req, Reply>(gw, m),
    );
  }
  const { decide, limited, refunds } = adapterParts<Req, Reply>(target, options);
  return (request, reply, done) => {
    let out: HttpDecision | Promise<HttpDecision>;
    try {
      out = decide(request);
    } catch (err) {
      done(err as Error);
      return;
    }
    if (out instanceof Promise) out.then((o) => answer(request, reply, o, limited, refunds, done), done);
    else answer(request, reply, out, limited, refunds, done);
  };
}

/** Sets the headers and goes on, or answers 429 (or 400) and stops the request there (done is not called). */
function answer<Req, Reply extends FastifyReplyLike>(
  request: Req,
  reply: Reply,
  out: HttpDecision,
  limited: LimitedResponse<Req, Reply>,
  refunds: RefundRule<Req, Reply> | null,
  done: (err?: Error) => void,
): void {
  for (const name in out.headers) reply.header(name, out.headers[name]);
  if (out.status === 200) {
    // the reply's status, judged on its node response's events
    watchForRefund(refunds, request, reply, eventsOf(reply.raw), out);
    done();
    return;
  }
  if (out.status === 429) {
    if (limited.handler !== null) {
      try {
        limited.handler(request, reply, out);
      } catch (err) {
        done(err as Error);
      }
      return;
    }
    reply.code(limited.statusCode);
    reply.header('Content-Type', limited.contentType);
    reply.send(limited.body ?? out.body ?? TOO_MANY_REQUESTS_BODY);
    return;
  }
  reply.code(out.status);
  reply.header('Content-Type', 'text/plain; charset=utf-8');
  reply.send(out.body ?? TOO_MANY_REQUESTS_BODY);
}
