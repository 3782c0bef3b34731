import { ConfigError, costProblem, keyProblem, MAX_KEY_LENGTH, type Policy } from '../config.js';
import type { Decision } from '../gateway/decision.js';
import { clientAddress, type PeerLike, TrustedProxies } from './client-address.js';
import { type HeaderOptions, headerBuilder, sfString } from './headers.js';

/** What the middleware needs of a gateway (an AsyncGateway satisfies it). */
export interface RateLimitGateway {
  readonly options: { readonly policy: Policy };
  /** Never rejects on store errors: the gateway's fail mode decides instead. */
  admitNow(key: string, cost?: number): Decision | Promise<Decision>;
}

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
   * The rate-limit key of a request; gets the client address as worked out below. A key that is not
   * a string of 1 to 1,024 characters goes to `onInvalidKey`. @default the client address
   */
  key?: (req: R, clientAddress: string) => string;
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
  /** For the legacy X-RateLimit-Reset only (absolute Unix seconds). @default Date.now */
  clock?: () => number;
}

export interface HttpDecision {
  /**
   * 429 when limited; 400 when the request's key or cost is bad (onInvalidKey, onInvalidCost); 200
   * means "go on" (the handler sets the real status).
   */
  status: 200 | 400 | 429;
  headers: Record<string, string>;
  /** null when skipped or bad. */
  key: string | null;
  decision: Decision | null;
  /** The body of a 400, or of a 429 that is not the usual one (a cost over the limit). */
  body?: string;
}

export type RequestDecider<R> = (req: R) => HttpDecision | Promise<HttpDecision>;

export const TOO_MANY_REQUESTS_BODY = 'Too Many Requests\n';

/** What the node:http and Express adapters write to (a node ServerResponse has all three). */
export interface ResponseLike {
  statusCode: number;
  setHeader(name: string, value: string): unknown;
  end(body: string): unknown;
}

/** Sets the decision's headers and answers a 429 or 400 itself; true when the request goes on to its handler. */
export function writeDecision(res: ResponseLike, out: HttpDecision): boolean {
  for (const name in out.headers) res.setHeader(name, out.headers[name]);
  if (out.status === 200) return true;
  res.statusCode = out.status;
  res.setHeader('Content-Type', 'text/plain; charset=utf-8');
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
 * when one of the options' own functions throws.
 */
export function createRequestDecider<R extends PeerLike>(
  gateway: RateLimitGateway,
  opts: RateLimitHttpOptions<R> = {},
): RequestDecider<R> {
  if (opts === null || typeof opts !== 'object') throw new ConfigError('options', 'must be an object');
  for (const f of ['key', 'cost', 'skip', 'clock'] as const) {
    if (opts[f] !== undefined && typeof opts[f] !== 'function') {
      throw new ConfigError(f, `must be a function, got ${typeof opts[f]}`);
    }
  }
  requireAction('onInvalidKey', opts.onInvalidKey);
  requireAction('onInvalidCost', opts.onInvalidCost);
  for (const f of ['legacyHeaders', 'standardHeaders'] as const) {
    if (opts[f] !== undefined && typeof opts[f] !== 'boolean') {
      throw new ConfigError(f, `must be true or false, got ${JSON.stringify(opts[f])}`);
    }
  }
  const trusted = new TrustedProxies(opts.trustedProxies ?? []);
  const name = sfString(opts.policyName ?? 'default');
  const legacy = opts.legacyHeaders ?? false;
  const clock = opts.clock ?? Date.now;
  const headers = headerBuilder(gateway.options.policy, name, legacy, opts.standardHeaders ?? true);
  const { key: keyOf, cost: costOf, skip } = opts;
  const onKey = opts.onInvalidKey ?? 'reject';
  const onCost = opts.onInvalidCost ?? 'reject';
  // the clock is read only for the legacy header that needs it
  const respond = (key: string, d: Decision, cost: number): HttpDecision => {
    const out: HttpDecision = {
      status: d.allowed ? 200 : 429,
      headers: headers(d, legacy ? clock() : 0),
      key,
      decision: d,
    };
    if (d.exceedsLimit === true) {
      out.body = `Too Many Requests: cost ${cost} is more than the limit admits in any window; it can never be admitted\n`;
    }
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
    const addr = clientAddress(req, trusted);
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
    const d = gateway.admitNow(key, cost);
    return d instanceof Promise ? d.then((v) => respond(key, v, cost)) : respond(key, d, cost);
  };
}

/** One request through the core handler. Prefer `createRequestDecider` once per route: it parses the options once. */
export function decideRequest<R extends PeerLike>(
  gateway: RateLimitGateway,
  req: R,
  opts?: RateLimitHttpOptions<R>,
): Promise<HttpDecision> {
  try {
    return Promise.resolve(createRequestDecider(gateway, opts)(req));
  } catch (err) {
    return Promise.reject(err);
  }
}
