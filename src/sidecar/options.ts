import { ConfigChecks, ConfigError, requireKnownFields } from '../config.js';
import type { PolicyOptions } from '../gateway/policies.js';
import type { GatewayFileOptions } from '../gateway/runtime/async-options.js';
import { rules } from './descriptor-rules.js';
import { headerName, host, keyHeaders, knownPolicy, object, port } from './field-checks.js';
import { namedPolicies } from './named-policies.js';

export { MAX_POLICIES, policyCommon } from './named-policies.js';

/**
 * The `sidecar` section of a gateway's configuration file (`fleetlimit sidecar`): where it listens and
 * how a proxy's request becomes a key and a cost. The gateway itself is the file's top level, as for
 * the middleware; the `http` section's header and status options apply to the NGINX endpoint.
 *
 *   "sidecar": {
 *     "http": { "host": "127.0.0.1", "port": 9090, "keyHeaders": ["x-api-key", "x-real-ip"],
 *               "costHeader": "x-fleetlimit-cost" },
 *     "grpc": { "host": "127.0.0.1", "port": 8081, "domain": "edge",
 *               "descriptors": [["api_key"], ["remote_address"]] },
 *     "maxDescriptors": 8
 *   }
 *
 * Several policies (issue 22): the file's top-level policy (limit, windowMs, policyName) is the
 * default one; `policies` adds named ones, as createPolicyGateways takes them, and a descriptor rule
 * or an NGINX location names the policy it is held to:
 *
 *   "sidecar": {
 *     "policies": { "per-ip": { "limit": 1000, "windowMs": 60000 } },
 *     "http": { "keyHeaders": ["x-api-key"], "policies": { "per-ip": { "keyHeaders": ["x-real-ip"] } } },
 *     "grpc": { "domain": "edge",
 *               "descriptors": [["api_key"], { "keys": ["remote_address"], "policy": "per-ip" }] }
 *   }
 */
/** `sidecar.http`: the HTTP side (NGINX's auth_request endpoint, health, readiness, metrics). */
export interface SidecarHttpFileOptions {
  /** @default '127.0.0.1' */
  host?: string;
  /** @default 9090 */
  port?: number;
  /** The key: the first of these request headers that is set, as `name:value`. @default ['x-api-key'] */
  keyHeaders?: string[];
  /** The cost: this request header's value when set, else 1. @default none (cost 1) */
  costHeader?: string;
  /** Per named policy (`/decide/<name>`), its own keyHeaders and costHeader. @default none (the ones above) */
  policies?: Record<string, SidecarHttpPolicyFileOptions>;
}

/** `sidecar.http.policies.<name>`: how `/decide/<name>` finds the key and the cost, where it differs. */
export interface SidecarHttpPolicyFileOptions {
  keyHeaders?: string[];
  costHeader?: string;
}

/**
 * A descriptor rule: its entry keys, in order (held to the file's top-level policy), or the keys and the
 * named policy the descriptor is held to.
 */
export type SidecarDescriptorRule = string[] | { keys: string[]; policy?: string };

/** `sidecar.policies.<name>`: a policy's limit and window, and any gateway option it sets differently. */
export type SidecarPolicyFileOptions = Omit<PolicyOptions, 'store' | 'clock' | 'random'>;

/** `sidecar.grpc`: Envoy's rate limit service; absent, no gRPC server runs. */
export interface SidecarGrpcFileOptions {
  /** @default '127.0.0.1' */
  host?: string;
  /** @default 8081 */
  port?: number;
  /** The rate limit filter's domain (with descriptors; neither when the limits come from --envoy-config). */
  domain?: string;
  /** The descriptors limited: each a list of entry keys, in order, or `{ keys, policy }`. */
  descriptors?: SidecarDescriptorRule[];
}

export interface SidecarFileOptions {
  http?: SidecarHttpFileOptions;
  grpc?: SidecarGrpcFileOptions;
  /** @default 8 */
  maxDescriptors?: number;
  /** Named policies beside the top-level one, by name. @default none */
  policies?: Record<string, SidecarPolicyFileOptions>;
}

/** How one policy's `/decide` request finds its key and cost. */
export interface HttpKeying {
  keyHeaders: readonly string[];
  costHeader: string | null;
}

/** A descriptor rule, resolved: the entry keys, in order, and the name of the policy it is held to. */
export interface DescriptorRule {
  keys: readonly string[];
  policy: string;
}

/** The sidecar's options with the defaults filled in; `grpc` is null when no gRPC server runs. */
export interface SidecarOptions {
  http: HttpKeying & {
    host: string;
    port: number;
    /** The keying of each policy `/decide/<name>` serves (every policy: its own, or the default above). */
    policies: ReadonlyMap<string, HttpKeying>;
  };
  grpc: {
    host: string;
    port: number;
    domain: string;
    /**
     * Each rule: a descriptor with exactly these entry keys, in order, is held to the rule's policy.
     * Empty (and domain '') when the section gives neither: the limits come from --envoy-config.
     */
    descriptors: readonly DescriptorRule[];
  } | null;
  /** Descriptors one ShouldRateLimit may carry: the work one request causes is bounded. */
  maxDescriptors: number;
  /** The top-level policy's name: the file's policyName, else 'default'. */
  defaultPolicy: string;
  /** The named policies beside it, as createPolicyGateways takes them (empty: one policy). */
  policies: Readonly<Record<string, SidecarPolicyFileOptions>>;
}

/** What the section is checked against: the rest of the file. */
export interface SidecarContext {
  /**
   * The top-level gateway options (policyName names the default policy). `valid`: they passed their
   * own checks, and each named policy is checked as the gateway it becomes; else they are as written,
   * and each policy's own fields are checked over placeholder common options.
   */
  gateway?:
    | { readonly valid: true; readonly options: GatewayFileOptions }
    | { readonly valid: false; readonly options: Readonly<Record<string, unknown>> };
}

export const SIDECAR_FILE_FIELDS: readonly string[] = ['http', 'grpc', 'maxDescriptors', 'policies'];
const HTTP_FIELDS = ['host', 'port', 'keyHeaders', 'costHeader', 'policies'];
const HTTP_POLICY_FIELDS = ['keyHeaders', 'costHeader'];
const GRPC_FIELDS = ['host', 'port', 'domain', 'descriptors'];

export const DEFAULT_HTTP_PORT = 9090;
export const DEFAULT_GRPC_PORT = 8081;

/**
 * Checks the `sidecar` section (every bad field named, as `sidecar.…`) and fills in the defaults.
 * `ctx.gateway` is the file's top level: its policyName names the default policy.
 */
export function resolveSidecarOptions(raw: unknown = {}, ctx: SidecarContext = {}): SidecarOptions {
  const c = new ConfigChecks();
  const o = c.check(() => object('sidecar', raw)) ?? {};
  requireKnownFields('sidecar', o, SIDECAR_FILE_FIELDS, c);
  const pn = ctx.gateway?.options.policyName;
  const defaultPolicy = typeof pn === 'string' ? pn : 'default';
  const policies = o.policies === undefined ? {} : namedPolicies(o.policies, defaultPolicy, ctx, c);
  // every name given, even one whose options are wrong: its error is said once, not again per reference
  const given =
    o.policies !== null && typeof o.policies === 'object' && !Array.isArray(o.policies)
      ? Object.keys(o.policies).filter((n) => n !== defaultPolicy)
      : [];
  const known = [defaultPolicy, ...given];
  const http = httpSection(o.http, known, c);
  const grpc = o.grpc === undefined ? null : grpcSection(o.grpc, defaultPolicy, known, c);
  let maxDescriptors = 8;
  if (o.maxDescriptors !== undefined) {
    maxDescriptors =
      c.check(() => {
        const v = o.maxDescriptors;
        if (typeof v !== 'number' || !Number.isInteger(v) || v < 1 || v > 64) {
          throw new ConfigError(
            'sidecar.maxDescriptors',
            `must be an integer from 1 to 64, got ${JSON.stringify(v)}`,
          );
        }
        return v;
      }) ?? 8;
  }
  c.done();
  return { http, grpc, maxDescriptors, defaultPolicy, policies };
}

/** `sidecar.http` checked, defaults filled in, with the keying of every known policy. */
function httpSection(v: unknown, known: readonly string[], c: ConfigChecks): SidecarOptions['http'] {
  const http: SidecarOptions['http'] = {
    host: '127.0.0.1',
    port: DEFAULT_HTTP_PORT,
    keyHeaders: ['x-api-key'],
    costHeader: null,
    policies: new Map(),
  };
  const byPolicy = new Map<string, Partial<HttpKeying>>();
  const h = v === undefined ? undefined : c.check(() => object('sidecar.http', v));
  if (h !== undefined) {
    requireKnownFields('sidecar.http', h, HTTP_FIELDS, c);
    if (h.host !== undefined) http.host = c.check(() => host('sidecar.http.host', h.host)) ?? '';
    if (h.port !== undefined) http.port = c.check(() => port('sidecar.http.port', h.port)) ?? 0;
    if (h.keyHeaders !== undefined) {
      http.keyHeaders = c.check(() => keyHeaders('sidecar.http.keyHeaders', h.keyHeaders)) ?? http.keyHeaders;
    }
    if (h.costHeader !== undefined) {
      http.costHeader = c.check(() => headerName('sidecar.http.costHeader', h.costHeader)) ?? null;
    }
    if (h.policies !== undefined) {
      const hp = c.check(() => object('sidecar.http.policies', h.policies)) ?? {};
      for (const [name, pv] of Object.entries(hp)) {
        const field = `sidecar.http.policies.${name}`;
        if (c.check(() => knownPolicy(field, name, known)) === undefined) continue;
        const k = policyKeying(field, pv, c);
        if (k !== undefined) byPolicy.set(name, k);
      }
    }
  }
  const keyings = new Map<string, HttpKeying>();
  http.policies = keyings;
  for (const name of known) {
    const k = byPolicy.get(name) ?? {};
    keyings.set(name, {
      keyHeaders: k.keyHeaders ?? http.keyHeaders,
      costHeader: k.costHeader ?? http.costHeader,
    });
  }
  return http;
}

/** `sidecar.http.policies.<name>`: the keying it sets differently (undefined: not an object). */
function policyKeying(field: string, v: unknown, c: ConfigChecks): Partial<HttpKeying> | undefined {
  const p = c.check(() => object(field, v));
  if (p === undefined) return undefined;
  requireKnownFields(field, p, HTTP_POLICY_FIELDS, c);
  const k: Partial<HttpKeying> = {};
  if (p.keyHeaders !== undefined) {
    const kh = c.check(() => keyHeaders(`${field}.keyHeaders`, p.keyHeaders));
    if (kh !== undefined) k.keyHeaders = kh;
  }
  if (p.costHeader !== undefined) {
    const ch = c.check(() => headerName(`${field}.costHeader`, p.costHeader));
    if (ch !== undefined) k.costHeader = ch;
  }
  return k;
}

/** `sidecar.grpc` checked, defaults filled in (null: not an object). */
function grpcSection(
  v: unknown,
  defaultPolicy: string,
  known: readonly string[],
  c: ConfigChecks,
): SidecarOptions['grpc'] {
  const g = c.check(() => object('sidecar.grpc', v));
  if (g === undefined) return null;
  requireKnownFields('sidecar.grpc', g, GRPC_FIELDS, c);
  // neither domain nor descriptors: where to listen only, the limits from --envoy-config's files
  const fromFiles = g.domain === undefined && g.descriptors === undefined;
  return {
    host: g.host === undefined ? '127.0.0.1' : (c.check(() => host('sidecar.grpc.host', g.host)) ?? ''),
    port: g.port === undefined ? DEFAULT_GRPC_PORT : (c.check(() => port('sidecar.grpc.port', g.port)) ?? 0),
    domain: fromFiles
      ? ''
      : (c.check(() => {
          if (typeof g.domain !== 'string' || g.domain.length === 0 || g.domain.length > 256) {
            throw new ConfigError(
              'sidecar.grpc.domain',
              `must be the rate limit filter's domain (1 to 256 characters), got ${JSON.stringify(g.domain)}`,
            );
          }
          return g.domain;
        }) ?? ''),
    descriptors: fromFiles
      ? []
      : (c.check(() => rules('sidecar.grpc.descriptors', g.descriptors, defaultPolicy, known)) ?? []),
  };
}
