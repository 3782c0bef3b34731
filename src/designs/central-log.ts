import type { LogAdmitReply } from '../store/contract.js';
import { expiryOf } from '../window/expiry.js';
import { type FleetParams, type GatewayKey, NEED_STORE, type TakeBack, type Verdict } from './key-limiter.js';
import { NeverSyncs } from './never-syncs.js';

/**
 * central-log: every request asks the store, which admits iff its window count + cost <= L.
 * Exact; a store round trip per request. The gateway keeps only the last reply, for headers
 * and for the simulator's skip (nothing can change until the oldest admit leaves the window).
 */
export class CentralLogKey extends NeverSyncs implements GatewayKey {
  readonly design = 'central-log' as const;
  private count = 0;
  private oldestExpiry = Number.POSITIVE_INFINITY;

  constructor(private readonly p: FleetParams) {
    super();
  }

  decide(_now: number, _cost: number): Verdict {
    return NEED_STORE;
  }

  onLogReply(reply: LogAdmitReply, _now: number, _cost: number): boolean {
    this.count = reply.count;
    this.oldestExpiry = reply.oldestExpiry;
    return reply.allowed;
  }

  noteRejected(_n: number, _now: number): void {}

  /** Every admit is the store's (its stamp is `at`): a refund goes there while the admit still counts. */
  takeBack(at: number, _cost: number, now: number): TakeBack {
    const { windowMs, windowKind } = this.p.policy;
    return expiryOf(at, windowMs, windowKind) <= now ? 'gone' : 'store';
  }

  /** A reset (Forgets): nothing is its own (every admit is the store's); the last reply's view goes. */
  forget(_now: number): number {
    this.count = 0;
    this.oldestExpiry = Number.POSITIVE_INFINITY;
    return 0;
  }

  nextChangeAt(_now: number): number {
    return this.oldestExpiry;
  }

  /**
   * The gateway knows the store's count and when its oldest admit ages out, nothing of the others:
   * that instant if one slot freeing is enough for `cost`, else Infinity (the gateway then answers
   * with that instant all the same, the next at which the store's answer can change).
   */
  retryAt(now: number, cost: number, _syncAt: number): number {
    const limit = this.p.policy.limit;
    const gone = now >= this.oldestExpiry;
    if ((gone ? this.count - 1 : this.count) + cost <= limit) return now;
    return !gone && this.count - 1 + cost <= limit ? this.oldestExpiry : Number.POSITIVE_INFINITY;
  }

  remaining(now: number): number {
    const count = now >= this.oldestExpiry ? this.count - 1 : this.count;
    return Math.max(0, this.p.policy.limit - count);
  }

  resetAt(_now: number): number {
    return this.oldestExpiry;
  }

  isIdle(now: number): boolean {
    return now >= this.oldestExpiry || this.count === 0;
  }
}
