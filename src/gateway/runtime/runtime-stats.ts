import type { FailureCause } from './failure-cause.js';

// AsyncGateway.stats()'s shape, apart from the gateway: the metrics and the sidecar read it, and it
// is a public type (src/index.ts) that changes with the counters, not with the decision path.

export interface DecisionCounts {
  allowed: number;
  limited: number;
  degradedAllowed: number;
  degradedLimited: number;
}

/** A snapshot of the runtime's counters (the Prometheus metrics read these). */
export interface RuntimeStats {
  /** Sync requests answered: a sync goes out in parts of `partKeys` keys, each one request. */
  syncs: number;
  /** Sync requests (parts) that failed, by cause (see FailureCause): timed out, refused, answered with an error. */
  syncTimeouts: number;
  syncRefusals: number;
  syncErrors: number;
  /** Request-path store calls (logAdmit, ask) that failed, all causes. */
  storeCallFailures: number;
  storeCallFailuresBy: Record<FailureCause, number>;
  /** Local clock time of the last good store reply; NaN before the first. */
  lastGoodAt: number;
  /** Since the last good store reply, or since the gateway was created if there was none. */
  lastGoodAgeMs: number;
  /** Admits this gateway made that the store has not confirmed yet. */
  unsyncedAdmits: number;
  keys: number;
  decisions: DecisionCounts;
  /** Store time − local time, from the store reply with the shortest recent round trip. */
  offsetMs: number;
  /** How far offsetMs can be off: half that reply's round trip + the local clock's 1 ms tick (NaN before the first reply with a store time). */
  offsetErrorMs: number;
  /** Requests that found no slot while an ask for their key was in flight and waited on it instead of asking (leases-ask). */
  coalescedAsks: number;
  /** Keys dropped to stay under maxKeys (idle ones not included). */
  evictions: number;
  /** Requests for a new key rejected because every held key still had unconfirmed admits. */
  keyCapRejections: number;
  /** The store counts as unreachable now. */
  storeDown: boolean;
  /** central-log calls that failed or timed out and have not been taken back at the store yet. */
  pendingVoids: number;
  /** central-log calls taken back at the store (voidLogAdmits answered). */
  voidedCalls: number;
  /** The last answered sync found that another live gateway had synced with this id since this one's previous sync. */
  duplicateId: boolean;
  /** Answered syncs that found another live gateway with this id. */
  duplicateIdSyncs: number;
  /** Keys per sync request (part) the next sync is cut into, from the store's recent speed. */
  partKeys: number;
  /** K in use: the configured one, or with gateways 'auto' the store's last count of live gateways. */
  gateways: number;
  /** gateways 'auto': heartbeats that failed or timed out (K kept its last count). */
  heartbeatFailures: number;
  /** Design.earlySyncs (adaptive-early): sync rounds started early, off the request path (0: none). */
  earlySyncs: number;
  /** Early syncs a key wanted while the gateway's early-sync bucket was empty (the store's cap). */
  earlySyncsCapped: number;
}

/** Failures of every cause (RuntimeStats.storeCallFailures from storeCallFailuresBy). */
export function sumByCause(byCause: Record<FailureCause, number>): number {
  return byCause.timeout + byCause.refused + byCause.error;
}
