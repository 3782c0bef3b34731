import type { Decision } from '../gateway/decision.js';

/**
 * The decision as the middleware puts it on the request (`req.rateLimit`), shaped as
 * express-rate-limit's RateLimitInfo, so handlers further on read what they read there. `remaining`,
 * `used` and `resetTime` are worked out when read, so a request whose handler never looks pays for
 * one small object (measured with bench/http-inprocess.mjs: computing them up front, with the Date,
 * cost ~0.25 µs a request); `toJSON` gives the plain fields express-rate-limit's object has.
 */
export class RateLimitInfo {
  constructor(
    /** L: the policy's limit. */
    readonly limit: number,
    /** The request's rate-limit key. */
    readonly key: string,
    /** The gateway's decision. */
    readonly decision: Decision,
    /** Local clock time of the decision, in ms (resetTime is measured from it). */
    readonly at: number,
    /** With a set of named policies: the policy the request was held to. */
    readonly policy?: string,
  ) {}

  /** Slots left after this request (0 when it was limited), as the gateway sees it. */
  get remaining(): number {
    return this.decision.allowed ? Math.max(0, Math.floor(this.decision.remaining)) : 0;
  }

  /**
   * Slots used: limit − remaining for an admitted request; limit + 1 for a limited one, as
   * express-rate-limit counts the request over the limit (so `used > limit` says it was limited).
   */
  get used(): number {
    return this.decision.allowed ? this.limit - this.remaining : this.limit + 1;
  }

  /**
   * When a slot frees up: for a limited request, when a retry may succeed (Retry-After); for an
   * admitted one, when the next slot frees. undefined when no retry can ever succeed (a cost over
   * the limit) or the gateway knows of no admit that will free one.
   */
  get resetTime(): Date | undefined {
    const d = this.decision;
    const wait = d.allowed ? d.resetMs : d.retryAfterMs;
    return wait === undefined || !Number.isFinite(wait) ? undefined : new Date(this.at + Math.max(0, wait));
  }

  /** The plain fields, as express-rate-limit's RateLimitInfo serializes. */
  toJSON(): {
    limit: number;
    used: number;
    remaining: number;
    resetTime: Date | undefined;
    key: string;
    policy?: string;
  } {
    const { limit, used, remaining, resetTime, key, policy } = this;
    return policy === undefined
      ? { limit, used, remaining, resetTime, key }
      : { limit, used, remaining, resetTime, key, policy };
  }
}
