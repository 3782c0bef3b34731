import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Decision } from '../gateway/decision.js';
import {
  createRequestDecider,
  type RateLimitGateway,
  type RateLimitHttpOptions,
  writeDecision,
} from './core.js';

/**
 * Calls `handler` for requests within the limit; answers 429 itself otherwise, and 400 to a request
 * whose key or cost is bad (onInvalidKey, onInvalidCost). Every decided response gets the RateLimit
 * headers. The handler's third argument is the gateway's decision (null when `skip`, or 'skip' for a
 * bad key or cost, let the request through). An option's function that throws costs its request a
 * 500, never the process.
 */
export function withRateLimit<Req extends IncomingMessage, Res extends ServerResponse>(
  gateway: RateLimitGateway,
  handler: (req: Req, res: Res, decision: Decision | null) => unknown,
  opts?: RateLimitHttpOptions<Req>,
): (req: Req, res: Res) => void {
  const decide = createRequestDecider<Req>(gateway, opts);
  return (req, res) => {
    try {
      const out = decide(req);
      if (out instanceof Promise) {
        out
          .then((o) => {
            if (writeDecision(res, o)) handler(req, res, o.decision);
          })
          .catch((err: unknown) => fail(res, err));
      } else if (writeDecision(res, out)) handler(req, res, out.decision);
    } catch (err) {
      fail(res, err);
    }
  };
}

function fail(res: ServerResponse, _err: unknown): void {
  // the server must keep serving: a bad key function costs this request, never the process
  if (res.headersSent) {
    res.destroy();
    return;
  }
  res.statusCode = 500;
  res.setHeader('Content-Type', 'text/plain; charset=utf-8');
  res.end('Internal Server Error\n');
}
