import type { AsyncGateway } from '../gateway/runtime/index.js';
import type { PeerLike } from './client-address.js';
import {
  createRequestDecider,
  eventsOf,
  type HttpDecision,
  type LimitedResponseOptions,
  limitedResponse,
  type RateLimitHttpOptions,
  type RateLimitTarget,
  type ResponseLike,
  refundOptions,
  watchForRefund,
  writeDecision,
} from './core.js';
import {
  isOnePolicy,
  type OnePolicyOptions,
  onePolicyGateway,
  splitOnePolicy,
  withGateway,
} from './one-policy.js';

/** The parts of Express's response the middleware uses (Express's `res` is a node ServerResponse). */
export type ExpressResponseLike = ResponseLike;

/** The Express middleware's options: the core ones and what a limited request gets. */
export type ExpressRateLimitOptions<Req, Res> = RateLimitHttpOptions<Req & PeerLike> &
  LimitedResponseOptions<Req, Res>;

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
    const { gateway: g, middleware } = splitOnePolicy<ExpressRateLimitOptions<Req, Res>>(target);
    return withGateway(onePolicyGateway(g), (gw) => expressRateLimit<Req, Res>(gw, middleware));
  }
  const gateway = target;
  const opts = options;
  const decide = createRequestDecider<Req>(gateway, opts);
  const limited = limitedResponse<Req, Res>(opts);
  const refunds = refundOptions<Req, Res>(opts ?? {});
  return (req, res, next) => {
    const write = (o: HttpDecision) => {
      if (!writeDecision(req, res, o, limited)) return;
      watchForRefund(refunds, req, res, eventsOf(res), o);
      next();
    };
    try {
      const out = decide(req);
      if (out instanceof Promise) {
        out.then((o) => {
          try {
            write(o);
          } catch (err) {
            next(err);
          }
        }, next);
      } else write(out);
    } catch (err) {
      next(err);
    }
  };
}
