import type { KeyLimiter, TakesBack } from '../../designs/key-limiter.js';
import type { AsyncStore, Refund } from '../../store/contract.js';
import { type KeyFailure, type QueueCall, StoreQueue } from './store-queue.js';
import { withTimeout } from './timeout.js';

/** An admit to take back that a sync in flight carries: asked about again once that sync settles. */
interface Waiting {
  key: string;
  at: number;
  cost: number;
}

/**
 * Refunds the store must apply (an admit it counts: Store.refundAdmits), and those waiting on a sync
 * in flight. Sent in one call at the start of each sync round, before the sync, so the sync's reads
 * count without them; kept for the next round if the store does not answer (ahead of newer ones, so
 * a key's refunds reach it in seq order, and the store applies each seq once). At most `max` of each
 * are kept (the oldest go first: a refund lost so errs towards rejecting, never admits more).
 */
export class RefundQueue extends StoreQueue {
  private list: Refund[] = [];
  private waiting: Waiting[] = [];
  private seq = 0;

  /** Refunds not yet answered by the store, waiting on a sync or not. */
  get pending(): number {
    return this.list.length + this.waiting.length;
  }

  /** An admit the store counts: numbered now, sent at the next round. */
  add(key: string, at: number, cost: number): void {
    this.list.push({ key, seq: ++this.seq, at, cost });
    if (this.list.length > this.max) this.list.shift();
  }

  /** Drops the key's refunds (a reset of the key forgets the admits they would take back). */
  drop(key: string): void {
    if (this.list.length > 0) this.list = this.list.filter((r) => r.key !== key);
    if (this.waiting.length > 0) this.waiting = this.waiting.filter((w) => w.key !== key);
  }

  /** Drops every refund of an admit at or before `at` (a reset of every key forgets them). */
  dropThrough(at: number): void {
    if (this.list.length > 0) this.list = this.list.filter((r) => r.at > at);
    if (this.waiting.length > 0) this.waiting = this.waiting.filter((w) => w.at > at);
  }

  /** An admit a sync in flight carries (TakeBack 'wait'). */
  wait(key: string, at: number, cost: number): void {
    this.waiting.push({ key, at, cost });
    if (this.waiting.length > this.max) this.waiting.shift();
  }

  /**
   * Asks each limiter again about the refunds that waited on a sync: taken back there ('local': the
   * sync failed and the admit is pending again; `local(cost)` is told), queued for the store (the sync
   * was answered), still waiting, or gone.
   */
  resolve(
    now: number,
    limiterOf: (key: string) => KeyLimiter & TakesBack,
    local: (cost: number) => void,
  ): void {
    if (this.waiting.length === 0) return;
    const waiting = this.waiting;
    this.waiting = [];
    for (const w of waiting) {
      const r = limiterOf(w.key).takeBack(w.at, w.cost, now);
      if (r === 'local') local(w.cost);
      else if (r === 'store') this.add(w.key, w.at, w.cost);
      else if (r === 'wait') this.waiting.push(w);
    }
  }

  /**
   * Sends every queued refund in one refundAdmits call, after any send in flight; returns the failure
   * (with the first refund's key) or null. Nothing is sent when none is queued.
   */
  send(store: AsyncStore, call: QueueCall, now: number): Promise<KeyFailure | null> {
    // one at a time, so a key's refunds land in seq order
    return this.afterLast(() => this.sendNow(store, call, now));
  }

  private async sendNow(store: AsyncStore, call: QueueCall, now: number): Promise<KeyFailure | null> {
    if (this.list.length === 0 || store.refundAdmits === undefined) return null;
    const taken = this.list;
    this.list = [];
    const r = await withTimeout(
      () => store.refundAdmits!(call.gatewayId, call.policy, taken, now),
      call.timeoutMs,
      store,
      'renew',
    );
    if (r.ok) {
      this.sent += taken.length;
      return null;
    }
    this.list = taken.concat(this.list);
    if (this.list.length > this.max) this.list.splice(0, this.list.length - this.max);
    return { key: taken[0].key, cause: r.cause, error: r.error };
  }
}
