import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Decision } from '../gateway/decision.js';
import type { AsyncGateway } from '../gateway/runtime/index.js';
import {
  createRequestDecider,
  type HttpDecision,
  type LimitedResponseOptions,
  limitedResponse,
  type RateLimitHttpOptions,
  type RateLimitTarget,
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
    const { gateway: g, middleware } = splitOnePolicy<NodeRateLimitOptions<Req, Res>>(target);
    return withGateway(onePolicyGateway(g), (gw) => withRateLimit<Req, Res>(gw, handler, middleware));
  }
  const gateway = target;
  const opts = options;
  const decide = createRequestDecider<Req>(gateway, opts);
  const limited = limitedResponse<Req, Res>(opts);
  const refunds = refundOptions<Req, Res>(opts ?? {});
  const goOn = (req: Req, res: Res, o: HttpDecision) => {
    watchForRefund(refunds, req, res, res, o);
    handler(req, res, o.decision);
  };
  return (req, res) => {
    try {
      const out = decide(req);
      if (out instanceof Promise) {
        out
          .then((o) => {
            if (writeDecision(req, res, o, limited)) goOn(req, res, o);
          })
          .catch((err: unknown) => fail(res, err));
      } else if (writeDecision(req, res, out, limited)) goOn(req, res, out);
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
