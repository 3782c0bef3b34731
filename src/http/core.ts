import { ConfigError, costProblem, keyProblem, MAX_KEY_LENGTH, type Policy } from '../config.js';
import type { Decision } from '../gateway/decision.js';
import {
  addressKey,
  checkIpv6Subnet,
  clientAddress,
  DEFAULT_IPV6_SUBNET,
  type PeerLike,
  TrustedProxies,
} from './client-address.js';
import { type HeaderOptions, type HeaderStyle, headerBuilder, headerStyle, sfString } from './headers.js';
import { RateLimitInfo } from './rate-limit-info.js';

/** What the middleware needs of a gateway (an AsyncGateway satisfies it). */
export interface RateLimitGateway {
  readonly options: { readonly policy: Policy };
  /** Never rejects on store errors: the gateway's fail mode decides instead. */
  admitNow(key: string, cost?: number): Decision | Promise<Decision>;
  /** Whether `refund` can take admits back (AsyncGateway.refunds); needed by the refund options. */
  readonly refunds?: boolean;
  /** Takes an admitted request back (AsyncGateway.refund); needed by the refund options. */
  refund?(key: string, decision: Decision, cost?: number): boolean;
}

/** Several named policies, one gateway each (a PolicyGateways satisfies it). */
export interface RateLimitPolicies {
  readonly gateways: ReadonlyMap<string, RateLimitGateway>;
}

/** What a middleware limits with: one gateway (one policy), or a set of named policies. */
export type RateLimitTarget = RateLimitGateway | RateLimitPolicies;

/**
 * What the middleware does with a request whose key or cost, as the options' functions worked it out,
 * is not one the gateway takes: a bad value there comes from the request, so it is the client's error
 * (4xx), never the server's (a 500, with Express's stack trace, let any client make the server fail
 * at will).
 * - 'reject': answer 400 with a one-line body saying what is wrong (no stack, no headers);
 * - 'skip': let the request through unlimited, as `skip` does (no headers; the decision is null);
 * - a function: the value to use instead (e.g. one shared key for all such requests, or a cost of 1),
 *   given the request and the problem; if that value is no good either, the request gets the 400.
 */
export type InvalidKeyAction<R> = 'reject' | 'skip' | ((req: R, problem: string) => string);
/** As InvalidKeyAction, for the cost. */
export type InvalidCostAction<R> = 'reject' | 'skip' | ((req: R, problem: string) => number);

export interface RateLimitHttpOptions<R extends PeerLike = PeerLike> extends HeaderOptions {
  /**
   * The rate-limit key of a request; gets the client address as worked out below, as it is keyed
   * (an IPv6 address as its `ipv6Subnet` network). A key that is not a string of 1 to 1,024
   * characters goes to `onInvalidKey`. @default the client address, as it is keyed
   */
  key?: (req: R, clientAddress: string) => string;
  /**
   * The prefix an IPv6 client is keyed by: its address's network of this many bits, as
   * `2001:db8:1234:5600::/56`. A client holds a whole /64 or more and can send each request from
   * another address in it; keyed by the full address, each would get a limit of its own. An integer
   * from 32 to 64 (larger: more lenient; try 60 or 64 if distinct clients share a /56), or false to
   * key each IPv6 address alone. IPv4 addresses are keyed as they are. As express-rate-limit's
   * `ipv6Subnet`. @default 56
   */
  ipv6Subnet?: number | false;
  /**
   * Slots a request costs: a positive integer; anything else goes to `onInvalidCost`. A request
   * costing more than the limit can ever admit (L; split: ceil(L/K)) is answered at once with a 429
   * **without Retry-After**, since no retry can succeed, and a one-line body saying so; nothing is
   * counted and the store is not asked (Decision.exceedsLimit). @default 1
   */
  cost?: (req: R) => number;
  /** A key that is not a string of 1 to 1,024 characters: see InvalidKeyAction. @default 'reject' (400) */
  onInvalidKey?: InvalidKeyAction<R>;
  /** A cost that is not a positive integer (0, −1, NaN, 1.5, ''): see InvalidKeyAction. @default 'reject' (400) */
  onInvalidCost?: InvalidCostAction<R>;
  /**
   * Peers allowed to set X-Forwarded-For: IPs, CIDRs, or 'loopback', 'private', 'linklocal'. Without
   * it the header is ignored, since any client can send it. @default []
   */
  trustedProxies?: readonly string[];
  /** Requests that bypass the limit (no headers either). */
  skip?: (req: R) => boolean;
  /**
   * Take an admitted request back once its response shows it succeeded (`requestWasSuccessful`), so
   * only failures count: "5 failed logins per minute". As express-rate-limit's option. The gateway's
   * store must take admits back (MemoryStore, RedisStore; see AsyncGateway.refund). @default false
   */
  skipSuccessfulRequests?: boolean;
  /**
   * Take an admitted request back once its response shows it failed (`requestWasSuccessful` false),
   * or the connection closed before the response ended, so only successes count. As
   * express-rate-limit's option. @default false
   */
  skipFailedRequests?: boolean;
  /**
   * Whether a request succeeded, from its finished response (Fastify: the reply), for the two options
   * above; may return a Promise. If it throws (or rejects) the request stays counted.
   * @default (req, res) => res.statusCode < 400
   */
  requestWasSuccessful?: (req: R, res: { statusCode: number }) => boolean | Promise<boolean>;
  /**
   * Keys that bypass the limit, as `skip` does (no headers, no decision): a list of keys, or
   * `(req, key) => boolean`, called with the key once it is worked out. As @fastify/rate-limit's
   * `allowList`. @default none
   */
  allowList?: readonly string[] | ((req: R, key: string) => boolean);
  /**
   * Called for every request the limit admits, with its decision, before it goes on (as
   * @fastify/rate-limit's `onExceeding`); for logging or metrics: it must not answer the request.
   * If it throws, the request fails as when the `key` function throws. @default none
   */
  onExceeding?: (req: R, decision: HttpGoOn) => void;
  /**
   * Called for every request the limit rejects, with its decision, before the 429 is written (as
   * @fastify/rate-limit's `onExceeded`); for logging or metrics: `handler` answers the request. If it
   * throws, the request fails as when the `key` function throws. @default none
   */
  onExceeded?: (req: R, decision: HttpLimited) => void;
  /**
   * The request property the decision is put on (`req.rateLimit`: limit, used, remaining,
   * resetTime, key, as express-rate-limit sets it; see RateLimitInfo), so handlers further on can
   * read it; false: none. Not set on a skipped request. @default 'rateLimit'
   */
  requestPropertyName?: string | false;
  /** For the legacy X-RateLimit-Reset only (absolute Unix seconds). @default Date.now */
  clock?: () => number;
  /**
   * With a set of named policies (PolicyGateways): the policy a request is held to, by name, fixed
   * for this middleware (a route's) or a function of the request (a plan: `free`, `pro`). It is the
   * server's own code, so a name the set does not have is a fault, not the client's: the request
   * fails with an Error naming it and the known ones (Express: `next(err)`; Fastify and node:http: a
   * 500), and a fixed name is refused at once (ConfigError). Called after `skip`, `key` and `cost`.
   * Not allowed with one gateway. @default required with a set of policies
   */
  policy?: string | ((req: R) => string);
}

/**
 * What a limited request (429) gets, named as in express-rate-limit (`statusCode`, `message`,
 * `handler`). The RateLimit headers and Retry-After are set before any of it. A 400 for a bad key or
 * cost is not affected.
 */
export interface LimitedResponseOptions<Req, Res> {
  /** Status of a limited response: 400 to 599. @default 429 */
  statusCode?: number;
  /**
   * Body of a limited response: a string is sent as text/plain, anything else as JSON
   * (application/json), serialized once here. @default 'Too Many Requests\n', or for a cost over
   * the limit a line saying it can never be admitted
   */
  message?: string | Record<string, unknown> | readonly unknown[];
  /**
   * Takes the limited response over (statusCode and message are then unused): it must answer the
   * request (Express, node:http: `res.end`; Fastify: `reply.send`). It gets the decision (its policy,
   * key and the gateway's Decision). If it throws: Express `next(err)`, Fastify an error, node:http a 500.
   */
  handler?: (req: Req, res: Res, decision: HttpLimited) => unknown;
}

/** LimitedResponseOptions checked, with the body built once. */
export interface LimitedResponse<Req, Res> {
  statusCode: number;
  /** null: the decision's own body (the defaults). */
  body: string | null;
  contentType: string;
  handler: ((req: Req, res: Res, decision: HttpLimited) => unknown) | null;
}

const TEXT = 'text/plain; charset=utf-8';

/** Checks the limited-response options (a bad one throws a ConfigError naming it). */
export function limitedResponse<Req, Res>(
  opts: LimitedResponseOptions<Req, Res> = {},
): LimitedResponse<Req, Res> {
  const { statusCode = 429, message, handler } = opts;
  if (!Number.isInteger(statusCode) || statusCode < 400 || statusCode > 599) {
    throw new ConfigError(
      'statusCode',
      `must be an integer from 400 to 599, got ${JSON.stringify(statusCode)}`,
    );
  }
  if (handler !== undefined && typeof handler !== 'function') {
    throw new ConfigError('handler', `must be a function, got ${typeof handler}`);
  }
  let body: string | null = null;
  let contentType = TEXT;
  if (typeof message === 'string') body = message;
  else if (message !== undefined) {
    let json: string | undefined;
    try {
      json = message === null || typeof message !== 'object' ? undefined : JSON.stringify(message);
    } catch (e) {
      throw new ConfigError(
        'message',
        `must be a string or JSON-serializable, got an error: ${(e as Error).message}`,
      );
    }
    if (json === undefined) {
      throw new ConfigError('message', `must be a string or a JSON object or array, got ${typeof message}`);
    }
    body = json;
    contentType = 'application/json; charset=utf-8';
  }
  return { statusCode, body, contentType, handler: handler ?? null };
}

export const DEFAULT_LIMITED: LimitedResponse<unknown, unknown> = Object.freeze({
  statusCode: 429,
  body: null,
  contentType: TEXT,
  handler: null,
});

interface HttpDecisionCommon {
  headers: Record<string, string>;
  /** The body of a 400, or of a 429 that is not the usual one (a cost over the limit). */
  body?: string;
  /** With a set of named policies: the name of the one the request was held to. */
  policy?: string;
}

/** The request goes on (the handler sets the real status): decided, or skipped (no key, no decision). */
export interface HttpGoOn extends HttpDecisionCommon {
  status: 200;
  /** null when skipped. */
  key: string | null;
  decision: Decision | null;
  /**
   * With skipSuccessfulRequests or skipFailedRequests, an admitted request's refund: takes it back
   * (once; AsyncGateway.refund). The adapters call it when the response says so (watchForRefund).
   */
  refund?: () => boolean;
}

/** A limited request: always a key and the gateway's decision (what a 429 handler gets). */
export interface HttpLimited extends HttpDecisionCommon {
  status: 429;
  key: string;
  decision: Decision;
}

/** The request's key or cost is bad (onInvalidKey, onInvalidCost): nothing was decided. */
export interface HttpBadRequest extends HttpDecisionCommon {
  status: 400;
  key: null;
  decision: null;
}

/**
 * What the core handler answers for a request, by status: 200 "go on", 429 limited, 400 a bad key or
 * cost. Narrowing on `status` gives a 429's `decision` and `key` without a null check.
 */
export type HttpDecision = HttpGoOn | HttpLimited | HttpBadRequest;

export type RequestDecider<R> = (req: R) => HttpDecision | Promise<HttpDecision>;

export const TOO_MANY_REQUESTS_BODY = 'Too Many Requests\n';

/** What the node:http and Express adapters write to (a node ServerResponse has all three). */
export interface ResponseLike {
  statusCode: number;
  setHeader(name: string, value: string): unknown;
  end(body: string): unknown;
}

/**
 * Sets the decision's headers and answers a 429 (as `limited` says) or 400 itself; true when the
 * request goes on to its handler.
 */
export function writeDecision<Req, Res extends ResponseLike>(
  req: Req,
  res: Res,
  out: HttpDecision,
  limited: LimitedResponse<Req, Res> = DEFAULT_LIMITED,
): boolean {
  for (const name in out.headers) res.setHeader(name, out.headers[name]);
  if (out.status === 200) return true;
  if (out.status === 429) {
    if (limited.handler !== null) {
      limited.handler(req, res, out);
      return false;
    }
    res.statusCode = limited.statusCode;
    res.setHeader('Content-Type', limited.contentType);
    res.end(limited.body ?? out.body ?? TOO_MANY_REQUESTS_BODY);
    return false;
  }
  res.statusCode = out.status;
  res.setHeader('Content-Type', TEXT);
  res.end(out.body ?? TOO_MANY_REQUESTS_BODY);
  return false;
}

/** The longest problem a 400's body repeats: a bad value comes from the client and may be huge. */
const MAX_PROBLEM = 200;

/** A 400 for a bad key or cost: one line saying what is wrong, nothing from the server's insides. */
function badRequest(problem: string): HttpDecision {
  const line = problem.length > MAX_PROBLEM ? `${problem.slice(0, MAX_PROBLEM)}…` : problem;
  return { status: 400, headers: {}, key: null, decision: null, body: `Bad Request: ${line}\n` };
}

function requireAction(field: string, v: unknown): void {
  if (v !== undefined && v !== 'reject' && v !== 'skip' && typeof v !== 'function') {
    throw new ConfigError(field, `must be 'reject', 'skip' or a function, got ${JSON.stringify(v)}`);
  }
}

const SKIPPED: HttpDecision = Object.freeze({
  status: 200,
  headers: {},
  key: null,
  decision: null,
}) as HttpDecision;

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
  if (opts === null || typeof opts !== 'object') throw new ConfigError('options', 'must be an object');
  for (const f of ['key', 'cost', 'skip', 'clock'] as const) {
    if (opts[f] !== undefined && typeof opts[f] !== 'function') {
      throw new ConfigError(f, `must be a function, got ${typeof opts[f]}`);
    }
  }
  for (const f of ['onExceeding', 'onExceeded'] as const) {
    if (opts[f] !== undefined && typeof opts[f] !== 'function') {
      throw new ConfigError(f, `must be a function, got ${typeof opts[f]}`);
    }
  }
  const refunds = refundOptions(opts);
  requireAction('onInvalidKey', opts.onInvalidKey);
  requireAction('onInvalidCost', opts.onInvalidCost);
  if (opts.legacyHeaders !== undefined && typeof opts.legacyHeaders !== 'boolean') {
    throw new ConfigError(
      'legacyHeaders',
      `must be true or false, got ${JSON.stringify(opts.legacyHeaders)}`,
    );
  }
  const style = headerStyle(opts.standardHeaders);
  const allowed = allowListOf(opts.allowList);
  const property = propertyName(opts.requestPropertyName);
  const { onExceeding, onExceeded } = opts;
  const trusted = new TrustedProxies(opts.trustedProxies ?? []);
  const ipv6Subnet =
    opts.ipv6Subnet === undefined ? DEFAULT_IPV6_SUBNET : checkIpv6Subnet('ipv6Subnet', opts.ipv6Subnet);
  const legacy = opts.legacyHeaders ?? false;
  const clock = opts.clock ?? Date.now;
  const { fixed, pick, routes } = policyRoutes(target, opts, legacy, style);
  if (refunds !== null) {
    const field = refunds.successful ? 'skipSuccessfulRequests' : 'skipFailedRequests';
    if (fixed !== null) requireRefunds(fixed.gateway, field);
    for (const r of routes.values()) requireRefunds(r.gateway, field);
  }
  const { key: keyOf, cost: costOf, skip } = opts;
  const onKey = opts.onInvalidKey ?? 'reject';
  const onCost = opts.onInvalidCost ?? 'reject';
  // the clock is read only for the legacy header that needs it
  // (and for the request's RateLimitInfo, which measures resetTime from it)
  const respond = (req: R, route: PolicyRoute, key: string, d: Decision, cost: number): HttpDecision => {
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
  /** A bad key's replacement, or the answer to the request (a 400, or skipped). */
  const fixKey = (req: R, key: unknown): string | HttpDecision => {
    const problem = keyProblem(key) ?? 'key is not valid';
    if (onKey === 'skip') return SKIPPED;
    if (onKey === 'reject') return badRequest(problem);
    const k = onKey(req, problem);
    return keyProblem(k) === null ? k : badRequest(problem);
  };
  const fixCost = (req: R, cost: unknown): number | HttpDecision => {
    const problem = costProblem(cost) ?? 'cost is not valid';
    if (onCost === 'skip') return SKIPPED;
    if (onCost === 'reject') return badRequest(problem);
    const c = onCost(req, problem);
    return costProblem(c) === null ? c : badRequest(problem);
  };
  return (req) => {
    if (skip?.(req)) return SKIPPED;
    const addr = addressKey(clientAddress(req, trusted), ipv6Subnet);
    let key = addr;
    if (keyOf !== undefined) {
      const k: unknown = keyOf(req, addr);
      // the check written out (the common case); the rare bad key goes out of line
      if (typeof k === 'string' && k.length > 0 && k.length <= MAX_KEY_LENGTH) key = k;
      else {
        const fixed = fixKey(req, k);
        if (typeof fixed !== 'string') return fixed;
        key = fixed;
      }
    }
    if (allowed !== null && (typeof allowed === 'function' ? allowed(req, key) : allowed.has(key))) {
      return SKIPPED;
    }
    let cost = 1;
    if (costOf !== undefined) {
      const c: unknown = costOf(req);
      if (typeof c === 'number' && Number.isInteger(c) && c >= 1) cost = c;
      else {
        const fixed = fixCost(req, c);
        if (typeof fixed !== 'number') return fixed;
        cost = fixed;
      }
    }
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

/** The refund options checked (refundOptions): when to take an admitted request back. */
export interface RefundRule<Req, Res> {
  successful: boolean;
  failed: boolean;
  wasSuccessful: (req: Req, res: Res) => boolean | Promise<boolean>;
}

const STATUS_BELOW_400 = (_req: unknown, res: { statusCode: number }) => res.statusCode < 400;

/**
 * skipSuccessfulRequests, skipFailedRequests and requestWasSuccessful checked (a ConfigError naming
 * a bad one); null when neither skip option is on (nothing is ever taken back).
 */
export function refundOptions<Req, Res>(opts: object): RefundRule<Req, Res> | null {
  const o = opts as Record<string, unknown>;
  for (const f of ['skipSuccessfulRequests', 'skipFailedRequests'] as const) {
    if (o[f] !== undefined && typeof o[f] !== 'boolean') {
      throw new ConfigError(f, `must be true or false, got ${JSON.stringify(o[f])}`);
    }
  }
  const was = o.requestWasSuccessful;
  if (was !== undefined && typeof was !== 'function') {
    throw new ConfigError('requestWasSuccessful', `must be a function (req, res), got ${typeof was}`);
  }
  const successful = o.skipSuccessfulRequests === true;
  const failed = o.skipFailedRequests === true;
  if (!successful && !failed) return null;
  return {
    successful,
    failed,
    wasSuccessful:
      (was as RefundRule<Req, Res>['wasSuccessful'] | undefined) ??
      (STATUS_BELOW_400 as unknown as RefundRule<Req, Res>['wasSuccessful']),
  };
}

/** The gateway of each policy must take admits back for the refund options. */
function requireRefunds(gateway: RateLimitGateway, field: string): void {
  if (typeof gateway.refund !== 'function' || gateway.refunds !== true) {
    throw new ConfigError(
      field,
      'needs a gateway that takes admits back: an AsyncGateway on a store with refundAdmits (MemoryStore, RedisStore), or the split design',
    );
  }
}

/** What watchForRefund listens to: the node response under the adapter's (Express, node:http: itself; Fastify: reply.raw). */
export interface ResponseEvents {
  readonly writableEnded: boolean;
  once(event: 'finish' | 'close' | 'error', listener: () => void): unknown;
}

/** The node response's events, if `res` has them (Express's `res`, node:http's, Fastify's `reply.raw`). */
export function eventsOf(res: unknown): ResponseEvents | undefined {
  return typeof (res as Partial<ResponseEvents> | null)?.once === 'function'
    ? (res as ResponseEvents)
    : undefined;
}

/**
 * Takes an admitted request back when its response says so (`rule`, as express-rate-limit does):
 * skipSuccessfulRequests once it finished and `wasSuccessful(req, res)` said true;
 * skipFailedRequests once it finished and that said false, or the connection closed before the
 * response ended, or it failed. At most once. A request not admitted, or without a refund, is left
 * alone.
 */
export function watchForRefund<Req, Res>(
  rule: RefundRule<Req, Res> | null,
  req: Req,
  res: Res,
  events: ResponseEvents | undefined,
  out: HttpDecision,
): void {
  if (rule === null || out.status !== 200 || out.refund === undefined || events === undefined) return;
  const refund = out.refund;
  let done = false;
  const take = () => {
    if (done) return;
    done = true;
    refund();
  };
  events.once('finish', () => {
    let ok: boolean | Promise<boolean>;
    try {
      ok = rule.wasSuccessful(req, res);
    } catch {
      return; // the request stays counted
    }
    const judge = (v: boolean) => {
      if (v ? rule.successful : rule.failed) take();
    };
    if (typeof ok === 'boolean') judge(ok);
    else Promise.resolve(ok).then(judge, () => {});
  });
  if (rule.failed) {
    events.once('close', () => {
      if (!events.writableEnded) take();
    });
    events.once('error', take);
  }
}

function allowListOf<R>(v: unknown): Set<string> | ((req: R, key: string) => boolean) | null {
  if (v === undefined) return null;
  if (typeof v === 'function') return v as (req: R, key: string) => boolean;
  if (Array.isArray(v) && v.every((k) => typeof k === 'string')) return new Set(v);
  throw new ConfigError(
    'allowList',
    `must be a list of keys or a function (req, key), got ${JSON.stringify(v)}`,
  );
}

function propertyName(v: unknown): string | null {
  if (v === undefined) return 'rateLimit';
  if (v === false) return null;
  if (typeof v === 'string' && v.length > 0) return v;
  throw new ConfigError('requestPropertyName', `must be a property name or false, got ${JSON.stringify(v)}`);
}

/** One policy a middleware may hold a request to: its gateway, and its headers built once. */
interface PolicyRoute {
  gateway: RateLimitGateway;
  headers: (d: Decision, nowMs: number) => Record<string, string>;
  /** The policy's name, with a set of policies. */
  name: string | undefined;
}

function isGateway(t: RateLimitTarget): t is RateLimitGateway {
  return typeof (t as Partial<RateLimitGateway>).admitNow === 'function';
}

/**
 * The middleware's policies: one fixed (one gateway, or a set with a fixed `policy` name), or one per
 * name of the set, picked per request by `policy`. Every option error is a ConfigError naming it.
 */
function policyRoutes<R extends PeerLike>(
  target: RateLimitTarget,
  opts: RateLimitHttpOptions<R>,
  legacy: boolean,
  standard: HeaderStyle,
): { fixed: PolicyRoute | null; pick: ((req: R) => string) | null; routes: Map<string, PolicyRoute> } {
  const routes = new Map<string, PolicyRoute>();
  const { policy } = opts;
  if (target !== null && typeof target === 'object' && isGateway(target)) {
    if (policy !== undefined) {
      throw new ConfigError(
        'policy',
        'needs a set of named policies (createPolicyGateways); one gateway has one policy',
      );
    }
    const p = target.options.policy;
    const name = sfString(opts.policyName ?? p.name ?? 'default');
    const fixed = { gateway: target, headers: headerBuilder(p, name, legacy, standard), name: p.name };
    return { fixed, pick: null, routes };
  }
  const set = (target as Partial<RateLimitPolicies> | null)?.gateways;
  if (!(set instanceof Map) || set.size === 0) {
    throw new ConfigError(
      'gateway',
      'must be a gateway (createAsyncGateway) or a set of policies (createPolicyGateways)',
    );
  }
  if (opts.policyName !== undefined) {
    throw new ConfigError('policyName', 'comes from the policy names with a set of policies');
  }
  for (const [name, gateway] of set as ReadonlyMap<string, RateLimitGateway>) {
    const headers = headerBuilder(gateway.options.policy, sfString(name, 'policies'), legacy, standard);
    routes.set(name, { gateway, headers, name });
  }
  if (typeof policy === 'string') {
    const fixed = routes.get(policy);
    if (fixed === undefined) throw new ConfigError('policy', unknownPolicyMessage(policy, routes));
    return { fixed, pick: null, routes };
  }
  if (typeof policy !== 'function') {
    throw new ConfigError(
      'policy',
      `with a set of policies, must be a policy name or a function of the request giving one, got ${typeof policy}`,
    );
  }
  return { fixed: null, pick: policy, routes };
}

function unknownPolicyMessage(name: unknown, routes: Map<string, PolicyRoute>): string {
  const known = [...routes.keys()].map((n) => JSON.stringify(n)).join(', ');
  return `no policy named ${typeof name === 'string' ? JSON.stringify(name) : String(name)}; the policies are ${known}`;
}

/** The server's `policy` function named a policy the set does not have: a fault of the server's code, not a 4xx. */
function unknownPolicy(name: unknown, routes: Map<string, PolicyRoute>): never {
  throw new Error(`fleetlimit: policy(req): ${unknownPolicyMessage(name, routes)}`);
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
