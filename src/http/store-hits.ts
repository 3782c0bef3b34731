import { ConfigError, type Policy } from '../config.js';
import type { KeyLimiter } from '../designs/key-limiter.js';
import type { Decision } from '../gateway/decision.js';

/** What the stores for express-rate-limit and @fastify/rate-limit need of a gateway (an AsyncGateway has it). */
export interface CountingGateway {
  readonly options: { readonly policy: Policy };
  admitNow(key: string, cost?: number): Decision | Promise<Decision>;
  /** The gateway's decision clock (store time). */
  now(): number;
  limiterFor(key: string): KeyLimiter | undefined;
  stop(): Promise<boolean>;
  /** Whether `refund` can take admits back (AsyncGateway.refunds). */
  readonly refunds?: boolean;
  /** Takes an admitted request back (AsyncGateway.refund): express-rate-limit's decrement. */
  refund?(key: string, decision: Decision, cost?: number): boolean;
  /** Whether `resetKey` can reset keys (AsyncGateway.resets). */
  readonly resets?: boolean;
  /** Resets a key across the fleet (AsyncGateway.resetKey): express-rate-limit's resetKey. */
  resetKey?(key: string): Promise<boolean>;
  /** Resets every key of the policy across the fleet (AsyncGateway.resetAll): express-rate-limit's resetAll. */
  resetAll?(): Promise<boolean>;
}

/**
 * A fleetlimit decision as a hit count those packages compare with their limit (`hits > limit`
 * means limited), and the wait in ms their reset headers show:
 * - admitted: limit − remaining, at least 1 and at most the limit, and the wait until the next slot
 *   frees (Decision.resetMs), so their `remaining = limit − hits` is fleetlimit's;
 * - limited: limit + 1, and the true wait until a retry may succeed (Decision.retryAfterMs).
 * A wait the gateway cannot know (no admit of the key in sight) is the window.
 */
export function asHits(d: Decision, policy: Policy): { hits: number; waitMs: number } {
  const limit = policy.limit;
  if (!d.allowed) return { hits: limit + 1, waitMs: finiteWait(d.retryAfterMs ?? d.resetMs, policy) };
  const used = limit - Math.floor(d.remaining);
  return { hits: Math.min(limit, Math.max(1, used)), waitMs: finiteWait(d.resetMs, policy) };
}

/** The key's count as the gateway sees it now, without counting a request; null if it holds no state for it. */
export function peekHits(gw: CountingGateway, key: string): { hits: number; waitMs: number } | null {
  const lim = gw.limiterFor(key);
  if (lim === undefined) return null;
  const policy = gw.options.policy;
  const now = gw.now();
  const used = policy.limit - Math.floor(lim.remaining(now));
  return {
    hits: Math.min(policy.limit, Math.max(0, used)),
    waitMs: finiteWait(lim.resetAt(now) - now, policy),
  };
}

function finiteWait(ms: number | undefined, policy: Policy): number {
  return ms !== undefined && Number.isFinite(ms) ? Math.max(0, ms) : policy.windowMs;
}

/**
 * The limit and window the other package was given must be the gateway's: the gateway decides, and
 * the package compares the hit count with its own limit and shows its own window in its headers. A
 * mismatch is a ConfigError naming the package's field.
 */
export function requireSamePolicy(
  policy: Policy,
  limit: { field: string; value: unknown },
  window: { field: string; value: unknown },
): void {
  for (const [f, want] of [
    [limit, policy.limit],
    [window, policy.windowMs],
  ] as const) {
    if (typeof f.value === 'function') {
      throw new ConfigError(
        f.field,
        `a function of the request is not supported with fleetlimit's store: set the number (the gateway's is ${want}); for limits per request, use fleetlimit's own middleware with a set of policies`,
      );
    }
    if (f.value !== want) {
      throw new ConfigError(
        f.field,
        `is ${JSON.stringify(f.value)} but the fleetlimit gateway's is ${want}: they must be the same (the gateway decides, and the rate limiter compares its count with its own ${f.field})`,
      );
    }
  }
}

/** A store method fleetlimit cannot serve yet: a rejection saying so, never a silent no-op. */
export function notSupported(what: string, why: string): Error {
  return new Error(`fleetlimit: ${what} is not supported yet: ${why}`);
}

export const NO_RESET =
  "the store has no operation that clears a key's count across the fleet; the key's admits leave as they age out of the window";

export const NO_RESET_ALL =
  'the gateway has no resetAll (an AsyncGateway on MemoryStore or RedisStore has it); reset each key with resetKey';
