import type { Decision } from '../gateway/decision.js';

/**
 * The decision as the middleware puts it on the request (`req.rateLimit`), shaped as
 * express-rate-limit's RateLimitInfo (plain fields, so it serializes and spreads as that one does),
 * so handlers further on read what they read there.
 */
export class RateLimitInfo {
  /** Slots left after this request (0 when it was limited), as the gateway sees it. */
  readonly remaining: number;
  /**
   * Slots used: limit − remaining for an admitted request; limit + 1 for a limited one, as
   * express-rate-limit counts the request over the limit (so `used > limit` says it was limited).
   */
  readonly used: number;
  /**
   * When a slot frees up: for a limited request, when a retry may succeed (Retry-After); for an
   * admitted one, when the next slot frees. undefined when no retry can ever succeed (a cost over
   * the limit) or the gateway knows of no admit that will free one.
   */
  readonly resetTime: Date | undefined;

  constructor(
    /** L: the policy's limit. */
    readonly limit: number,
    /** The request's rate-limit key. */
    readonly key: string,
    /** The gateway's decision. */
    readonly decision: Decision,
    /** Local clock time of the decision, in ms. */
    at: number,
    /** With a set of named policies: the policy the request was held to. */
    readonly policy?: string,
  ) {
    this.remaining = decision.allowed ? Math.max(0, Math.floor(decision.remaining)) : 0;
    this.used = decision.allowed ? limit - this.remaining : limit + 1;
    const wait = decision.allowed ? decision.resetMs : decision.retryAfterMs;
    this.resetTime =
      wait === undefined || !Number.isFinite(wait) ? undefined : new Date(at + Math.max(0, wait));
  }
}
