import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Decision } from '../gateway/decision.js';
import {
  createRequestDecider,
  type HttpDecision,
  type RateLimitGateway,
  type RateLimitHttpOptions,
  TOO_MANY_REQUESTS_BODY,
} from './core.js';

/**
 * Calls `handler` for requests within the limit; answers 429 itself otherwise. Every response gets the
 * RateLimit headers. The handler's third argument is the gateway's decision (null when `skip` let the
 * request through).
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
        out.then((o) => finish(req, res, o, handler)).catch((err: unknown) => fail(res, err));
      } else finish(req, res, out, handler);
    } catch (err) {
      fail(res, err);
    }
  };
}

// out of the per-request closure: a closure made for every request is garbage on every request
function finish<Req extends IncomingMessage, Res extends ServerResponse>(
  req: Req,
  res: Res,
  out: HttpDecision,
  handler: (req: Req, res: Res, decision: Decision | null) => unknown,
): void {
  for (const name in out.headers) res.setHeader(name, out.headers[name]);
  if (out.status === 429) {
    res.statusCode = 429;
    res.setHeader('Content-Type', 'text/plain; charset=utf-8');
    res.end(TOO_MANY_REQUESTS_BODY);
    return;
  }
  handler(req, res, out.decision);
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
