import type { FailureCause } from './failure-cause.js';

/**
 * What an AsyncGateway emits (it is an EventEmitter<AsyncGatewayEvents>). Apart from the gateway so
 * the parts that emit on its behalf (SyncLoop, RoundCalls, the request path) name the events without
 * importing the gateway itself.
 */

/** One sync request answered: a sync goes out in parts (see sendParts), each its own request. */
export interface SyncEvent {
  seq: number;
  /** Keys exchanged. */
  keys: number;
  latencyMs: number;
  /** A resend of a part whose earlier attempt failed. */
  retry: boolean;
}

export interface SyncErrorEvent {
  seq: number;
  keys: number;
  latencyMs: number;
  /** See FailureCause: the store was slow, unreachable, or answered with an error. */
  reason: FailureCause;
  error?: unknown;
}

export interface StoreCallErrorEvent {
  call: 'logAdmit' | 'ask' | 'voidLogAdmits' | 'refundAdmits' | 'resetKey';
  key: string;
  reason: FailureCause;
  error?: unknown;
}

/** Another live gateway syncs with this gateway's id (see IdClaims, Incarnations). */
export interface DuplicateIdEvent {
  id: string;
  /** This gateway's incarnation, and the other one the store recorded since this one's last sync. */
  incarnation: string;
  other: string;
}

export interface AsyncGatewayEvents {
  sync: [SyncEvent];
  syncError: [SyncErrorEvent];
  storeCallError: [StoreCallErrorEvent];
  duplicateId: [DuplicateIdEvent];
}
