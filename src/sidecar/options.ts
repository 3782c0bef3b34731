import { ConfigChecks, ConfigError, requireKnownFields } from '../config.js';

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
}

/** `sidecar.grpc`: Envoy's rate limit service; absent, no gRPC server runs. */
export interface SidecarGrpcFileOptions {
  /** @default '127.0.0.1' */
  host?: string;
  /** @default 8081 */
  port?: number;
  /** The rate limit filter's domain. */
  domain: string;
  /** The descriptors limited: each a list of entry keys, in order. */
  descriptors: string[][];
}

export interface SidecarFileOptions {
  http?: SidecarHttpFileOptions;
  grpc?: SidecarGrpcFileOptions;
  /** @default 8 */
  maxDescriptors?: number;
}

/** The sidecar's options with the defaults filled in; `grpc` is null when no gRPC server runs. */
export interface SidecarOptions {
  http: { host: string; port: number; keyHeaders: readonly string[]; costHeader: string | null };
  grpc: {
    host: string;
    port: number;
    domain: string;
    /** Each rule: the descriptor's entry keys, in order; a descriptor with exactly these keys is limited. */
    descriptors: readonly (readonly string[])[];
  } | null;
  /** Descriptors one ShouldRateLimit may carry: the work one request causes is bounded. */
  maxDescriptors: number;
}

export const SIDECAR_FILE_FIELDS: readonly string[] = ['http', 'grpc', 'maxDescriptors'];
const HTTP_FIELDS = ['host', 'port', 'keyHeaders', 'costHeader'];
const GRPC_FIELDS = ['host', 'port', 'domain', 'descriptors'];

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

function rules(field: string, v: unknown): string[][] {
  if (!Array.isArray(v) || v.length === 0 || v.length > MAX_RULES) {
    throw new ConfigError(
      field,
      `must be a list of 1 to ${MAX_RULES} descriptor rules, each a list of entry keys (e.g. [["api_key"]])`,
    );
  }
  return v.map((r, i) => {
    if (
      !Array.isArray(r) ||
      r.length === 0 ||
      r.length > MAX_RULE_KEYS ||
      !r.every((k) => typeof k === 'string' && k.length > 0 && k.length <= 128)
    ) {
      throw new ConfigError(
        `${field}[${i}]`,
        `must be a list of 1 to ${MAX_RULE_KEYS} descriptor entry keys (strings of 1 to 128 characters), got ${JSON.stringify(r)}`,
      );
    }
    return r as string[];
  });
}

/** Checks the `sidecar` section (every bad field named, as `sidecar.…`) and fills in the defaults. */
export function resolveSidecarOptions(raw: unknown = {}): SidecarOptions {
  const c = new ConfigChecks();
  const o = c.check(() => object('sidecar', raw)) ?? {};
  requireKnownFields('sidecar', o, SIDECAR_FILE_FIELDS, c);
  const out: SidecarOptions = {
    http: { host: '127.0.0.1', port: DEFAULT_HTTP_PORT, keyHeaders: ['x-api-key'], costHeader: null },
    grpc: null,
    maxDescriptors: 8,
  };
  if (o.http !== undefined) {
    const h = c.check(() => object('sidecar.http', o.http));
    if (h !== undefined) {
      requireKnownFields('sidecar.http', h, HTTP_FIELDS, c);
      if (h.host !== undefined) out.http.host = c.check(() => host('sidecar.http.host', h.host)) ?? '';
      if (h.port !== undefined) out.http.port = c.check(() => port('sidecar.http.port', h.port)) ?? 0;
      if (h.keyHeaders !== undefined) {
        c.check(() => {
          const v = h.keyHeaders;
          if (!Array.isArray(v) || v.length === 0 || v.length > 8) {
            throw new ConfigError('sidecar.http.keyHeaders', 'must be a list of 1 to 8 header names');
          }
          out.http.keyHeaders = v.map((n, i) => headerName(`sidecar.http.keyHeaders[${i}]`, n));
        });
      }
      if (h.costHeader !== undefined) {
        out.http.costHeader = c.check(() => headerName('sidecar.http.costHeader', h.costHeader)) ?? null;
      }
    }
  }
  if (o.grpc !== undefined) {
    const g = c.check(() => object('sidecar.grpc', o.grpc));
    if (g !== undefined) {
      requireKnownFields('sidecar.grpc', g, GRPC_FIELDS, c);
      const grpc = {
        host: g.host === undefined ? '127.0.0.1' : (c.check(() => host('sidecar.grpc.host', g.host)) ?? ''),
        port:
          g.port === undefined ? DEFAULT_GRPC_PORT : (c.check(() => port('sidecar.grpc.port', g.port)) ?? 0),
        domain:
          c.check(() => {
            if (typeof g.domain !== 'string' || g.domain.length === 0 || g.domain.length > 256) {
              throw new ConfigError(
                'sidecar.grpc.domain',
                `must be the rate limit filter's domain (1 to 256 characters), got ${JSON.stringify(g.domain)}`,
              );
            }
            return g.domain;
          }) ?? '',
        descriptors: c.check(() => rules('sidecar.grpc.descriptors', g.descriptors)) ?? [],
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
