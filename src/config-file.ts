import { readFileSync } from 'node:fs';
import { ConfigChecks, ConfigError, requireKnownFields } from './config.js';
import type { ResolvedOptions } from './gateway/options.js';
import {
  ASYNC_GATEWAY_FIELDS,
  type AsyncGatewayOptions,
  createAsyncGateway,
} from './gateway/runtime/async-gateway.js';
import type { GatewayFileOptions } from './gateway/runtime/async-options.js';
import { checkIpv6Subnet, TrustedProxies } from './http/client-address.js';
import { type LimitedResponseOptions, limitedResponse, type RateLimitHttpOptions } from './http/core.js';
import { headerStyle, sfString } from './http/headers.js';
import { resolveSidecarOptions, type SidecarFileOptions } from './sidecar/options.js';
import { type RedisStoreOptions, resolveRedisStoreOptions } from './store/redis/options.js';
import { VALIDATION_STORE } from './store/validation-store.js';

/**
 * A gateway's configuration file (JSON): the gateway options at the top level, the Redis store's
 * under "redis", the HTTP middleware's under "http" (with the 429's status and body) and
 * `fleetlimit sidecar`'s under "sidecar" (src/sidecar/options.ts). Functions
 * (store, clock, random, key, cost, skip, handler) are code, not configuration, so they are not
 * accepted here. "gateways": "auto" (with an optional "initialGateways") has the store count the
 * fleet (docs/autoscaling.md).
 *
 *   { "id": "gw-1", "design": "shared-counter", "limit": 100, "windowMs": 60000, "gateways": 8,
 *     "syncMs": 1000, "failMode": "local", "storeTimeoutMs": 200, "maxKeys": 1000000,
 *     "policyName": "api",
 *     "redis": { "prefix": "fl:", "mode": "exact" },
 *     "http": { "trustedProxies": ["private"], "legacyHeaders": false,
 *               "statusCode": 429, "message": { "error": "rate_limited" } } }
 */
const CODE_FIELDS = ['store', 'clock', 'random'];
export const GATEWAY_FILE_FIELDS: readonly string[] = ASYNC_GATEWAY_FIELDS.filter(
  (f) => !CODE_FIELDS.includes(f),
);
export const REDIS_FILE_FIELDS: readonly string[] = [
  'prefix',
  'clock',
  'mode',
  'buckets',
  'chunkKeys',
  'chunkAdmits',
  'keyGroups',
  'expiryMarginMs',
];
export const HTTP_FILE_FIELDS: readonly string[] = [
  'trustedProxies',
  'policyName',
  'legacyHeaders',
  'standardHeaders',
  'onInvalidKey',
  'onInvalidCost',
  'statusCode',
  'message',
  'ipv6Subnet',
];

/** The middleware's options a file cannot hold, and why: refused with that reason. */
const HTTP_NOT_IN_FILE: Readonly<Record<string, string>> = {
  key: 'is code (a function of the request): pass it to the middleware',
  cost: 'is code (a function of the request): pass it to the middleware',
  skip: 'is code (a function of the request): pass it to the middleware',
  clock: 'is code (a function): pass it to the middleware',
  handler:
    'is code (it takes the limited response over): pass it to the middleware; the file may set statusCode and message',
  policy:
    'picks one of a set of named policies (createPolicyGateways), and a configuration file configures one gateway: name its policy with the top-level "policyName" (fleetlimit sidecar takes further named policies in "sidecar.policies")',
};

/** The middleware's options a file can hold (a fallback function for a bad key or cost is code). */
export type HttpFileOptions = Pick<
  RateLimitHttpOptions,
  'trustedProxies' | 'policyName' | 'legacyHeaders' | 'standardHeaders' | 'ipv6Subnet'
> &
  Pick<LimitedResponseOptions<unknown, unknown>, 'statusCode' | 'message'> & {
    onInvalidKey?: 'reject' | 'skip';
    onInvalidCost?: 'reject' | 'skip';
  };

/** A configuration that passed every check: its sections, ready to pass on. */
export interface LoadedConfig {
  /** For createAsyncGateway, with a store (and a clock or random source, if any) added. */
  gateway: GatewayFileOptions;
  /** For new RedisStore(client, redis). */
  redis?: RedisStoreOptions;
  /** For the middleware, with key, cost and skip added. */
  http?: HttpFileOptions;
  /** For `fleetlimit sidecar` (src/sidecar/options.ts): where it listens, how a proxy's request is keyed. */
  sidecar?: SidecarFileOptions;
  /** The gateway options as the gateway resolves them (defaults filled in). */
  resolved: ResolvedOptions;
}

function object(field: string, v: unknown): Record<string, unknown> {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) {
    throw new ConfigError(field, 'must be an object');
  }
  return v as Record<string, unknown>;
}

/** A section's error, named with its section ("redis.prefix"). */
function within<T>(section: string, f: () => T): T {
  try {
    return f();
  } catch (err) {
    if (err instanceof ConfigError && !err.field.startsWith(`${section}.`)) {
      throw new ConfigError(`${section}.${err.field}`, err.message.slice(err.field.length + 2));
    }
    throw err;
  }
}

/**
 * Checks a parsed configuration file the way the gateway, the Redis store and the middleware will,
 * and returns its sections. Every error is reported, not the first: it throws one ConfigError, or
 * ConfigErrors listing them all (one line each, each naming its field, "redis." or "http." in front
 * for those sections).
 */
export function loadConfig(raw: unknown): LoadedConfig {
  const o = object('config', raw);
  const c = new ConfigChecks();
  requireKnownFields('', o, [...GATEWAY_FILE_FIELDS, 'redis', 'http', 'sidecar'], c);
  const { redis, http, sidecar, ...rest } = o;
  const gateway: Record<string, unknown> = {};
  for (const f of GATEWAY_FILE_FIELDS) if (rest[f] !== undefined) gateway[f] = rest[f];
  const gw = c.check(() =>
    createAsyncGateway({ ...(gateway as unknown as AsyncGatewayOptions), store: VALIDATION_STORE }),
  );
  if (redis !== undefined) {
    const r = c.check(() => object('redis', redis));
    if (r !== undefined) {
      requireKnownFields('redis', r, REDIS_FILE_FIELDS, c);
      // each field alone, so that every bad one is named
      for (const f of REDIS_FILE_FIELDS) {
        if (r[f] !== undefined) c.check(() => within('redis', () => resolveRedisStoreOptions({ [f]: r[f] })));
      }
    }
  }
  if (http !== undefined) {
    const h = c.check(() => object('http', http));
    if (h !== undefined) {
      const other: Record<string, unknown> = {};
      for (const [f, v] of Object.entries(h)) {
        if (Object.hasOwn(HTTP_NOT_IN_FILE, f))
          c.errors.push(new ConfigError(`http.${f}`, HTTP_NOT_IN_FILE[f]));
        else other[f] = v;
      }
      requireKnownFields('http', other, HTTP_FILE_FIELDS, c);
      // as the middleware checks them (limitedResponse), each alone so that both are named
      for (const f of ['statusCode', 'message'] as const) {
        if (h[f] !== undefined) c.check(() => within('http', () => limitedResponse({ [f]: h[f] })));
      }
      if (h.trustedProxies !== undefined) {
        c.check(() => within('http', () => new TrustedProxies(h.trustedProxies as string[])));
      }
      if (h.policyName !== undefined) c.check(() => sfString(h.policyName as string, 'http.policyName'));
      if (h.ipv6Subnet !== undefined) c.check(() => checkIpv6Subnet('http.ipv6Subnet', h.ipv6Subnet));
      for (const f of ['onInvalidKey', 'onInvalidCost'] as const) {
        if (h[f] !== undefined && h[f] !== 'reject' && h[f] !== 'skip') {
          c.check(() => {
            throw new ConfigError(`http.${f}`, `must be "reject" or "skip", got ${JSON.stringify(h[f])}`);
          });
        }
      }
      if (h.legacyHeaders !== undefined && typeof h.legacyHeaders !== 'boolean') {
        c.check(() => {
          throw new ConfigError(
            'http.legacyHeaders',
            `must be true or false, got ${JSON.stringify(h.legacyHeaders)}`,
          );
        });
      }
      // as the middleware takes it: true, false, 'draft-6' or 'draft-8'
      if (h.standardHeaders !== undefined)
        c.check(() => within('http', () => headerStyle(h.standardHeaders)));
    }
  }
  // the top level names the default policy and gives the named ones their common options
  // they passed the gateway's own checks: the file's gateway options, typed
  const checked = gw === undefined ? undefined : (gateway as unknown as GatewayFileOptions);
  if (sidecar !== undefined) {
    const ctx =
      checked === undefined
        ? { valid: false as const, options: gateway }
        : { valid: true as const, options: checked };
    c.check(() => resolveSidecarOptions(sidecar, { gateway: ctx }));
  }
  c.done();
  const out: LoadedConfig = {
    gateway: checked as GatewayFileOptions,
    resolved: (gw as NonNullable<typeof gw>).options,
  };
  if (redis !== undefined) out.redis = redis as RedisStoreOptions;
  if (http !== undefined) out.http = http as HttpFileOptions;
  if (sidecar !== undefined) out.sidecar = sidecar as SidecarFileOptions;
  return out;
}

/** loadConfig of a JSON file; an unreadable file or bad JSON is a ConfigError of field "config". */
export function loadConfigFile(path: string): LoadedConfig {
  return loadConfig(readJsonFile(path, (message) => new ConfigError('config', message)));
}

/** The JSON in a file; an unreadable file or bad JSON is thrown as `fail(message)`, the caller's kind of error. */
export function readJsonFile(path: string, fail: (message: string) => Error): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw fail(`cannot read ${path}: ${(err as Error).message}`);
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw fail(`${path} is not JSON: ${(err as Error).message}`);
  }
}
