import type { AsyncGateway } from '../gateway/runtime/index.js';
import { type AdapterOptions, adapterParts, decideThen, onOnePolicy } from './adapter.js';
import type { PeerLike } from './client-address.js';
import {
  eventsOf,
  type HttpDecision,
  type RateLimitTarget,
  type ResponseLike,
  watchForRefund,
  writeDecision,
} from './core.js';
import { isOnePolicy, type OnePolicyOptions } from './one-policy.js';

/** The parts of Express's response the middleware uses (Express's `res` is a node ServerResponse). */
export type ExpressResponseLike = ResponseLike;

/** The Express middleware's options: the core ones and what a limited request gets. */
export type ExpressRateLimitOptions<Req, Res> = AdapterOptions<Req, Res>;

/**
 * One policy set on the middleware, as express-rate-limit takes it
 * (`expressRateLimit({ limit: 100, windowMs: 60_000, store, gateways: 3, id })`): the gateway is made
 * and started for you (OnePolicyOptions: `design` and `syncMs` chosen when left out) and is the
 * middleware's `gateway`, to `stop()` on shutdown. The other fields are the middleware's options.
 */
export function expressRateLimit<Req extends PeerLike, Res extends ExpressResponseLike>(
  opts: OnePolicyOptions & ExpressRateLimitOptions<Req, Res>,
): ((req: Req, res: Res, next: (err?: unknown) => void) => void) & { gateway: AsyncGateway };
/**
 * Express middleware (Express 4 and 5), for the whole app (`app.use`) or one route
 * (`app.get('/search', expressRateLimit(policies, { policy: 'search' }), handler)`): each instance
 * holds its own options. Express's own `trust proxy` setting is not consulted: the key comes from
 * `trustedProxies` here, so one setting governs what the limiter believes.
 * A bad key or cost is answered 400 (onInvalidKey, onInvalidCost), never passed to `next(err)`,
 * whose default handler would answer 500 with a stack trace; an option's function that throws (and
 * an unknown policy name from `policy`) goes to `next(err)`.
 */
export function expressRateLimit<Req extends PeerLike, Res extends ExpressResponseLike>(
  gateway: RateLimitTarget,
  opts?: ExpressRateLimitOptions<Req, Res>,
): (req: Req, res: Res, next: (err?: unknown) => void) => void;
export function expressRateLimit<Req extends PeerLike, Res extends ExpressResponseLike>(
  target: RateLimitTarget | (OnePolicyOptions & ExpressRateLimitOptions<Req, Res>),
  options?: ExpressRateLimitOptions<Req, Res>,
): (req: Req, res: Res, next: (err?: unknown) => void) => void {
  if (isOnePolicy(target)) {
    return onOnePolicy(target, (gw, m: ExpressRateLimitOptions<Req, Res>) =>
      expressRateLimit<Req, Res>(gw, m),
    );
  }
  const { decide, limited, refunds } = adapterParts<Req, Res>(target, options);
  return (req, res, next) => {
    const write = (o: HttpDecision) => {
      if (!writeDecision(req, res, o, limited)) return;
      watchForRefund(refunds, req, res, eventsOf(res), o);
      next();
    };
    decideThen(decide, req, write, next);
  };
}
