// The policy a request is held to: one gateway, or a set of named policies picked by the `policy`
// option; each with its header builder made once.
import { ConfigError } from '../config.js';
import type { Decision } from '../gateway/decision.js';
import type { PeerLike } from './client-address.js';
import { type HeaderStyle, headerBuilder, sfString } from './headers.js';
import type {
  RateLimitGateway,
  RateLimitHttpOptions,
  RateLimitPolicies,
  RateLimitTarget,
} from './http-options.js';

/** One policy a middleware may hold a request to: its gateway, and its headers built once. */
export interface PolicyRoute {
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
export function policyRoutes<R extends PeerLike>(
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
export function unknownPolicy(name: unknown, routes: Map<string, PolicyRoute>): never {
  throw new Error(`fleetlimit: policy(req): ${unknownPolicyMessage(name, routes)}`);
}
