import type { DesignId } from '../config.js';
import type { AskReply, LogAdmitReply, SyncEntry, SyncReply } from '../store/contract.js';
import { expiryOf } from '../window/expiry.js';
import { AdmitLog, RunLog } from '../window/run-log.js';
import { ALLOW, DENY, type FleetParams, type KeyLimiter, type Verdict } from './key-limiter.js';

const EMPTY: number[] = [];

/**
 * The shared-counter family: decide locally from what the store reported at the last sync (aged
 * out as time goes on) plus this gateway's own admits since, weighted by how much of the fleet's
 * traffic the gateway assumes it is seeing:
 * - shared-counter: weight 1 (the others admitted nothing since they last pushed);
 * - assume-others: weight K (every other gateway did what this one did);
 * - track-share: weight 1/share, share = this gateway's measured part of the key's admits.
 *
 * At a sync the gateway pushes its admits, then reads the window (push, then read).
 */
export abstract class SyncedKey implements KeyLimiter {
  abstract readonly design: DesignId;

  /** The store's count at the last sync, and the expiry instants it listed up to `horizon`. */
  protected count = 0;
  protected expiries: number[] = EMPTY;
  protected expIdx = 0;
  protected horizon = Number.NEGATIVE_INFINITY;
  /** Own admits since the last sync, and those taken by a sync still in flight. */
  protected pending = AdmitLog.NONE;
  protected inflight: number[] = EMPTY;
  protected inflightIdx = 0;
  protected lastSyncAt = Number.NaN;

  /**
   * The decision's inputs, kept between calls: `known(now)`, `ownSinceSync(now)` and `weight()` as
   * last computed. They stay exact while now < `stableUntil`, the first instant at which one of the
   * three logs (the store's expiries, the in-flight and the pending admits) has something to age out;
   * an own admit adds to `ownCached` as it is made. Anything else that changes the state (a sync, its
   * failure, a walk done outside decide) sets `stableUntil` to −∞ and the next call recomputes.
   */
  protected knownCached = 0;
  protected ownCached = 0;
  // NaN until computed (stableUntil = −∞ makes the first call compute it); a double from the start:
  // track-share's weight turns fractional at its first measured share, and a field that turns from
  // small integer to double after warm-up changes the objects' layout under optimized code (seen to
  // leave a hot loop unoptimized).
  protected weightCached = Number.NaN;
  protected stableUntil = Number.NEGATIVE_INFINITY;
  /** nextChangeAt's answer, valid with the rest. */
  protected changeCached = Number.POSITIVE_INFINITY;
  protected readonly limit: number;

  constructor(protected readonly p: FleetParams) {
    this.limit = p.policy.limit;
  }

  /** How many times one own admit since the last sync counts. */
  protected abstract weight(): number;

  /** Admits the store had at the last sync that still count now. */
  known(now: number): number {
    if (now < this.stableUntil) return this.knownCached;
    const ex = this.expiries;
    let i = this.expIdx;
    while (i < ex.length && ex[i] <= now) i++;
    if (i !== this.expIdx) this.stableUntil = Number.NEGATIVE_INFINITY;
    this.expIdx = i;
    return this.count - i;
  }

  /** Own admits since the last completed sync that still count now. */
  ownSinceSync(now: number): number {
    if (now < this.stableUntil) return this.ownCached;
    this.stableUntil = Number.NEGATIVE_INFINITY;
    return this.walkOwn(now);
  }

  private walkOwn(now: number): number {
    const { windowMs, windowKind } = this.p.policy;
    const live = this.pending.expire(now, windowMs, windowKind);
    const fl = this.inflight;
    let j = this.inflightIdx;
    while (j < fl.length && expiryOf(fl[j], windowMs, windowKind) <= now) j++;
    this.inflightIdx = j;
    return live + (fl.length - j);
  }

  /**
   * Ages the three logs to `now` (what the decision's inputs depend on) and caches the inputs, unless
   * nothing in them can have aged out since the last time: then the cached inputs are exact as they are.
   */
  protected settle(now: number): void {
    if (!(now < this.stableUntil)) this.refresh(now);
  }

  private refresh(now: number): void {
    const ex = this.expiries;
    let i = this.expIdx;
    while (i < ex.length && ex[i] <= now) i++;
    this.expIdx = i;
    this.knownCached = this.count - i;
    this.ownCached = this.walkOwn(now);
    this.weightCached = this.weight();
    const { windowMs, windowKind } = this.p.policy;
    const known = i < ex.length ? ex[i] : Number.POSITIVE_INFINITY;
    let inflight = Number.POSITIVE_INFINITY;
    if (this.inflightIdx < this.inflight.length) {
      inflight = expiryOf(this.inflight[this.inflightIdx], windowMs, windowKind);
    }
    let pending = Number.POSITIVE_INFINITY;
    if (this.pending.live > 0) pending = expiryOf(this.pending.firstLive(), windowMs, windowKind);
    // both own logs, not just the older: with a clock that went back, the pending log may expire first
    this.stableUntil = Math.min(known, inflight, pending);
    // what nextChangeAt reports: the older own log only (the same instant unless the clock went back)
    this.changeCached = Math.min(known, inflight < Number.POSITIVE_INFINITY ? inflight : pending);
  }

  /** The gateway's estimate of the fleet's count in the window now. */
  estimate(now: number): number {
    if (!(now < this.stableUntil)) this.refresh(now);
    return this.knownCached + this.weightCached * this.ownCached;
  }

  decide(now: number, cost: number): Verdict {
    if (!(now < this.stableUntil)) this.refresh(now);
    if (this.knownCached + this.weightCached * this.ownCached + cost - 1 < this.limit) {
      this.recordAdmit(now, cost);
      return ALLOW;
    }
    return DENY;
  }

  /** Counts `cost` own admits at `now`, keeping the cached inputs exact. */
  protected recordAdmit(now: number, cost: number): void {
    let pend = this.pending;
    if (pend === AdmitLog.NONE) pend = this.pending = AdmitLog.take();
    if (pend.append(now, cost)) this.firstPending(now);
    this.ownCached += cost;
  }

  /** The admit just recorded is the only live pending one: it is the pending log's next expiry. */
  private firstPending(now: number): void {
    const e = expiryOf(now, this.p.policy.windowMs, this.p.policy.windowKind);
    if (e < this.stableUntil) this.stableUntil = e;
    if (this.inflightIdx >= this.inflight.length && e < this.changeCached) this.changeCached = e;
  }

  onLogReply(_r: LogAdmitReply, _now: number, _cost: number): boolean {
    throw new Error(`${this.design} never calls the store on the request path`);
  }

  onAskReply(_r: AskReply, _now: number, _cost: number): boolean {
    throw new Error(`${this.design} never calls the store on the request path`);
  }

  askSize(_cost: number): number {
    return 0;
  }

  noteRejected(_n: number, _now: number): void {}

  nextChangeAt(now: number): number {
    if (!(now < this.stableUntil)) this.refresh(now);
    // past the horizon the gateway does not know what expires, so nothing changes until a sync
    return this.changeCached;
  }

  remaining(now: number): number {
    return Math.max(0, Math.floor(this.limit - this.estimate(now)));
  }

  resetAt(now: number): number {
    return this.nextChangeAt(now);
  }

  syncEntry(key: string, now: number): SyncEntry | null {
    this.ownSinceSync(now);
    // pushes that aged out are still sent: the store drops them, and the count stays honest
    let admits: number[];
    if (this.inflight !== EMPTY) admits = this.inflight.concat(this.pending.toArray());
    else admits = this.pending.size === 0 ? EMPTY : this.pending.toArray();
    this.inflight = admits;
    this.inflightIdx = 0;
    this.pending = this.pending.recycle();
    this.stableUntil = Number.NEGATIVE_INFINITY;
    return { key, admits, read: true, release: false, ask: 0 };
  }

  applySync(reply: SyncReply, now: number): void {
    this.beforeApply(reply, now);
    this.count = reply.count;
    this.expiries = reply.expiries;
    this.expIdx = 0;
    this.horizon = reply.horizon;
    this.inflight = EMPTY;
    this.inflightIdx = 0;
    this.lastSyncAt = now;
    this.stableUntil = Number.NEGATIVE_INFINITY;
  }

  /** Hook for designs that learn from the reply (track-share). */
  protected beforeApply(_reply: SyncReply, _now: number): void {}

  syncFailed(_now: number): void {
    if (this.inflight.length > 0) this.pending = this.pending.prefixed(this.inflight, this.inflightIdx);
    this.inflight = EMPTY;
    this.inflightIdx = 0;
    this.stableUntil = Number.NEGATIVE_INFINITY;
  }

  unsyncedAdmits(): number {
    return this.pending.size + this.inflight.length;
  }

  isIdle(now: number): boolean {
    return this.known(now) === 0 && this.pending.size === 0 && this.inflight.length === 0;
  }
}

export class SharedCounterKey extends SyncedKey {
  readonly design = 'shared-counter' as const;
  protected weight(): number {
    return 1;
  }
}

export class AssumeOthersKey extends SyncedKey {
  readonly design = 'assume-others' as const;
  protected weight(): number {
    return this.p.gateways;
  }
}

/**
 * track-share divides its own admits since the last sync by its share of the key's traffic, measured
 * at every sync as (own admits still in the window) / (the store's count in the window, after the
 * push): a moving average over one window W, so it follows a change of routing within about W. The
 * share is clamped to [1/(4K), 1]: the floor keeps a gateway whose share was tiny or zero from
 * dividing by almost nothing when traffic moves to it. Until the first sync that finds admits in the
 * window the share is 1/K (K when the key's state was made; the floor reads K at each sync, so it
 * follows `gateways: 'auto'`). With K = 1 both counts are the same log, so the share is exactly 1.
 *
 * The measurement depends only on the state at the sync, not on earlier syncs, so a sync with nothing
 * to push whose read is overwritten before the next decision changes nothing (the simulator skips those).
 */
export class TrackShareKey extends SyncedKey {
  readonly design = 'track-share' as const;
  private share: number;
  /** Own admits over the last window (not just since the last sync): the share's numerator. */
  private readonly own = new RunLog();

  constructor(p: FleetParams) {
    super(p);
    this.share = 1 / p.gateways;
  }

  get measuredShare(): number {
    return this.share;
  }

  protected weight(): number {
    return 1 / this.share;
  }

  protected override recordAdmit(now: number, cost: number): void {
    super.recordAdmit(now, cost);
    this.own.insert(now, cost);
  }

  protected override beforeApply(reply: SyncReply, now: number): void {
    const { windowMs, windowKind } = this.p.policy;
    this.own.dropExpired(now, windowMs, windowKind);
    if (reply.count > 0) {
      const floor = 1 / (4 * this.p.gateways);
      this.share = Math.min(1, Math.max(floor, this.own.size / reply.count));
    }
  }

  override isIdle(now: number): boolean {
    return super.isIdle(now) && this.own.size === 0;
  }
}
