import type { PeerLike } from './client-address.js';
import {
  createRequestDecider,
  type HttpDecision,
  type LimitedResponseOptions,
  limitedResponse,
  type RateLimitHttpOptions,
  type RateLimitTarget,
  type ResponseLike,
  writeDecision,
} from './core.js';

/** The parts of Express's response the middleware uses (Express's `res` is a node ServerResponse). */
export type ExpressResponseLike = ResponseLike;

/** The Express middleware's options: the core ones and what a limited request gets. */
export type ExpressRateLimitOptions<Req, Res> = RateLimitHttpOptions<Req & PeerLike> &
  LimitedResponseOptions<Req, Res>;

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
): (req: Req, res: Res, next: (err?: unknown) => void) => void {
  const decide = createRequestDecider<Req>(gateway, opts);
  const limited = limitedResponse<Req, Res>(opts);
  return (req, res, next) => {
    const write = (o: HttpDecision) => {
      if (writeDecision(req, res, o, limited)) next();
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
