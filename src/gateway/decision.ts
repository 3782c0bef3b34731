/** The outcome of one admit() call: a value, never an exception. */
export interface Decision {
  allowed: boolean;
  /** Slots left after this decision, as this gateway sees it. */
  remaining: number;
  /** Milliseconds until the next slot frees up, as this gateway sees it. */
  resetMs: number;
  /** On a rejection: milliseconds until a retry may succeed (next expiry or next sync). */
  retryAfterMs?: number;
  /** True when the decision was made without the store (fail modes, in the runtime). */
  degraded?: boolean;
}
