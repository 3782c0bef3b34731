import type { Design } from '../designs/index.js';
import type { FleetParams, KeyLimiter } from '../designs/key-limiter.js';

/**
 * A rejection's retryAfterMs (both gateways): until the first instant the key admits the request on
 * what the gateway knows (KeyLimiter.retryAt), or, when it cannot know, its next sync, or later the
 * soonest it might admit where it knows that (KeyLimiter.retryNotBefore: the synced designs waiting on
 * other gateways' admits they know only as a count) (central-log,
 * which never syncs: its oldest admit's expiry, when the store's answer can next change). Never below
 * 1 ms. It used to be the sooner of the next sync and the next expiry, whether or not either could
 * admit: a client obeying it retried every Δ (regression:
 * test/regressions/retry-after-is-always-the-sync-interval.test.ts).
 */
export function retryAfterMs(
  lim: KeyLimiter,
  design: Design,
  fleet: FleetParams,
  lastSyncAt: number,
  now: number,
  cost: number,
): number {
  const never = design.syncs === 'never';
  const nextSync = nextSyncAt(lastSyncAt, now, fleet.syncMs);
  // Not synced yet, its first sync may come at any moment; with replies that list less than Δ ahead,
  // that sync may leave its own admits' expiries unlisted, and counted, past them: nothing is promised
  // before it.
  const blind = Number.isNaN(lastSyncAt) && fleet.horizonMs < fleet.syncMs;
  const syncAt = never ? Number.POSITIVE_INFINITY : blind ? now : nextSync;
  let at = lim.retryAt(now, cost, syncAt);
  if (at === Number.POSITIVE_INFINITY) {
    if (never) at = lim.nextChangeAt(now);
    else {
      // not before what it knows it waits for, when it knows that much (the synced designs)
      const notBefore = lim.retryNotBefore?.(now, cost, syncAt) ?? Number.NEGATIVE_INFINITY;
      at = Number.isFinite(notBefore) ? Math.max(nextSync, notBefore) : nextSync;
    }
  }
  return Number.isFinite(at) ? Math.max(1, Math.ceil(at - now)) : Math.ceil(fleet.policy.windowMs);
}

/**
 * When a gateway that syncs every Δ expects its next sync: Δ after its last, or — that instant passed
 * (a sync still in flight, a tick skipped) — the next tick on the same Δ grid; Δ from now before the
 * first. On the grid, not Δ from now: the answer stays put between ticks, so a key's cached answer
 * (KeyLimiter.retryAt) stays good too.
 */
export function nextSyncAt(lastSyncAt: number, now: number, syncMs: number): number {
  if (Number.isNaN(lastSyncAt)) return now + syncMs;
  const next = lastSyncAt + syncMs;
  return next > now ? next : lastSyncAt + (Math.floor((now - lastSyncAt) / syncMs) + 1) * syncMs;
}
