import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { ConfigError } from '../config.js';
import { type AsyncGatewayOptions, createAsyncGateway } from '../gateway/runtime/index.js';
import { TrustedProxies } from '../http/client-address.js';
import { sfString } from '../http/headers.js';
import type { AsyncStore } from '../store/contract.js';
import { resolveRedisStoreOptions } from '../store/redis/options.js';
import { UsageError } from './parse.js';

/**
 * A gateway's configuration file (JSON): the gateway options at the top level, the Redis store's
 * under "redis" and the HTTP middleware's under "http". Functions (store, clock, random, key, cost,
 * skip) are code, not configuration, so they are not accepted here.
 *
 *   { "id": "gw-1", "design": "shared-counter", "limit": 100, "windowMs": 60000, "gateways": 8,
 *     "syncMs": 1000, "failMode": "local", "storeTimeoutMs": 200, "maxKeys": 1000000,
 *     "redis": { "prefix": "fl:", "mode": "exact" },
 *     "http": { "trustedProxies": ["private"], "policyName": "default", "legacyHeaders": false } }
 */
const GATEWAY_FIELDS = [
  'id',
  'design',
  'limit',
  'windowMs',
  'windowKind',
  'gateways',
  'syncMs',
  'leaseTtlMs',
  'horizonMs',
  'failMode',
  'storeTimeoutMs',
  'staleAfterMs',
  'maxKeys',
] as const;
const REDIS_FIELDS = ['prefix', 'clock', 'mode', 'buckets', 'chunkKeys', 'chunkAdmits', 'expiryMarginMs'];
const HTTP_FIELDS = ['trustedProxies', 'policyName', 'legacyHeaders', 'standardHeaders'];

/** A store that is never called: the gateway is only constructed, never started. */
const NO_STORE: AsyncStore = {
  sync: () => Promise.reject(new Error('validation only')),
  logAdmit: () => Promise.reject(new Error('validation only')),
  ask: () => Promise.reject(new Error('validation only')),
  voidLogAdmits: () => Promise.reject(new Error('validation only')),
};

function object(field: string, v: unknown): Record<string, unknown> {
  if (v === null || typeof v !== 'object' || Array.isArray(v))
    throw new ConfigError(field, 'must be an object');
  return v as Record<string, unknown>;
}

function known(where: string, o: Record<string, unknown>, fields: readonly string[]): void {
  for (const k of Object.keys(o)) {
    if (!fields.includes(k)) {
      const name = where === '' ? k : `${where}.${k}`;
      throw new ConfigError(name, `is not a configuration field; expected one of ${fields.join(', ')}`);
    }
  }
}

export interface ValidatedConfig {
  design: string;
  limit: number;
  windowMs: number;
  gateways: number;
  syncMs: number;
}

/** Checks a parsed configuration file; throws a ConfigError naming the first bad field. */
export function validateConfig(raw: unknown): ValidatedConfig {
  const o = object('config', raw);
  known('', o, [...GATEWAY_FIELDS, 'redis', 'http']);
  const { redis, http, ...gateway } = o;
  const gw = createAsyncGateway({ ...(gateway as unknown as AsyncGatewayOptions), store: NO_STORE });
  if (redis !== undefined) {
    const r = object('redis', redis);
    known('redis', r, REDIS_FIELDS);
    try {
      resolveRedisStoreOptions(r);
    } catch (err) {
      throw err instanceof ConfigError ? new ConfigError(`redis.${err.field}`, err.message) : err;
    }
  }
  if (http !== undefined) {
    const h = object('http', http);
    known('http', h, HTTP_FIELDS);
    if (h.trustedProxies !== undefined) {
      try {
        new TrustedProxies(h.trustedProxies as string[]);
      } catch (err) {
        throw err instanceof ConfigError ? new ConfigError('http.trustedProxies', err.message) : err;
      }
    }
    if (h.policyName !== undefined) sfString(h.policyName as string, 'http.policyName');
    for (const f of ['legacyHeaders', 'standardHeaders'] as const) {
      if (h[f] !== undefined && typeof h[f] !== 'boolean') {
        throw new ConfigError(`http.${f}`, `must be true or false, got ${JSON.stringify(h[f])}`);
      }
    }
  }
  const { policy, fleet, design } = gw.options;
  return {
    design,
    limit: policy.limit,
    windowMs: policy.windowMs,
    gateways: fleet.gateways,
    syncMs: fleet.syncMs,
  };
}

export function addValidateCommand(program: Command): void {
  program
    .command('validate')
    .description(
      'check a gateway configuration file (JSON; see README: Configuration file); exits 2 naming the bad field',
    )
    .argument('<config>', 'path to the JSON file')
    .action((file: string) => {
      let text: string;
      try {
        text = readFileSync(file, 'utf8');
      } catch (err) {
        throw new UsageError('config', `cannot read ${file}: ${(err as Error).message}`);
      }
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch (err) {
        throw new UsageError('config', `${file} is not JSON: ${(err as Error).message}`);
      }
      const c = validateConfig(json);
      process.stdout.write(
        `${file}: valid (${c.design}, L = ${c.limit} per ${c.windowMs} ms, K = ${c.gateways}, Δ = ${c.syncMs} ms)\n`,
      );
    });
}
