// The one core handler every HTTP adapter uses: request in, status and headers out. Its options,
// answers, policy routes and refund watch live beside it; re-exported here, the adapters' one import.
import type { Decision } from '../gateway/decision.js';
import { addressKey, clientAddress, type PeerLike } from './client-address.js';
import { type DeciderSetup, deciderSetup } from './decider-options.js';
import {
  badRequest,
  type HttpDecision,
  type HttpGoOn,
  type HttpLimited,
  type RequestDecider,
  SKIPPED,
} from './http-decision.js';
import type { RateLimitHttpOptions, RateLimitTarget } from './http-options.js';
import { type PolicyRoute, unknownPolicy } from './policy-routes.js';
import { RateLimitInfo } from './rate-limit-info.js';
import { type NotRead, requestReading, SKIP_REQUEST } from './request-reader.js';

export type {
  HttpBadRequest,
  HttpDecision,
  HttpGoOn,
  HttpLimited,
  RequestDecider,
} from './http-decision.js';
export type {
  InvalidCostAction,
  InvalidKeyAction,
  RateLimitGateway,
  RateLimitHttpOptions,
  RateLimitPolicies,
  RateLimitTarget,
} from './http-options.js';
export {
  DEFAULT_LIMITED,
  type LimitedResponse,
  type LimitedResponseOptions,
  limitedResponse,
  type ResponseLike,
  TOO_MANY_REQUESTS_BODY,
  writeDecision,
} from './limited-response.js';
export {
  eventsOf,
  type RefundRule,
  type ResponseEvents,
  refundOptions,
  watchForRefund,
} from './refund-watch.js';

/**
 * The one core handler every adapter uses: request in, status and headers out. Returns a value at once
 * when the gateway decides locally, a Promise when the request waits on the store. A bad key or cost
 * is the client's error (onInvalidKey, onInvalidCost: a 400 by default); it throws (or rejects) only
 * when one of the options' own functions throws, or `policy` names a policy the set does not have.
 * `target` is one gateway, or a set of named policies (PolicyGateways) with the `policy` option.
 */
export function createRequestDecider<R extends PeerLike>(
  target: RateLimitTarget,
  opts: RateLimitHttpOptions<R> = {},
): RequestDecider<R> {
  const setup = deciderSetup(target, opts);
  const respond = responder(setup, opts);
  const { trusted, ipv6Subnet, allowed, fixed, pick, routes, onKey, onCost } = setup;
  const { skip } = opts;
  const read = requestReading<R>({ key: opts.key, cost: opts.cost, onKey, onCost });
  return (req) => {
    if (skip?.(req)) return SKIPPED;
    const key = read.key(req, addressKey(clientAddress(req, trusted), ipv6Subnet));
    if (typeof key !== 'string') return notRead(key);
    if (allowed !== null && (typeof allowed === 'function' ? allowed(req, key) : allowed.has(key))) {
      return SKIPPED;
    }
    const cost = read.cost(req);
    if (typeof cost !== 'number') return notRead(cost);
    let route = fixed;
    if (route === null) {
      const name = pick!(req);
      route = routes.get(name) ?? unknownPolicy(name, routes);
    }
    const r = route;
    const d = r.gateway.admitNow(key, cost);
    return d instanceof Promise
      ? d.then((v) => respond(req, r, key, v, cost))
      : respond(req, r, key, d, cost);
  };
}

/** The answer to a decided request: its status and headers, with the options' hooks called. */
function responder<R extends PeerLike>(
  setup: DeciderSetup<R>,
  opts: RateLimitHttpOptions<R>,
): (req: R, route: PolicyRoute, key: string, d: Decision, cost: number) => HttpDecision {
  const { legacy, property, clock, refunds } = setup;
  const { onExceeding, onExceeded } = opts;
  // the clock is read only for the legacy header that needs it
  // (and for the request's RateLimitInfo, which measures resetTime from it)
  return (req, route, key, d, cost) => {
    const now = legacy || property !== null ? clock() : 0;
    const out: HttpGoOn | HttpLimited = {
      status: d.allowed ? 200 : 429,
      headers: route.headers(d, now),
      key,
      decision: d,
    } as HttpGoOn | HttpLimited;
    // only with a set of policies: one gateway's decisions keep the shape they had (measured: the
    // field on every decision cost ~10 ns of ~170 per request)
    if (route.name !== undefined) out.policy = route.name;
    if (refunds !== null && d.allowed && d.degraded !== true) {
      const gw = route.gateway;
      (out as HttpGoOn).refund = () => gw.refund!(key, d, cost);
    }
    if (d.exceedsLimit === true) {
      out.body = `Too Many Requests: cost ${cost} is more than the limit admits in any window; it can never be admitted\n`;
    }
    if (property !== null) {
      (req as Record<string, unknown>)[property] = new RateLimitInfo(
        route.gateway.options.policy.limit,
        key,
        d,
        now,
        route.name,
      );
    }
    if (out.status === 200) onExceeding?.(req, out);
    else onExceeded?.(req, out);
    return out;
  };
}

/** The answer to a request whose key or cost was not taken: skipped, or a 400 saying why. */
function notRead(n: NotRead): HttpDecision {
  return n === SKIP_REQUEST ? SKIPPED : badRequest(n.problem);
}

/** One request through the core handler. Prefer `createRequestDecider` once per route: it parses the options once. */
export function decideRequest<R extends PeerLike>(
  gateway: RateLimitTarget,
  req: R,
  opts?: RateLimitHttpOptions<R>,
): Promise<HttpDecision> {
  try {
    return Promise.resolve(createRequestDecider(gateway, opts)(req));
  } catch (err) {
    return Promise.reject(err);
  }
}
