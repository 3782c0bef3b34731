import { ConfigError, type Policy } from '../config.js';
import type { Decision } from '../gateway/decision.js';
import { clientAddress, type PeerLike, TrustedProxies } from './client-address.js';
import { type HeaderOptions, headerBuilder, sfString } from './headers.js';

/** What the middleware needs of a gateway (an AsyncGateway satisfies it). */
export interface RateLimitGateway {
  readonly options: { readonly policy: Policy };
  /** Never rejects on store errors: the gateway's fail mode decides instead. */
  admitNow(key: string, cost?: number): Decision | Promise<Decision>;
}

export interface RateLimitHttpOptions<R extends PeerLike = PeerLike> extends HeaderOptions {
  /** The rate-limit key of a request; gets the client address as worked out below. @default the client address */
  key?: (req: R, clientAddress: string) => string;
  /** Slots a request costs (a positive integer). @default 1 */
  cost?: (req: R) => number;
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
  /** 429 when limited; 200 means "go on" (the handler sets the real status). */
  status: 200 | 429;
  headers: Record<string, string>;
  /** null when skipped. */
  key: string | null;
  decision: Decision | null;
}

export type RequestDecider<R> = (req: R) => HttpDecision | Promise<HttpDecision>;

export const TOO_MANY_REQUESTS_BODY = 'Too Many Requests\n';

/** What the node:http and Express adapters write to (a node ServerResponse has all three). */
export interface ResponseLike {
  statusCode: number;
  setHeader(name: string, value: string): unknown;
  end(body: string): unknown;
}

/** Sets the decision's headers and answers a 429 itself; true when the request goes on to its handler. */
export function writeDecision(res: ResponseLike, out: HttpDecision): boolean {
  for (const name in out.headers) res.setHeader(name, out.headers[name]);
  if (out.status !== 429) return true;
  res.statusCode = 429;
  res.setHeader('Content-Type', 'text/plain; charset=utf-8');
  res.end(TOO_MANY_REQUESTS_BODY);
  return false;
}

const SKIPPED: HttpDecision = Object.freeze({
  status: 200,
  headers: {},
  key: null,
  decision: null,
}) as HttpDecision;

/**
 * The one core handler every adapter uses: request in, status and headers out. Returns a value at once
 * when the gateway decides locally, a Promise when the request waits on the store. Throws (or rejects)
 * only on bad input from the options' own functions, e.g. a key function returning an empty key.
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
  // the clock is read only for the legacy header that needs it
  const respond = (key: string, d: Decision): HttpDecision => ({
    status: d.allowed ? 200 : 429,
    headers: headers(d, legacy ? clock() : 0),
    key,
    decision: d,
  });
  return (req) => {
    if (skip?.(req)) return SKIPPED;
    const addr = clientAddress(req, trusted);
    const key = keyOf === undefined ? addr : keyOf(req, addr);
    const d = gateway.admitNow(key, costOf === undefined ? 1 : costOf(req));
    return d instanceof Promise ? d.then((v) => respond(key, v)) : respond(key, d);
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
