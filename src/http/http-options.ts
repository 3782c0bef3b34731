// The middleware's options and what it limits with, as a user writes them: types only, checked in
// decider-options.ts. Apart so the adapters and the config file can name them without the handler.
import type { Policy } from '../config.js';
import type { Decision } from '../gateway/decision.js';
import type { PeerLike } from './client-address.js';
import type { HeaderOptions } from './headers.js';
import type { HttpGoOn, HttpLimited } from './http-decision.js';

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
