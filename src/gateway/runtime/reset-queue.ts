import type { AsyncStore } from '../../store/contract.js';
import { type KeyFailure, type QueueCall, StoreQueue } from './store-queue.js';
import { withTimeout } from './timeout.js';

/** A resetKey call that failed: its key, and why. */
export type ResetFailure = KeyFailure;

/**
 * Keys to reset at the store (Store.resetKey, docs/decisions/0014-reset-key.md), sent at the start of
 * a sync round, after the resends of earlier syncs and before the new sync. A queued key stays out of
 * every sync until its reset is answered (see `held`), so no admit this gateway made after the reset
 * reaches the store before it (the reset would forget it), and the admits of a sync sent before it
 * (in flight, or its resend) land first. A key whose reset failed is kept for the next round. At most
 * `max` keys wait: past it a reset is refused (`add` returns null), never queued unbounded.
 */
export class ResetQueue extends StoreQueue {
  /** Keys waiting, each with the callers waiting on it (resolved true once the store answered). */
  private readonly waiting = new Map<string, ((ok: boolean) => void)[]>();

  get pending(): number {
    return this.waiting.size;
  }

  /** The key waits for its reset: left out of syncs (SyncLoop adds these to its unresolved keys). */
  holds(key: string): boolean {
    return this.waiting.has(key);
  }

  /**
   * Queues the key's reset; resolves true once the store has applied it, false if an attempt failed
   * (the reset stays queued and goes again next round). Null when `max` keys wait already.
   */
  add(key: string): Promise<boolean> | null {
    let l = this.waiting.get(key);
    if (l === undefined) {
      if (this.waiting.size >= this.max) return null;
      this.waiting.set(key, (l = []));
    }
    const list = l;
    return new Promise((resolve) => list.push(resolve));
  }

  /**
   * Sends the reset of every key waiting that is not in `unresolved` (an unanswered sync part of this
   * gateway carries it: its resend goes first), one call per key, together. Returns the failures.
   */
  send(
    store: AsyncStore,
    call: QueueCall,
    now: number,
    unresolved: ReadonlySet<string>,
  ): Promise<ResetFailure[]> {
    // one at a time: central-log's go at once, besides the rounds'
    return this.afterLast(() => this.sendNow(store, call, now, unresolved));
  }

  private async sendNow(
    store: AsyncStore,
    call: QueueCall,
    now: number,
    unresolved: ReadonlySet<string>,
  ): Promise<ResetFailure[]> {
    if (this.waiting.size === 0 || store.resetKey === undefined) return [];
    const keys = [...this.waiting.keys()].filter((k) => !unresolved.has(k));
    const failures: ResetFailure[] = [];
    await Promise.all(
      keys.map(async (key) => {
        // the callers of this send; one who calls while it is out waits for the next (its reset is later)
        const callers = this.waiting.get(key)!;
        this.waiting.set(key, []);
        const r = await withTimeout(
          () => store.resetKey!({ gatewayId: call.gatewayId, key, policy: call.policy }, now),
          call.timeoutMs,
          store,
          'renew',
        );
        if (r.ok) {
          if (this.waiting.get(key)?.length === 0) this.waiting.delete(key);
          this.sent++;
        } else {
          // kept, for the next round; its callers hear of the failure now
          failures.push({ key, cause: r.cause, error: r.error });
        }
        for (const resolve of callers) resolve(r.ok);
      }),
    );
    return failures;
  }
}
