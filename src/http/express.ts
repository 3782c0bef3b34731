import type { PeerLike } from './client-address.js';
import {
  createRequestDecider,
  type RateLimitGateway,
  type RateLimitHttpOptions,
  type ResponseLike,
  writeDecision,
} from './core.js';

/** The parts of Express's response the middleware uses (Express's `res` is a node ServerResponse). */
export type ExpressResponseLike = ResponseLike;

/**
 * Express middleware (Express 4 and 5). Express's own `trust proxy` setting is not consulted: the
 * key comes from `trustedProxies` here, so one setting governs what the limiter believes.
 * A bad key or cost is answered 400 (onInvalidKey, onInvalidCost), never passed to `next(err)`,
 * whose default handler would answer 500 with a stack trace; an option's function that throws goes
 * to `next(err)`.
 */
export function expressRateLimit<Req extends PeerLike, Res extends ExpressResponseLike>(
  gateway: RateLimitGateway,
  opts?: RateLimitHttpOptions<Req>,
): (req: Req, res: Res, next: (err?: unknown) => void) => void {
  const decide = createRequestDecider<Req>(gateway, opts);
  return (req, res, next) => {
    try {
      const out = decide(req);
      if (out instanceof Promise) {
        out.then((o) => {
          if (writeDecision(res, o)) next();
        }, next);
      } else if (writeDecision(res, out)) next();
    } catch (err) {
      next(err);
    }
  };
}
