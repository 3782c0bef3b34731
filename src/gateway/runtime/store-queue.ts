import type { Policy } from '../../config.js';
import type { FailureCause } from './failure-cause.js';

/** What a queue's store call needs: whose call it is, the policy, and how long it may take. */
export interface QueueCall {
  gatewayId: string;
  policy: Policy;
  timeoutMs: number;
}

/** A queued store call that failed: its key, and why. */
export interface KeyFailure {
  key: string;
  cause: FailureCause;
  error?: unknown;
}

/**
 * A queue of store calls sent at the start of each sync round (RefundQueue, ResetQueue), at most
 * `max` kept. Its sends run one at a time, each after the one before settles, so what it sends
 * lands in the order it was queued.
 */
export abstract class StoreQueue {
  /** Calls the store answered (refunds, resets). */
  sent = 0;
  /** The send in flight. */
  private sending: Promise<unknown> = Promise.resolve();

  constructor(protected readonly max: number) {}

  /** `send` once the send in flight (if any) has settled. */
  protected afterLast<T>(send: () => Promise<T>): Promise<T> {
    const p = this.sending.then(send);
    this.sending = p;
    return p;
  }
}
