import { ConfigError, type Policy } from '../config.js';
import type { Decision } from '../gateway/decision.js';

export interface HeaderOptions {
  /**
   * The policy's name in the RateLimit headers (an sf-string), with one gateway. With a set of named
   * policies the names are theirs. @default the policy's `name`, or 'default'
   */
  policyName?: string;
  /** Also send X-RateLimit-Limit, -Remaining and -Reset (Unix seconds). @default false */
  legacyHeaders?: boolean;
  /**
   * Which RateLimit headers to send, as express-rate-limit names the drafts of
   * draft-ietf-httpapi-ratelimit-headers:
   * - `true` or `'draft-8'`: the combined `RateLimit-Policy: "name";q=100;w=60` and
   *   `RateLimit: "name";r=42;t=17` (drafts 08 to 11);
   * - `'draft-6'`: the older trio `RateLimit-Limit`, `RateLimit-Remaining`, `RateLimit-Reset` (seconds)
   *   and `RateLimit-Policy: 100;w=60`, as express-rate-limit's `standardHeaders: true` or
   *   `'draft-6'` sends them;
   * - `false`: none (a rejection still gets Retry-After).
   * Sending them costs about as much server CPU as the decision itself (see docs/benchmarks.md).
   * @default true
   */
  standardHeaders?: StandardHeaders;
}

/** The RateLimit header styles (HeaderOptions.standardHeaders). */
export type StandardHeaders = boolean | 'draft-6' | 'draft-8';

/** The style `standardHeaders` names: false, the draft-6 trio, or the combined (draft-8) fields. */
export type HeaderStyle = false | 'draft-6' | 'draft-8';

/** Checks `standardHeaders` (a bad value throws a ConfigError naming it). */
export function headerStyle(v: unknown): HeaderStyle {
  if (v === undefined || v === true || v === 'draft-8') return 'draft-8';
  if (v === false || v === 'draft-6') return v;
  throw new ConfigError(
    'standardHeaders',
    `must be true, false, 'draft-6' or 'draft-8', got ${JSON.stringify(v)}`,
  );
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
 * The Item's value is the policy's name, a String (draft 10, Section 3.1: a Quota Policy Item
 * "contains an identifier for the policy"; Section 4.1: each Service Limit Item "identifies the
 * quota policy"): the name of a PolicyGateways' policy (`"free"`), or `policyName`, or "default".
 * and on a rejection Retry-After in seconds, rounded up so a client never retries too early; none on
 * a request that can never be admitted (Decision.exceedsLimit).
 * `nowMs` is only used for the legacy X-RateLimit-Reset, an absolute time.
 */
export function rateLimitHeaders(
  d: Decision,
  policy: Policy,
  name: string,
  legacy: boolean,
  nowMs: number,
  standard: StandardHeaders = true,
): Record<string, string> {
  return headerBuilder(policy, name, legacy, headerStyle(standard))(d, nowMs);
}

/**
 * rateLimitHeaders for one policy and set of options, with what does not change between requests
 * (the policy's header value) built once: the middleware calls this on every request.
 */
export function headerBuilder(
  policy: Policy,
  name: string,
  legacy: boolean,
  standard: HeaderStyle | boolean,
): (d: Decision, nowMs: number) => Record<string, string> {
  const style = standard === true ? 'draft-8' : standard;
  const window = Math.max(1, seconds(policy.windowMs));
  const policyValue = `${name};q=${policy.limit};w=${window}`;
  const limitValue = String(policy.limit);
  const trioPolicy = `${policy.limit};w=${window}`;
  const prefix = `${name};r=`;
  return (d, nowMs) => {
    // a request that can never be admitted gets no Retry-After: no retry can succeed
    const retry = !d.allowed && d.exceedsLimit !== true;
    const reset = retry ? Math.max(seconds(d.retryAfterMs ?? 0), 1) : seconds(d.resetMs);
    const remaining = Math.max(0, Math.floor(d.remaining));
    // each shape built whole, so V8 keeps a handful of object layouts, not one per combination
    let h: Record<string, string>;
    if (style === 'draft-6') {
      h = {
        'RateLimit-Policy': trioPolicy,
        'RateLimit-Limit': limitValue,
        'RateLimit-Remaining': String(remaining),
        'RateLimit-Reset': String(reset),
      };
      if (retry) h['Retry-After'] = String(reset);
    } else if (style === 'draft-8') {
      h = retry
        ? {
            'RateLimit-Policy': policyValue,
            RateLimit: `${prefix}${remaining};t=${reset}`,
            'Retry-After': String(reset),
          }
        : { 'RateLimit-Policy': policyValue, RateLimit: `${prefix}${remaining};t=${reset}` };
    } else h = retry ? { 'Retry-After': String(reset) } : {};
    if (legacy) {
      h['X-RateLimit-Limit'] = limitValue;
      h['X-RateLimit-Remaining'] = String(remaining);
      h['X-RateLimit-Reset'] = String(Math.ceil(nowMs / 1000) + reset);
    }
    return h;
  };
}

function seconds(ms: number): number {
  return Number.isFinite(ms) && ms > 0 ? Math.ceil(ms / 1000) : 0;
}
