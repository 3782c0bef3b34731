import type { HttpFileOptions } from '../config-file.js';
import type { Decision } from '../gateway/decision.js';
import { AdmitLedger } from '../gateway/runtime/admit-ledger.js';
import type { AsyncGateway } from '../gateway/runtime/async-gateway.js';
import { DEFAULT_IPV6_SUBNET } from '../http/client-address.js';
import { limitedResponse, TOO_MANY_REQUESTS_BODY } from '../http/core.js';
import { headerBuilder, sfString } from '../http/headers.js';
import { peekHits } from '../http/store-hits.js';

/**
 * Of several decisions on one request (Envoy's descriptors, NGINX's `/decide/a,b`), the index of the
 * one that binds, whose headers the proxy passes on: the first rejection, else the admit with the
 * fewest left; -1 when there is none (null: not limited).
 */
export function bindingDecision(ds: readonly (Decision | null)[]): number {
  let b = -1;
  for (let i = 0; i < ds.length; i++) {
    const d = ds[i];
    if (d === null) continue;
    if (!d.allowed) return i;
    if (b < 0 || d.remaining < (ds[b] as Decision).remaining) b = i;
  }
  return b;
}

/** One policy of the sidecar: its gateway, its name in the headers and in Envoy's `current_limit`. */
export class PolicyDecider {
  private readonly build: (d: Decision, nowMs: number) => Record<string, string>;

  constructor(
    readonly gateway: AsyncGateway,
    /** The name in the RateLimit headers and `current_limit.name`. */
    readonly policyName: string,
    http: HttpFileOptions,
    private readonly clock: () => number,
  ) {
    this.ledger = gateway.refunds ? new AdmitLedger(gateway.options.policy.windowMs) : null;
    this.build = headerBuilder(
      gateway.options.policy,
      sfString(policyName, 'http.policyName'),
      http.legacyHeaders ?? false,
      http.standardHeaders ?? true,
    );
  }

  /**
   * The admits of the last window per key, for Envoy's `is_negative_hits` (refundHits); null when the
   * gateway cannot take admits back (its store has no refundAdmits).
   */
  readonly ledger: AdmitLedger | null;

  /** The gateway's decision for a checked key and cost (never rejects: the fail mode decides without the store). */
  decide(key: string, cost: number): Decision | Promise<Decision> {
    return this.gateway.admitNow(key, cost);
  }

  /** As decide, and an admit is kept for a refund that names only its key (Envoy's gRPC requests). */
  decideKept(key: string, cost: number): Decision | Promise<Decision> {
    const d = this.gateway.admitNow(key, cost);
    const ledger = this.ledger;
    if (ledger === null) return d;
    if (d instanceof Promise) {
      return d.then((v) => {
        ledger.keepAdmit(key, v, cost, this.gateway.now());
        return v;
      });
    }
    ledger.keepAdmit(key, d, cost, this.gateway.now());
    return d;
  }

  /**
   * Envoy's `is_negative_hits`: takes back up to `hits` of the key's admits of the last window on this
   * sidecar, oldest first (AdmitLedger.takeBack; nothing when it holds none: floored at zero, as
   * envoyproxy/ratelimit floors its counter), and answers the key's state after it as an admit that
   * counted nothing.
   */
  refundHits(key: string, hits: number): Decision {
    const gw = this.gateway;
    this.ledger?.takeBack(key, hits, gw.now(), (d, cost) => gw.refund(key, d, cost));
    // the key as the middleware's store reads it without counting (FleetlimitStore.get)
    const seen = peekHits(gw, key);
    const limit = gw.options.policy.limit;
    return seen === null
      ? { allowed: true, remaining: limit, resetMs: 0 }
      : { allowed: true, remaining: limit - seen.hits, resetMs: seen.waitMs };
  }

  headers(d: Decision): Record<string, string> {
    return this.build(d, this.clock());
  }
}

/**
 * What both protocols share: each policy's gateway, the RateLimit headers built as the middleware
 * builds them (the file's `http` section: policyName, legacyHeaders, standardHeaders) and the file's
 * choices for a bad key or cost. The proxy decides nothing; this is the one place a decision is made.
 */
export class Decider {
  readonly limitedStatus: number;
  /** The limited response's body and type: the file's `http.message`, else 'Too Many Requests'. */
  readonly limitedBody: string;
  readonly limitedContentType: string;
  readonly onInvalidKey: 'reject' | 'skip';
  readonly onInvalidCost: 'reject' | 'skip';
  /**
   * The prefix an IPv6 address in a key is keyed by (`http.ipv6Subnet`): a header's or a descriptor
   * entry's value that is an IPv6 address counts as its network, so a client rotating through its
   * /64 gets no fresh limit per address. false: each address alone.
   */
  readonly ipv6Subnet: number | false;
  /** Every policy by the name rules and paths use, the top-level one first. */
  readonly policies: ReadonlyMap<string, PolicyDecider>;
  /** The top-level policy: what `/decide` and a rule without `policy` are held to. */
  readonly default: PolicyDecider;
  /** Its name in the configuration (policyName, else 'default'). */
  readonly defaultName: string;

  /**
   * `gateways`: each policy's gateway by name, the top-level one (named `defaultPolicy`) among them.
   * The top-level policy's header name is `http.policyName`, else its policyName, else 'default'
   * (as before several policies); a named policy's is its name.
   */
  constructor(
    gateways: ReadonlyMap<string, AsyncGateway>,
    defaultPolicy: string,
    http: HttpFileOptions = {},
    clock: () => number = Date.now,
  ) {
    const policies = new Map<string, PolicyDecider>();
    for (const [name, gateway] of gateways) {
      const shown =
        name === defaultPolicy ? (http.policyName ?? gateway.options.policy.name ?? 'default') : name;
      policies.set(name, new PolicyDecider(gateway, shown, http, clock));
    }
    const d = policies.get(defaultPolicy);
    if (d === undefined) throw new Error(`fleetlimit sidecar: no gateway for the policy "${defaultPolicy}"`);
    this.policies = policies;
    this.default = d;
    this.defaultName = defaultPolicy;
    const limited = limitedResponse({ statusCode: http.statusCode, message: http.message });
    this.limitedStatus = limited.statusCode;
    this.limitedBody = limited.body ?? TOO_MANY_REQUESTS_BODY;
    this.limitedContentType = limited.contentType;
    this.onInvalidKey = http.onInvalidKey ?? 'reject';
    this.onInvalidCost = http.onInvalidCost ?? 'reject';
    this.ipv6Subnet = http.ipv6Subnet ?? DEFAULT_IPV6_SUBNET;
  }

  /** A policy by name, or undefined. */
  policy(name: string): PolicyDecider | undefined {
    return this.policies.get(name);
  }
}
