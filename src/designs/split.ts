import type { WindowKind } from '../config.js';
import { expiryOf } from '../window/expiry.js';
import { RunLog } from '../window/run-log.js';
import {
  ALLOW,
  DENY,
  type FleetParams,
  type GatewayKey,
  type TakeBack,
  type Verdict,
} from './key-limiter.js';
import { NeverSyncs } from './never-syncs.js';
import { firstAdmitAt, NO_RUNS } from './retry-walk.js';

/**
 * split: no sharing. Each gateway admits while its own count in the window is below L/K, compared
 * as a real number (L = 100, K = 32: fewer than 3.125, so up to 4). The fleet admits at most K·ceil(L/K).
 * K is read at each decision: with `gateways: 'auto'` the gateway sets it from the store's count.
 */
export class SplitKey extends NeverSyncs implements GatewayKey {
  readonly design = 'split' as const;
  private own = new RunLog();
  private readonly windowMs: number;
  private readonly windowKind: WindowKind;
  /** When the oldest own admit stops counting: until then the live count is `own.size` as it stands. */
  private firstExpiry = Number.POSITIVE_INFINITY;
  /** retryAt's last answer, good while the log is the same (its size and oldest) and its instant has not come. */
  private retryCost = Number.NaN;
  /** K when retryAt last answered: with gateways 'auto' a new K changes the share. */
  private retryK = Number.NaN;
  private retrySize = -1;
  private retryFirst = Number.NaN;
  private retryFrom = Number.NaN;
  private retryAtCached = Number.NaN;

  constructor(private readonly p: FleetParams) {
    super();
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

  noteRejected(_n: number, _now: number): void {}

  /** Every admit is this gateway's alone: a refund takes it out of the log, at once. */
  takeBack(at: number, cost: number, now: number): TakeBack {
    this.live(now);
    if (expiryOf(at, this.windowMs, this.windowKind) <= now) return 'gone';
    if (this.own.remove(at, cost) === 0) return 'gone';
    this.firstExpiry = this.expiryOfFirst();
    this.retryCost = Number.NaN;
    return 'local';
  }

  /** A reset (Forgets): every admit is this gateway's alone, all forgotten at once (none is the store's). */
  forget(_now: number): number {
    const n = this.own.size;
    this.own = new RunLog();
    this.firstExpiry = Number.POSITIVE_INFINITY;
    this.retryCost = Number.NaN;
    return n;
  }

  nextChangeAt(_now: number): number {
    return this.resetAt(_now);
  }

  /** Every admit is its own: the instant enough of them have aged out for `cost`. Never Infinity (cost <= ceil(L/K)). */
  retryAt(now: number, cost: number, _syncAt: number): number {
    const live = this.live(now);
    if (
      cost === this.retryCost &&
      this.p.gateways === this.retryK &&
      this.own.size === this.retrySize &&
      this.own.first() === this.retryFirst &&
      now >= this.retryFrom &&
      now < this.retryAtCached
    )
      return this.retryAtCached;
    const { windowMs, windowKind } = this;
    const cap = this.cap();
    // after live(now) every admit held still counts at now
    const expiries = this.own.expiryRuns(windowMs, windowKind);
    const at = firstAdmitAt(
      now,
      Number.POSITIVE_INFINITY,
      live,
      expiries,
      0,
      NO_RUNS,
      (k) => k + cost - 1 < cap,
    );
    this.retryCost = cost;
    this.retryK = this.p.gateways;
    this.retrySize = this.own.size;
    this.retryFirst = this.own.first();
    this.retryFrom = now;
    this.retryAtCached = at;
    return at;
  }

  remaining(now: number): number {
    return Math.max(0, Math.ceil(this.cap() - this.live(now)));
  }

  resetAt(now: number): number {
    this.live(now);
    return this.firstExpiry;
  }

  isIdle(now: number): boolean {
    return this.live(now) === 0;
  }
}
