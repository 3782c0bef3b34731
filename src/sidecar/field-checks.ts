// The value checks of the sidecar section's fields (objects, hosts, ports, header names, policy
// names): each throws a ConfigError naming the field.
import { ConfigError } from '../config.js';

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,128}$/;

export function object(field: string, v: unknown): Record<string, unknown> {
  if (v === null || typeof v !== 'object' || Array.isArray(v))
    throw new ConfigError(field, 'must be an object');
  return v as Record<string, unknown>;
}

export function host(field: string, v: unknown): string {
  if (typeof v !== 'string' || v.trim() === '') {
    throw new ConfigError(field, `must be a host name or address, got ${JSON.stringify(v)}`);
  }
  return v;
}

export function port(field: string, v: unknown): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > 65535) {
    throw new ConfigError(field, `must be a TCP port from 0 to 65535, got ${JSON.stringify(v)}`);
  }
  return v;
}

export function headerName(field: string, v: unknown): string {
  if (typeof v !== 'string' || !HEADER_NAME.test(v)) {
    throw new ConfigError(field, `must be an HTTP header name, got ${JSON.stringify(v)}`);
  }
  return v.toLowerCase();
}

export function keyHeaders(field: string, v: unknown): string[] {
  if (!Array.isArray(v) || v.length === 0 || v.length > 8) {
    throw new ConfigError(field, 'must be a list of 1 to 8 header names');
  }
  return v.map((n, i) => headerName(`${field}[${i}]`, n));
}

/** A policy a rule or a path names: one of `known` (the top-level one and the named ones). */
export function knownPolicy(field: string, v: unknown, known: readonly string[]): string {
  if (typeof v !== 'string' || !known.includes(v)) {
    throw new ConfigError(
      field,
      `must name a policy: ${known.map((n) => JSON.stringify(n)).join(', ')} (the top-level policyName, else "default", and sidecar.policies); got ${JSON.stringify(v)}`,
    );
  }
  return v;
}
