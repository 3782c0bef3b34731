import type { WindowKind } from '../config.js';
import type { AskReply, LogAdmitReply, SyncEntry, SyncReply } from '../store/contract.js';
import { expiryOf } from '../window/expiry.js';
import { RunLog } from '../window/run-log.js';
import { ALLOW, DENY, type FleetParams, type KeyLimiter, type Verdict } from './key-limiter.js';

/**
 * split: no sharing. Each gateway admits while its own count in the window is below L/K, compared
 * as a real number (L = 100, K = 32: fewer than 3.125, so up to 4). The fleet admits at most K·ceil(L/K).
 * K is read at each decision: with `gateways: 'auto'` the gateway sets it from the store's count.
 */
export class SplitKey implements KeyLimiter {
  readonly design = 'split' as const;
  private readonly own = new RunLog();
  private readonly windowMs: number;
  private readonly windowKind: WindowKind;
  /** When the oldest own admit stops counting: until then the live count is `own.size` as it stands. */
  private firstExpiry = Number.POSITIVE_INFINITY;

  constructor(private readonly p: FleetParams) {
    this.windowMs = p.policy.windowMs;
    this.windowKind = p.policy.windowKind;
  }

  /** This gateway's share of the limit, L/K, with the K in use now. */
  private cap(): number {
    return this.p.policy.limit / this.p.gateways;
  }

  private live(now: number): number {
    if (now >= this.firstExpiry) {
      this.own.dropExpired(now, this.windowMs, this.windowKind);
      this.firstExpiry = this.expiryOfFirst();
    }
    return this.own.size;
  }

  private expiryOfFirst(): number {
    return this.own.size === 0
      ? Number.POSITIVE_INFINITY
      : expiryOf(this.own.first(), this.windowMs, this.windowKind);
  }

  decide(now: number, cost: number): Verdict {
    if (this.live(now) + cost - 1 < this.cap()) {
      this.own.insert(now, cost);
      // the new admit is the oldest only if the log was empty (or the caller's clock went back)
      if (now <= this.own.first()) this.firstExpiry = this.expiryOfFirst();
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

  remaining(now: number): number {
    return Math.max(0, Math.ceil(this.cap() - this.live(now)));
  }

  resetAt(now: number): number {
    this.live(now);
    return this.firstExpiry;
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
