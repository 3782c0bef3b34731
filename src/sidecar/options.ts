import { ConfigChecks, ConfigError, ConfigErrors, requireKnownFields, requirePolicyName } from '../config.js';
import { createPolicyGateways, type PolicyGatewaysOptions, type PolicyOptions } from '../gateway/policies.js';
import { ASYNC_GATEWAY_FIELDS } from '../gateway/runtime/async-options.js';
import { VALIDATION_STORE } from '../store/validation-store.js';

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
  /** The top-level gateway options (policyName names the default policy). */
  gateway?: Record<string, unknown>;
  /** The top-level options passed their own checks: each named policy is checked as the gateway it becomes. */
  gatewayValid?: boolean;
}

export const SIDECAR_FILE_FIELDS: readonly string[] = ['http', 'grpc', 'maxDescriptors', 'policies'];
const HTTP_FIELDS = ['host', 'port', 'keyHeaders', 'costHeader', 'policies'];
const HTTP_POLICY_FIELDS = ['keyHeaders', 'costHeader'];
const GRPC_FIELDS = ['host', 'port', 'domain', 'descriptors'];
const RULE_FIELDS = ['keys', 'policy'];
/** A named policy's options: the gateway's, less its identity (id, policyName: the name) and code. */
const POLICY_FIELDS = ASYNC_GATEWAY_FIELDS.filter(
  (f) => !['id', 'policyName', 'store', 'clock', 'random'].includes(f),
);
/** Named policies per sidecar: each is a gateway with its own sync timer and key cap. */
export const MAX_POLICIES = 16;

export const DEFAULT_HTTP_PORT = 9090;
export const DEFAULT_GRPC_PORT = 8081;
/** Entry keys per descriptor rule, and rules per configuration: bounded like every client-driven cost. */
const MAX_RULE_KEYS = 8;
const MAX_RULES = 64;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,128}$/;

function object(field: string, v: unknown): Record<string, unknown> {
  if (v === null || typeof v !== 'object' || Array.isArray(v))
    throw new ConfigError(field, 'must be an object');
  return v as Record<string, unknown>;
}

function host(field: string, v: unknown): string {
  if (typeof v !== 'string' || v.trim() === '') {
    throw new ConfigError(field, `must be a host name or address, got ${JSON.stringify(v)}`);
  }
  return v;
}

function port(field: string, v: unknown): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > 65535) {
    throw new ConfigError(field, `must be a TCP port from 0 to 65535, got ${JSON.stringify(v)}`);
  }
  return v;
}

function headerName(field: string, v: unknown): string {
  if (typeof v !== 'string' || !HEADER_NAME.test(v)) {
    throw new ConfigError(field, `must be an HTTP header name, got ${JSON.stringify(v)}`);
  }
  return v.toLowerCase();
}

function keyHeaders(field: string, v: unknown): string[] {
  if (!Array.isArray(v) || v.length === 0 || v.length > 8) {
    throw new ConfigError(field, 'must be a list of 1 to 8 header names');
  }
  return v.map((n, i) => headerName(`${field}[${i}]`, n));
}

/** A policy a rule or a path names: one of `known` (the top-level one and the named ones). */
function knownPolicy(field: string, v: unknown, known: readonly string[]): string {
  if (typeof v !== 'string' || !known.includes(v)) {
    throw new ConfigError(
      field,
      `must name a policy: ${known.map((n) => JSON.stringify(n)).join(', ')} (the top-level policyName, else "default", and sidecar.policies); got ${JSON.stringify(v)}`,
    );
  }
  return v;
}

function ruleKeys(field: string, r: unknown): string[] {
  if (
    !Array.isArray(r) ||
    r.length === 0 ||
    r.length > MAX_RULE_KEYS ||
    !r.every((k) => typeof k === 'string' && k.length > 0 && k.length <= 128)
  ) {
    throw new ConfigError(
      field,
      `must be a list of 1 to ${MAX_RULE_KEYS} descriptor entry keys (strings of 1 to 128 characters), got ${JSON.stringify(r)}`,
    );
  }
  return r as string[];
}

/**
 * The descriptor rules: `["api_key"]` is held to the default policy, `{ "keys": [...], "policy": "per-ip" }`
 * to the one named. One list of keys held to two policies is refused: a descriptor gets one status.
 */
function rules(field: string, v: unknown, defaultPolicy: string, known: readonly string[]): DescriptorRule[] {
  if (!Array.isArray(v) || v.length === 0 || v.length > MAX_RULES) {
    throw new ConfigError(
      field,
      `must be a list of 1 to ${MAX_RULES} descriptor rules, each a list of entry keys or { "keys": [...], "policy": "name" } (e.g. [["api_key"]])`,
    );
  }
  const c = new ConfigChecks();
  const out: DescriptorRule[] = [];
  v.forEach((r, i) => {
    const at = `${field}[${i}]`;
    const rule = c.check((): DescriptorRule => {
      if (Array.isArray(r)) return { keys: ruleKeys(at, r), policy: defaultPolicy };
      const o = object(at, r);
      const fields = new ConfigChecks();
      requireKnownFields(at, o, RULE_FIELDS, fields);
      fields.done();
      const keys = ruleKeys(`${at}.keys`, o.keys);
      const policy = o.policy === undefined ? defaultPolicy : knownPolicy(`${at}.policy`, o.policy, known);
      return { keys, policy };
    });
    if (rule === undefined) return;
    const same = out.findIndex(
      (x) => x.keys.length === rule.keys.length && x.keys.every((k, j) => k === rule.keys[j]),
    );
    if (same >= 0 && out[same].policy !== rule.policy) {
      c.errors.push(
        new ConfigError(
          at,
          `has the entry keys of ${field}[${same}] but policy "${rule.policy}", not "${out[same].policy}": a descriptor is held to one policy (add an entry, e.g. a generic_key, to tell them apart)`,
        ),
      );
    } else if (same < 0) out.push(rule);
  });
  c.done();
  return out;
}

/** The top-level gateway options every named policy starts from (its own fields then override them). */
export function policyCommon(gateway: Record<string, unknown>): Record<string, unknown> {
  const { limit: _l, windowMs: _w, policyName: _p, ...common } = gateway;
  return common;
}

/** A PolicyGateways error, named under the sidecar section: `sidecar.policies.<name>.<field>`. */
function underSidecar(e: ConfigError, policies: Record<string, Record<string, unknown>>): ConfigError {
  const message = e.message.slice(e.field.length + 2);
  if (e.field.startsWith('policies.')) return new ConfigError(`sidecar.${e.field}`, message);
  // a common option checked with one policy (syncMs over its windowMs): named under that policy, where
  // the fix goes, saying so when the value came from the top level
  const m = / \(with policies\.([^)]+)\)$/.exec(message);
  if (m === null) return new ConfigError(e.field, message);
  const own = policies[m[1]]?.[e.field] !== undefined;
  return new ConfigError(
    `sidecar.policies.${m[1]}.${e.field}`,
    `${message.slice(0, m.index)}${own ? '' : ` (the top-level ${e.field}: set one for this policy)`}`,
  );
}

/**
 * `sidecar.policies`: each name a policy name other than the top-level one, each value the gateway
 * options it sets (limit and windowMs at least). With valid top-level options, each is checked as
 * the gateway it becomes (createPolicyGateways: `syncMs` at most its `windowMs`, and so on).
 */
function namedPolicies(
  v: unknown,
  defaultPolicy: string,
  ctx: SidecarContext,
  c: ConfigChecks,
): Record<string, SidecarPolicyFileOptions> {
  const o = c.check(() => object('sidecar.policies', v));
  if (o === undefined) return {};
  const names = Object.keys(o);
  if (names.length === 0 || names.length > MAX_POLICIES) {
    c.errors.push(
      new ConfigError('sidecar.policies', `must name 1 to ${MAX_POLICIES} policies, got ${names.length}`),
    );
    return {};
  }
  const out: Record<string, SidecarPolicyFileOptions> = {};
  for (const name of names) {
    const field = `sidecar.policies.${name}`;
    const ok = c.check(() => {
      requirePolicyName(field, name);
      if (name === defaultPolicy) {
        throw new ConfigError(
          field,
          `is the top-level policy's name (its policyName, else "default"): give one of them another name`,
        );
      }
      const p = object(field, o[name]);
      const fields = new ConfigChecks();
      requireKnownFields(field, p, POLICY_FIELDS, fields);
      fields.done();
      for (const f of ['limit', 'windowMs'] as const) {
        if (p[f] === undefined) throw new ConfigError(`${field}.${f}`, 'is required for a named policy');
      }
      return p;
    });
    if (ok !== undefined) out[name] = ok as SidecarPolicyFileOptions;
  }
  if (ctx.gatewayValid === true && ctx.gateway !== undefined && Object.keys(out).length === names.length) {
    c.errors.push(...policyErrors(policyCommon(ctx.gateway), out));
  } else if (ctx.gateway !== undefined) {
    // the top level is bad, or another policy is (those errors are reported already): each policy's
    // own fields are still checked, over placeholder common options, so one run names every bad field.
    // Only errors on a field the policy sets are kept: a relation with a placeholder would blame the
    // wrong value (underSidecar names those under the policy too, but the policy does not set them)
    for (const [name, p] of Object.entries(out)) {
      const prefix = `sidecar.policies.${name}.`;
      for (const e of policyErrors(PLACEHOLDER_COMMON, { [name]: p })) {
        if (e.field.startsWith(prefix) && Object.hasOwn(p, e.field.slice(prefix.length).split('.')[0]))
          c.errors.push(e);
      }
    }
  }
  return out;
}

/** Common options that pass every check, standing in for a top level that does not. */
const PLACEHOLDER_COMMON = { id: 'validate', design: 'central-log', gateways: 2, syncMs: 1000 };

/** The errors of the policies checked as the gateways they become, named under the sidecar section. */
function policyErrors(
  common: Record<string, unknown>,
  policies: Record<string, SidecarPolicyFileOptions>,
): ConfigError[] {
  try {
    createPolicyGateways({
      ...common,
      store: VALIDATION_STORE,
      policies,
    } as unknown as PolicyGatewaysOptions);
    return [];
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    return (e instanceof ConfigErrors ? e.errors : [e]).map((x) => underSidecar(x, policies as never));
  }
}

/**
 * Checks the `sidecar` section (every bad field named, as `sidecar.…`) and fills in the defaults.
 * `ctx.gateway` is the file's top level: its policyName names the default policy.
 */
export function resolveSidecarOptions(raw: unknown = {}, ctx: SidecarContext = {}): SidecarOptions {
  const c = new ConfigChecks();
  const o = c.check(() => object('sidecar', raw)) ?? {};
  requireKnownFields('sidecar', o, SIDECAR_FILE_FIELDS, c);
  const pn = ctx.gateway?.policyName;
  const defaultPolicy = typeof pn === 'string' ? pn : 'default';
  const policies = o.policies === undefined ? {} : namedPolicies(o.policies, defaultPolicy, ctx, c);
  // every name given, even one whose options are wrong: its error is said once, not again per reference
  const given =
    o.policies !== null && typeof o.policies === 'object' && !Array.isArray(o.policies)
      ? Object.keys(o.policies).filter((n) => n !== defaultPolicy)
      : [];
  const known = [defaultPolicy, ...given];
  const out: SidecarOptions = {
    http: {
      host: '127.0.0.1',
      port: DEFAULT_HTTP_PORT,
      keyHeaders: ['x-api-key'],
      costHeader: null,
      policies: new Map(),
    },
    grpc: null,
    maxDescriptors: 8,
    defaultPolicy,
    policies,
  };
  const byPolicy = new Map<string, Partial<HttpKeying>>();
  if (o.http !== undefined) {
    const h = c.check(() => object('sidecar.http', o.http));
    if (h !== undefined) {
      requireKnownFields('sidecar.http', h, HTTP_FIELDS, c);
      if (h.host !== undefined) out.http.host = c.check(() => host('sidecar.http.host', h.host)) ?? '';
      if (h.port !== undefined) out.http.port = c.check(() => port('sidecar.http.port', h.port)) ?? 0;
      if (h.keyHeaders !== undefined) {
        out.http.keyHeaders =
          c.check(() => keyHeaders('sidecar.http.keyHeaders', h.keyHeaders)) ?? out.http.keyHeaders;
      }
      if (h.costHeader !== undefined) {
        out.http.costHeader = c.check(() => headerName('sidecar.http.costHeader', h.costHeader)) ?? null;
      }
      if (h.policies !== undefined) {
        const hp = c.check(() => object('sidecar.http.policies', h.policies)) ?? {};
        for (const [name, v] of Object.entries(hp)) {
          const field = `sidecar.http.policies.${name}`;
          if (c.check(() => knownPolicy(field, name, known)) === undefined) continue;
          const p = c.check(() => object(field, v));
          if (p === undefined) continue;
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
          byPolicy.set(name, k);
        }
      }
    }
  }
  const keyings = new Map<string, HttpKeying>();
  out.http.policies = keyings;
  for (const name of known) {
    const k = byPolicy.get(name) ?? {};
    keyings.set(name, {
      keyHeaders: k.keyHeaders ?? out.http.keyHeaders,
      costHeader: k.costHeader ?? out.http.costHeader,
    });
  }
  if (o.grpc !== undefined) {
    const g = c.check(() => object('sidecar.grpc', o.grpc));
    if (g !== undefined) {
      requireKnownFields('sidecar.grpc', g, GRPC_FIELDS, c);
      // neither domain nor descriptors: where to listen only, the limits from --envoy-config's files
      const fromFiles = g.domain === undefined && g.descriptors === undefined;
      const grpc = {
        host: g.host === undefined ? '127.0.0.1' : (c.check(() => host('sidecar.grpc.host', g.host)) ?? ''),
        port:
          g.port === undefined ? DEFAULT_GRPC_PORT : (c.check(() => port('sidecar.grpc.port', g.port)) ?? 0),
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
      out.grpc = grpc;
    }
  }
  if (o.maxDescriptors !== undefined) {
    out.maxDescriptors =
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
  return out;
}
