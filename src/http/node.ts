import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Decision } from '../gateway/decision.js';
import type { AsyncGateway } from '../gateway/runtime/index.js';
import { adapterParts, decideThen, onOnePolicy } from './adapter.js';
import {
  type HttpDecision,
  type LimitedResponseOptions,
  type RateLimitHttpOptions,
  type RateLimitTarget,
  watchForRefund,
  writeDecision,
} from './core.js';
import { isOnePolicy, type OnePolicyOptions } from './one-policy.js';

/** withRateLimit's options: the core ones and what a limited request gets. */
export type NodeRateLimitOptions<Req, Res> = RateLimitHttpOptions<Req & IncomingMessage> &
  LimitedResponseOptions<Req, Res>;

/** One policy set on the wrapper: the gateway made and started for you, its `gateway` (see expressRateLimit). */
export function withRateLimit<Req extends IncomingMessage, Res extends ServerResponse>(
  opts: OnePolicyOptions & NodeRateLimitOptions<Req, Res>,
  handler: (req: Req, res: Res, decision: Decision | null) => unknown,
): ((req: Req, res: Res) => void) & { gateway: AsyncGateway };
/**
 * Calls `handler` for requests within the limit; answers 429 itself otherwise (or as `statusCode`,
 * `message` and the option `handler` say), and 400 to a request whose key or cost is bad
 * (onInvalidKey, onInvalidCost). Every decided response gets the RateLimit headers. The handler's
 * third argument is the gateway's decision (null when `skip`, or 'skip' for a bad key or cost, let
 * the request through). An option's function that throws, or an unknown policy name from `policy`,
 * costs its request a 500, never the process. Per route: wrap each route's handler with its own.
 */
export function withRateLimit<Req extends IncomingMessage, Res extends ServerResponse>(
  gateway: RateLimitTarget,
  handler: (req: Req, res: Res, decision: Decision | null) => unknown,
  opts?: NodeRateLimitOptions<Req, Res>,
): (req: Req, res: Res) => void;
export function withRateLimit<Req extends IncomingMessage, Res extends ServerResponse>(
  target: RateLimitTarget | (OnePolicyOptions & NodeRateLimitOptions<Req, Res>),
  handler: (req: Req, res: Res, decision: Decision | null) => unknown,
  options?: NodeRateLimitOptions<Req, Res>,
): (req: Req, res: Res) => void {
  if (isOnePolicy(target)) {
    return onOnePolicy(target, (gw, m: NodeRateLimitOptions<Req, Res>) =>
      withRateLimit<Req, Res>(gw, handler, m),
    );
  }
  const { decide, limited, refunds } = adapterParts<Req, Res>(target, options);
  const goOn = (req: Req, res: Res, o: HttpDecision) => {
    if (!writeDecision(req, res, o, limited)) return;
    watchForRefund(refunds, req, res, res, o);
    handler(req, res, o.decision);
  };
  return (req, res) => {
    decideThen(
      decide,
      req,
      (o) => goOn(req, res, o),
      (err) => fail(res, err),
    );
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
