import type { PeerLike } from './client-address.js';
import {
  createRequestDecider,
  type HttpDecision,
  type RateLimitGateway,
  type RateLimitHttpOptions,
  TOO_MANY_REQUESTS_BODY,
} from './core.js';

/** The parts of Express's response the middleware uses (Express's `res` is a node ServerResponse). */
export interface ExpressResponseLike {
  statusCode: number;
  setHeader(name: string, value: string): unknown;
  end(body: string): unknown;
}

/**
 * Express middleware (Express 4 and 5). Express's own `trust proxy` setting is not consulted: the
 * key comes from `trustedProxies` here, so one setting governs what the limiter believes.
 * Errors of the options' functions go to `next(err)`.
 */
export function expressRateLimit<Req extends PeerLike, Res extends ExpressResponseLike>(
  gateway: RateLimitGateway,
  opts?: RateLimitHttpOptions<Req>,
): (req: Req, res: Res, next: (err?: unknown) => void) => void {
  const decide = createRequestDecider<Req>(gateway, opts);
  return (req, res, next) => {
    try {
      const out = decide(req);
      if (out instanceof Promise) out.then((o) => finish(res, next, o), next);
      else finish(res, next, out);
    } catch (err) {
      next(err);
    }
  };
}

// out of the per-request closure: a closure made for every request is garbage on every request
function finish(res: ExpressResponseLike, next: (err?: unknown) => void, out: HttpDecision): void {
  for (const name in out.headers) res.setHeader(name, out.headers[name]);
  if (out.status === 429) {
    res.statusCode = 429;
    res.setHeader('Content-Type', 'text/plain; charset=utf-8');
    res.end(TOO_MANY_REQUESTS_BODY);
    return;
  }
  next();
}
