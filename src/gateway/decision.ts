/** The outcome of one admit() call: a value, never an exception. */
export interface Decision {
  allowed: boolean;
  /** Slots left after this decision, as this gateway sees it. */
  remaining: number;
  /** Milliseconds until the next slot frees up, as this gateway sees it. */
  resetMs: number;
  /**
   * On a rejection: milliseconds until a retry may succeed (next expiry or next sync). Absent when
   * no retry can (exceedsLimit).
   */
  retryAfterMs?: number;
  /**
   * The request costs more than the limit admits in any window (L; split: ceil(L/K)), so it can never
   * be admitted: rejected at once, without the store and without touching the key's state, and
   * without retryAfterMs (the middleware sends its 429 without Retry-After).
   */
  exceedsLimit?: true;
  /** True when the decision was made without the store (fail modes, in the runtime). */
  degraded?: boolean;
  /**
   * The async runtime: the instant of the decision on the gateway's decision clock (the store's time
   * as this gateway estimates it). An admit is pushed to the store with this time, and the store ages
   * it out W later on its own clock. central-log's admits are made at the store: there it is the
   * store's own stamp of the admit (LogAdmitReply.now), not the gateway's clock when the reply came.
   */
  at?: number;
}

/** Decision.resetMs from a limiter's or outage record's resetAt: 0 when it does not know (Infinity). */
export function resetMsOf(resetAt: number, now: number): number {
  return Number.isFinite(resetAt) ? Math.max(0, resetAt - now) : 0;
}
