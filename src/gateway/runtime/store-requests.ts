import {
  ALLOW,
  type AsksStore,
  asksStore,
  type KeyLimiter,
  logsAtStore,
  NEED_STORE,
} from '../../designs/key-limiter.js';
import { askAnswered } from '../../designs/key-steps.js';
import type { Decision } from '../decision.js';
import { AGAIN, type AskCoalescer, type AskWaiter } from './ask-coalescer.js';
import type { FailureCause } from './failure-cause.js';
import type { StoreAccess } from './store-access.js';
import { withTimeout } from './timeout.js';

/** What the request path's store calls work with: the store (StoreAccess) and decision steps. */
export interface StoreRequestsDeps extends StoreAccess {
  /** Design.requestPath: 'log' (central-log) or 'ask' (leases-ask). */
  requestPath: 'log' | 'ask' | null;
  /** Decision time now (see StoreClock). */
  now: () => number;
  /** leases-ask: the ask in flight per key, and the requests waiting on it. */
  asks: AskCoalescer;
  /** The seq of the last sync built: an ask is tagged with it (SyncLoop.builtSeq). */
  builtSeq: () => number;
  storeDown: () => boolean;
  /** The decision of the key's limiter, counted (not degraded). */
  decided(lim: KeyLimiter, allowed: boolean, at: number, cost: number): Decision;
  /** The key's limiter admitted `cost` the store has not confirmed yet. */
  spent(cost: number): void;
  /** The fail mode's decision, counted (see degradedDecision). */
  degraded(key: string, now: number, cost: number, counted: boolean): Decision;
}

/**
 * The request path's store calls: a request whose limiter said NEED_STORE waits on central-log's
 * logAdmit or leases-ask's ask (at most storeTimeoutMs each).
 *
 * leases-ask: one ask in flight per key. A request that finds no slot while an ask for its key is
 * out waits for that ask and decides on what it brought, instead of asking too: the simulator's store
 * answers at once, so there the next request simply finds the grant; asking again would cost a round
 * trip each and ask for the same slots twice. The wait is bounded by that ask's store timeout; a
 * waiter that finds the grant used up by the others asks once more (see AskCoalescer.follow), so a
 * leases-ask request waits on the store at most about twice storeTimeoutMs.
 *
 * Apart from the gateway, which decides locally on nearly every request: this is the rare path that
 * waits, with its own failure counts, and the races between asks and syncs it guards against are
 * named by the regressions cited below.
 */
export class StoreRequests {
  /** Request-path store calls (logAdmit, ask) that failed, by cause. */
  readonly failures: Record<FailureCause, number> = { timeout: 0, refused: 0, error: 0 };

  constructor(private readonly d: StoreRequestsDeps) {}

  /** The decision of a request whose limiter said NEED_STORE: via the store, or the fail mode. */
  async viaStore(key: string, lim: KeyLimiter, now: number, cost: number): Promise<Decision> {
    const { policy } = this.d.options;
    if (this.d.requestPath === 'log' && logsAtStore(lim)) {
      const t0 = this.d.clock();
      const call = { gatewayId: this.d.incarnation, seq: this.d.voids.nextSeq() };
      const r = await withTimeout(
        () => this.d.store.logAdmit({ key, policy, cost, call }, now),
        this.d.storeTimeoutMs,
        this.d.store,
      );
      const t1 = this.d.clock();
      if (!r.ok) {
        // it may have landed, or land later: the decision is made without it, so the store must
        // not count it (taken back before the next sync; see voidLogAdmits)
        this.d.voids.add({ key, seq: call.seq, cost });
        return this.storeCallFailed('logAdmit', key, r, cost);
      }
      this.d.health.answered(t1);
      this.d.storeClock.learn(r.value.now, t0, t1);
      // The admit's instant is the store's stamp, the time the log holds it at and ages it out by:
      // the decision clock after the reply is later by the reply's way back, and a window judged on
      // that saw admits over L that the store never counted (regression:
      // test/regressions/central-log-at-is-gateway-clock.test.ts).
      const at = Number.isFinite(r.value.now) ? r.value.now : this.d.now();
      return this.d.decided(lim, lim.onLogReply(r.value, at, cost), at, cost);
    }
    if (!asksStore(lim)) throw new Error(`${lim.design} said NEED_STORE without a request path`);
    const asking = this.d.asks.inFlight(key);
    if (asking === undefined) return this.ask(key, lim, now, cost);
    return this.d.asks.follow(key, asking, this.waiter(key, lim, cost, this.d.clock()));
  }

  /**
   * A request that found no slot while an ask for its key was in flight: it waits for that ask (which
   * settles within its store timeout) and decides on what it brought. If other requests used the grant
   * up, it asks (or waits) again, while less than storeTimeoutMs has passed since it first waited;
   * then it is rejected.
   */
  private waiter(key: string, lim: KeyLimiter & AsksStore, cost: number, since: number): AskWaiter<Decision> {
    let now = 0;
    return {
      ask: () => this.ask(key, lim, now, cost),
      retry: () => {
        now = this.d.now();
        // the ask failed (or another call did meanwhile): decide as that ask's request did
        if (this.d.storeDown()) return this.d.degraded(key, now, cost, true);
        const v = lim.decideAgain(now, cost);
        if (v === ALLOW) {
          this.d.spent(cost);
          return this.d.decided(lim, true, now, cost);
        }
        if (v === NEED_STORE && this.d.clock() - since < this.d.storeTimeoutMs) return AGAIN;
        return this.d.decided(lim, false, now, cost);
      },
    };
  }

  /**
   * leases-ask's request-path ask; requests for the key that find no slot meanwhile wait on it. An
   * ask that a sync of this gateway crossed brings a grant the limiter may not spend (that sync may
   * have handed it back): the request asks again, tagged after that sync, while less than
   * storeTimeoutMs has passed since it first asked (regression:
   * test/regressions/leases-ask-sync-crossing-ask-refuses-its-request.test.ts).
   */
  private async ask(key: string, lim: KeyLimiter & AsksStore, now: number, cost: number): Promise<Decision> {
    const { policy, fleet } = this.d.options;
    const settle = this.d.asks.open(key);
    try {
      const first = this.d.clock();
      for (;;) {
        const t0 = this.d.clock();
        const ask = lim.askSize(cost);
        // tagged with the last sync built: that sync and its resends never hand this grant back
        const seq = this.d.builtSeq();
        const r = await withTimeout(
          () =>
            this.d.store.ask(
              { gatewayId: this.d.incarnation, key, policy, leaseTtlMs: fleet.leaseTtlMs, ask, seq },
              now,
            ),
          this.d.storeTimeoutMs,
          this.d.store,
        );
        const t1 = this.d.clock();
        if (!r.ok) return this.storeCallFailed('ask', key, r, cost);
        this.d.health.answered(t1);
        this.d.storeClock.learn(r.value.now, t0, t1);
        const at = this.d.now();
        // A sync built while the ask was out hands back what the gateway held then: the limiter spends
        // none of this grant (regression: test/regressions/leases-ask-ask-and-sync-cross.live.test.ts). A resend of a
        // sync built before the ask does not take it back (the grant's tag; regression:
        // test/regressions/leases-ask-resent-sync-releases-later-ask.test.ts).
        // (A sync built for this key since the ask went out releases the parts tagged below its seq,
        // this ask's among them: the limiter spends none of it, by the sync it recorded in askSize;
        // regression: test/regressions/leases-ask-coalesced-request-spends-released-ask.test.ts.)
        const reply = this.d.storeClock.withLapseMargin(r.value);
        // refused on its merits (deniedUntilSync: DENY), or crossed by a sync (NEED_STORE: again)
        const v = askAnswered(lim, reply, at, cost);
        if (v === NEED_STORE && t1 - first < this.d.storeTimeoutMs) {
          now = at;
          continue;
        }
        const allowed = v === ALLOW;
        if (allowed) this.d.spent(cost);
        return this.d.decided(lim, allowed, at, cost);
      }
    } finally {
      // the waiters run after this request has applied the reply (or failed)
      settle();
    }
  }

  private storeCallFailed(
    call: 'logAdmit' | 'ask',
    key: string,
    r: { cause: FailureCause; error?: unknown },
    cost: number,
  ): Decision {
    this.d.health.failing = true;
    this.failures[r.cause]++;
    this.d.events.emit('storeCallError', { call, key, reason: r.cause, error: r.error });
    // an ask's request went through its limiter's decide already, which must not count it twice
    return this.d.degraded(key, this.d.now(), cost, call === 'ask');
  }
}
