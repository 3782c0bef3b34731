/**
 * A frozen copy of src/designs/split.ts as it was before the decision-cost work (commit 2cebc56): the
 * uncached, array-based reference that test/designs/cached.property.test.ts checks the optimised
 * classes against, call by call. Keep it as it is: it is the specification, not production code.
 */

import {
  ALLOW,
  DENY,
  type FleetParams,
  type KeyLimiter,
  type Verdict,
} from '../../../src/designs/key-limiter.js';
import type { AskReply, LogAdmitReply, SyncEntry, SyncReply } from '../../../src/store/contract.js';
import { expiryOf } from '../../../src/window/expiry.js';
import { TimeLog } from '../../../src/window/time-log.js';

/**
 * split: no sharing. Each gateway admits while its own count in the window is below L/K, compared
 * as a real number (L = 100, K = 32: fewer than 3.125, so up to 4). The fleet admits at most K·ceil(L/K).
 */
export class SplitKey implements KeyLimiter {
  readonly design = 'split' as const;
  private readonly own = new TimeLog(2);
  private readonly cap: number;

  constructor(private readonly p: FleetParams) {
    this.cap = p.policy.limit / p.gateways;
  }

  private live(now: number): number {
    const { windowMs, windowKind } = this.p.policy;
    this.own.dropExpired(now, windowMs, windowKind);
    return this.own.size;
  }

  decide(now: number, cost: number): Verdict {
    if (this.live(now) + cost - 1 < this.cap) {
      for (let i = 0; i < cost; i++) this.own.insert(now);
      return ALLOW;
    }
    return DENY;
  }

  onLogReply(_r: LogAdmitReply, _now: number, _cost: number): boolean {
    throw new Error('split never calls the store');
  }

  onAskReply(_r: AskReply, _now: number, _cost: number): boolean {
    throw new Error('split never calls the store');
  }

  askSize(_cost: number): number {
    return 0;
  }

  noteRejected(_n: number, _now: number): void {}

  nextChangeAt(_now: number): number {
    return this.resetAt(_now);
  }

  /** Frozen before Retry-After asked this: not compared (test/gateway/retry-after.property.test.ts checks it). */
  retryAt(_now: number, _cost: number, _syncAt: number): number {
    return Number.POSITIVE_INFINITY;
  }

  remaining(now: number): number {
    return Math.max(0, Math.ceil(this.cap - this.live(now)));
  }

  resetAt(now: number): number {
    this.live(now);
    const { windowMs, windowKind } = this.p.policy;
    return this.own.size === 0 ? Number.POSITIVE_INFINITY : expiryOf(this.own.first(), windowMs, windowKind);
  }

  syncEntry(_key: string, _now: number): SyncEntry | null {
    return null;
  }

  applySync(_reply: SyncReply, _now: number): void {}

  syncFailed(_now: number): void {}

  unsyncedAdmits(): number {
    return 0;
  }

  isIdle(now: number): boolean {
    return this.live(now) === 0;
  }
}
