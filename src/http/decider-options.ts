// createRequestDecider's options checked once, up front: every bad option is a ConfigError naming it,
// and what the per-request path needs comes out parsed (proxies, subnet, routes, actions).
import { ConfigError } from '../config.js';
import { checkIpv6Subnet, DEFAULT_IPV6_SUBNET, type PeerLike, TrustedProxies } from './client-address.js';
import { headerStyle } from './headers.js';
import type {
  InvalidCostAction,
  InvalidKeyAction,
  RateLimitHttpOptions,
  RateLimitTarget,
} from './http-options.js';
import { type PolicyRoute, policyRoutes } from './policy-routes.js';
import { type RefundRule, refundOptions, requireRefunds } from './refund-watch.js';

/** The options of one decider, checked and parsed. */
export interface DeciderSetup<R extends PeerLike> {
  refunds: RefundRule<unknown, unknown> | null;
  allowed: Set<string> | ((req: R, key: string) => boolean) | null;
  /** The request property the decision is put on, or null for none. */
  property: string | null;
  trusted: TrustedProxies;
  ipv6Subnet: number | false;
  legacy: boolean;
  clock: () => number;
  fixed: PolicyRoute | null;
  pick: ((req: R) => string) | null;
  routes: Map<string, PolicyRoute>;
  onKey: InvalidKeyAction<R>;
  onCost: InvalidCostAction<R>;
}

/** Checks `opts` against `target` (a bad one throws a ConfigError naming it) and parses them. */
export function deciderSetup<R extends PeerLike>(
  target: RateLimitTarget,
  opts: RateLimitHttpOptions<R>,
): DeciderSetup<R> {
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
  const refunds = refundOptions<unknown, unknown>(opts);
  requireAction('onInvalidKey', opts.onInvalidKey);
  requireAction('onInvalidCost', opts.onInvalidCost);
  if (opts.legacyHeaders !== undefined && typeof opts.legacyHeaders !== 'boolean') {
    throw new ConfigError(
      'legacyHeaders',
      `must be true or false, got ${JSON.stringify(opts.legacyHeaders)}`,
    );
  }
  const style = headerStyle(opts.standardHeaders);
  const allowed = allowListOf<R>(opts.allowList);
  const property = propertyName(opts.requestPropertyName);
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
  const onKey = opts.onInvalidKey ?? 'reject';
  const onCost = opts.onInvalidCost ?? 'reject';
  return {
    refunds,
    allowed,
    property,
    trusted,
    ipv6Subnet,
    legacy,
    clock,
    fixed,
    pick,
    routes,
    onKey,
    onCost,
  };
}

function requireAction(field: string, v: unknown): void {
  if (v !== undefined && v !== 'reject' && v !== 'skip' && typeof v !== 'function') {
    throw new ConfigError(field, `must be 'reject', 'skip' or a function, got ${JSON.stringify(v)}`);
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
