import { ConfigError, type Policy } from '../config.js';
import type { Decision } from '../gateway/decision.js';

export interface HeaderOptions {
  /** The policy's name in the RateLimit headers (an sf-string). @default 'default' */
  policyName?: string;
  /** Also send X-RateLimit-Limit, -Remaining and -Reset (Unix seconds). @default false */
  legacyHeaders?: boolean;
}

/** Quotes a name as a structured-field string (RFC 9651): printable ASCII, with " and \ escaped. */
export function sfString(name: string, field = 'policyName'): string {
  if (typeof name !== 'string' || !/^[\x20-\x7e]*$/.test(name)) {
    throw new ConfigError(field, `must be printable ASCII, got ${JSON.stringify(name)}`);
  }
  return `"${name.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}

/**
 * Response headers for one decision, per draft-ietf-httpapi-ratelimit-headers (drafts 08 to 11):
 *   RateLimit-Policy: "default";q=100;w=60   quota q per window of w seconds
 *   RateLimit: "default";r=42;t=17           r units left, t seconds until the quota resets
 * and on a rejection Retry-After in seconds, rounded up so a client never retries too early.
 * `nowMs` is only used for the legacy X-RateLimit-Reset, an absolute time.
 */
export function rateLimitHeaders(
  d: Decision,
  policy: Policy,
  name: string,
  legacy: boolean,
  nowMs: number,
): Record<string, string> {
  const reset = d.allowed ? seconds(d.resetMs) : Math.max(seconds(d.retryAfterMs ?? 0), 1);
  const window = Math.max(1, seconds(policy.windowMs));
  const h: Record<string, string> = {
    'RateLimit-Policy': `${name};q=${policy.limit};w=${window}`,
    RateLimit: `${name};r=${Math.max(0, Math.floor(d.remaining))};t=${reset}`,
  };
  if (!d.allowed) h['Retry-After'] = String(reset);
  if (legacy) {
    h['X-RateLimit-Limit'] = String(policy.limit);
    h['X-RateLimit-Remaining'] = String(Math.max(0, Math.floor(d.remaining)));
    h['X-RateLimit-Reset'] = String(Math.ceil(nowMs / 1000) + reset);
  }
  return h;
}

function seconds(ms: number): number {
  return Number.isFinite(ms) && ms > 0 ? Math.ceil(ms / 1000) : 0;
}
