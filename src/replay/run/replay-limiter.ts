/**
 * What the per-key syncs (KeySyncs) make for each gateway: a key's limiter, and the sync request
 * reused for every key's sync there.
 */
import type { Design } from '../../designs/index.js';
import type { FleetParams, KeyLimiter } from '../../designs/key-limiter.js';
import { SyncedKey } from '../../designs/synced.js';
import type { Gateway } from '../../gateway/gateway.js';
import type { SyncRequest } from '../../store/contract.js';

/**
 * A key's limiter at a gateway, as `Design.create` makes it, less what only Retry-After reads: the
 * replay asks none, and a synced key with reads at every sync kept its pushes past the horizon for it
 * alone (SyncedKey.withoutRetryAfter), a window of arrays per held key that the collector copied out
 * of the young generation (shared-counter at K = 32 random: 78 of the 467 bytes a line that outlived
 * a scavenge).
 */
export function replayLimiter(design: Design, fleet: FleetParams, now: number): KeyLimiter {
  const lim = design.create(fleet, now);
  if (lim instanceof SyncedKey) lim.withoutRetryAfter();
  return lim;
}

/**
 * Whether the design's keys, as replayLimiter makes them, read a reply's Retry-After fields
 * (SyncedKey.readsRetryAfter; every gateway's alike: one design, one reads option): where not, the
 * store's syncs leave them out (MemoryStore.syncNext).
 */
export function readsRetryAfter(design: Design, fleet: FleetParams): boolean {
  const lim = replayLimiter(design, fleet, 0);
  return !(lim instanceof SyncedKey) || lim.readsRetryAfter;
}

/** A gateway's sync request, reused for each key's sync there (KeySyncs: its seq and entries rewritten). */
export function syncRequestOf(gw: Gateway): SyncRequest {
  const { policy, fleet } = gw.options;
  return {
    gatewayId: gw.id,
    seq: 0,
    policy,
    leaseTtlMs: fleet.leaseTtlMs,
    horizonMs: fleet.horizonMs,
    entries: [],
  };
}
