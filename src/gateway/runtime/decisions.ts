import type { Design } from '../../designs/index.js';
import type { KeyLimiter } from '../../designs/key-limiter.js';
import { type Decision, resetMsOf } from '../decision.js';
import type { ResolvedOptions } from '../options.js';
import { nextSyncAt, retryAfterMs } from '../retry-after.js';
import type { DecisionCounts } from './runtime-stats.js';

/** What Decisions reads: the design, the options (K and Δ read at each use), the sync loop's last start. */
export interface DecisionsDeps {
  design: Design;
  options: ResolvedOptions;
  /** The last sync attempt's start, on decision time (SyncLoop.lastSyncStartAt): for Retry-After. */
  lastSyncStartAt: () => number;
}

/**
 * The gateway's Decisions, built and counted in one place: from a limiter's verdict, for a key the key
 * cap has no room for, for a request over the limit; and the counts by outcome (stats). Apart from the
 * gateway so that every path that decides (the local one, the request path's store calls, the fail
 * modes) builds a Decision the same way, Retry-After and resetMs included.
 */
export class Decisions {
  readonly counts: DecisionCounts = { allowed: 0, limited: 0, degradedAllowed: 0, degradedLimited: 0 };
  /** Requests for a new key rejected because every held key still had unconfirmed admits. */
  keyCapRejections = 0;

  constructor(private readonly d: DecisionsDeps) {}

  /** The decision of the key's limiter at `now` (its verdict `allowed`), not counted. */
  fromLimiter(lim: KeyLimiter, allowed: boolean, now: number, cost: number): Decision {
    const resetAt = lim.resetAt(now);
    const remaining = lim.remaining(now);
    const resetMs = resetMsOf(resetAt, now);
    // each shape built whole: adding retryAfterMs afterwards costs a second allocation
    if (allowed) return { allowed, remaining, resetMs, at: now };
    const retryAfter = retryAfterMs(
      lim,
      this.d.design,
      this.d.options.fleet,
      this.d.lastSyncStartAt(),
      now,
      cost,
    );
    return { allowed, remaining, resetMs, at: now, retryAfterMs: retryAfter };
  }

  /** Until the next sync, the first instant a rejection that waits on the store can change. */
  untilNextSync(now: number): number {
    const at = nextSyncAt(this.d.lastSyncStartAt(), now, this.d.options.fleet.syncMs);
    return Math.max(1, Math.ceil(at - now));
  }

  /** Counts `d` by outcome (degraded: decided by the fail mode) and returns it. */
  count(d: Decision, degraded: boolean): Decision {
    const c = this.counts;
    if (degraded) {
      if (d.allowed) c.degradedAllowed++;
      else c.degradedLimited++;
    } else if (d.allowed) c.allowed++;
    else c.limited++;
    return d;
  }

  /** A request for a new key while the key cap is full of keys with unconfirmed admits, counted. */
  noRoom(degraded: boolean, now: number): Decision {
    this.keyCapRejections++;
    const d: Decision = {
      allowed: false,
      remaining: 0,
      resetMs: 0,
      // a sync confirming some key's admits makes room
      retryAfterMs: this.untilNextSync(now),
      at: now,
    };
    if (degraded) d.degraded = true;
    return this.count(d, degraded);
  }

  /**
   * A request that costs more than can ever be admitted (Decision.exceedsLimit), counted: `lim` (the
   * key's, or a fresh one) is only read for the headers. No retryAfterMs: no retry can succeed.
   */
  overLimit(lim: KeyLimiter, now: number): Decision {
    const resetMs = resetMsOf(lim.resetAt(now), now);
    const d: Decision = {
      allowed: false,
      remaining: lim.remaining(now),
      resetMs,
      at: now,
      exceedsLimit: true,
    };
    return this.count(d, false);
  }
}
