import type { Policy } from '../config.js';
import type { AskRequest, AsyncStore, LogAdmitRequest, LogVoid, Store, SyncRequest } from './contract.js';

/** What S answers to call K: a reply (a Store) or a promise of one (an AsyncStore). */
type Answer<S extends Store | AsyncStore, K extends keyof Store & keyof AsyncStore> = ReturnType<
  NonNullable<S[K]>
>;

/**
 * A store that passes every call to `inner` as it came: a wrapper (counting, losing replies) extends
 * it and overrides only the calls it changes. Works for either form: over a Store it is a Store, over
 * an AsyncStore an AsyncStore. The optional calls exist only when the inner store has them (their
 * absence is how a gateway tells a store serving fixed K only, or no refunds or resets); the clock and the
 * connection are the inner store's.
 */
export class PassThroughStore<S extends Store | AsyncStore> {
  /** The inner store's, when it has one (gateways 'auto'). */
  readonly heartbeat?: S['heartbeat'];
  /** The inner store's, when it has one (refunds). */
  readonly refundAdmits?: S['refundAdmits'];
  /** The inner store's, when it has one (resets). */
  readonly resetKey?: S['resetKey'];
  /** The inner store's, when it has one (resetAll). */
  readonly resetScan?: S['resetScan'];

  constructor(readonly inner: S) {
    if (inner.heartbeat !== undefined) this.heartbeat = inner.heartbeat.bind(inner) as S['heartbeat'];
    if (inner.refundAdmits !== undefined)
      this.refundAdmits = inner.refundAdmits.bind(inner) as S['refundAdmits'];
    if (inner.resetKey !== undefined) this.resetKey = inner.resetKey.bind(inner) as S['resetKey'];
    if (inner.resetScan !== undefined) this.resetScan = inner.resetScan.bind(inner) as S['resetScan'];
  }

  /** The inner store's (a Store has none: it runs on the time it is passed). */
  get clock(): AsyncStore['clock'] {
    return (this.inner as AsyncStore).clock;
  }

  /** The inner store's; one that cannot tell counts as connected. */
  connected(): boolean {
    return (this.inner as AsyncStore).connected?.() !== false;
  }

  logAdmit(req: LogAdmitRequest, now: number): Answer<S, 'logAdmit'> {
    return this.inner.logAdmit(req, now) as Answer<S, 'logAdmit'>;
  }

  voidLogAdmits(
    gatewayId: string,
    policy: Policy,
    voids: LogVoid[],
    now: number,
  ): Answer<S, 'voidLogAdmits'> {
    return this.inner.voidLogAdmits(gatewayId, policy, voids, now) as Answer<S, 'voidLogAdmits'>;
  }

  sync(req: SyncRequest, now: number): Answer<S, 'sync'> {
    return this.inner.sync(req, now) as Answer<S, 'sync'>;
  }

  ask(req: AskRequest, now: number): Answer<S, 'ask'> {
    return this.inner.ask(req, now) as Answer<S, 'ask'>;
  }
}
