/**
 * A frozen copy of src/designs/synced.ts as it was before the decision-cost work (commit 2cebc56): the
 * uncached, array-based reference that test/designs/cached.property.test.ts checks the optimised
 * classes against, call by call. Keep it as it is: it is the specification, not production code.
 */
import type { DesignId } from '../../../src/config.js';
import {
  ALLOW,
  DENY,
  type FleetParams,
  type KeyLimiter,
  type Verdict,
} from '../../../src/designs/key-limiter.js';
import type { AskReply, LogAdmitReply, SyncEntry, SyncReply } from '../../../src/store/contract.js';
import { expiryOf } from '../../../src/window/expiry.js';
import { expandRuns } from '../../../src/window/runs.js';
import { TimeLog } from '../../../src/window/time-log.js';

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
  protected pending: number[] = [];
  protected pendingIdx = 0;
  protected inflight: number[] = EMPTY;
  protected inflightIdx = 0;
  protected lastSyncAt = Number.NaN;
  /** Own pushes the store counted past a reply's horizon, one list per push (issue 35). */
  private late: number[][] = [];
  /** A request decided since the last read (issue 35). */
  protected asked = true;
  /** The view emptied a window after its reply (issue 35); until the next reply. */
  private emptied = false;

  constructor(protected readonly p: FleetParams) {}

  /** How many times one own admit since the last sync counts. */
  protected abstract weight(): number;

  /** Admits the store had at the last sync that still count now. */
  known(now: number): number {
    const ex = this.expiries;
    let i = this.expIdx;
    while (i < ex.length && ex[i] <= now) i++;
    this.expIdx = i;
    // a window after the reply every admit it counted has left (for good: a clock that goes back
    // does not bring them back, as walked expiries stay walked)
    if (this.on && (this.emptied || !(now < this.viewEnd()))) {
      this.emptied = this.count > 0;
      return 0;
    }
    return this.count - i;
  }

  /** FleetParams.readsOnRequest (GatewayOptions.reads 'on-request'): off, as before issue 35. */
  protected get on(): boolean {
    return this.p.readsOnRequest === true;
  }

  private viewEnd(): number {
    const e = expiryOf(this.lastSyncAt, this.p.policy.windowMs, this.p.policy.windowKind);
    return Math.max(e, ...this.expiries.slice(-1));
  }

  /** Own admits since the last completed sync that still count now. */
  ownSinceSync(now: number): number {
    const { windowMs, windowKind } = this.p.policy;
    const pend = this.pending;
    let i = this.pendingIdx;
    while (i < pend.length && expiryOf(pend[i], windowMs, windowKind) <= now) i++;
    this.pendingIdx = i;
    const fl = this.inflight;
    let j = this.inflightIdx;
    while (j < fl.length && expiryOf(fl[j], windowMs, windowKind) <= now) j++;
    this.inflightIdx = j;
    return pend.length - i + (fl.length - j);
  }

  /** The gateway's estimate of the fleet's count in the window now. */
  estimate(now: number): number {
    return this.known(now) + this.weight() * this.ownSinceSync(now);
  }

  decide(now: number, cost: number): Verdict {
    this.asked = true;
    if (this.estimate(now) + cost - 1 < this.p.policy.limit) {
      const pend = this.pending;
      for (let i = 0; i < cost; i++) pend.push(now);
      return ALLOW;
    }
    return DENY;
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

  noteRejected(_n: number, _now: number): void {
    this.asked = true;
  }

  nextChangeAt(now: number): number {
    this.estimate(now);
    let t = Number.POSITIVE_INFINITY;
    // past the horizon the gateway does not know what expires, so nothing changes until a sync
    if (this.expIdx < this.expiries.length) t = this.expiries[this.expIdx];
    if (this.on && this.known(now) > 0) t = Math.min(t, this.viewEnd());
    const { windowMs, windowKind } = this.p.policy;
    if (this.inflightIdx < this.inflight.length) {
      t = Math.min(t, expiryOf(this.inflight[this.inflightIdx], windowMs, windowKind));
    } else if (this.pendingIdx < this.pending.length) {
      t = Math.min(t, expiryOf(this.pending[this.pendingIdx], windowMs, windowKind));
    }
    return t;
  }

  /** Frozen before Retry-After asked this: not compared (test/gateway/retry-after.property.test.ts checks it). */
  retryAt(_now: number, _cost: number, _syncAt: number): number {
    return Number.POSITIVE_INFINITY;
  }

  remaining(now: number): number {
    return Math.max(0, Math.floor(this.p.policy.limit - this.estimate(now)));
  }

  resetAt(now: number): number {
    return this.nextChangeAt(now);
  }

  syncEntry(key: string, now: number): SyncEntry | null {
    this.ownSinceSync(now);
    const due = !this.on || this.asked || 2 * this.estimate(now) >= this.p.policy.limit;
    if (this.inflight === EMPTY && this.pending.length === 0 && !due) return null;
    this.asked = false;
    // pushes that aged out are still sent: the store drops them, and the count stays honest
    let admits: number[];
    if (this.inflight !== EMPTY) admits = this.inflight.concat(this.pending);
    else admits = this.pending.length === 0 ? EMPTY : this.pending;
    this.inflight = admits;
    this.inflightIdx = 0;
    if (this.pending.length > 0) this.pending = [];
    this.pendingIdx = 0;
    return { key, admits, read: true, release: false, ask: 0 };
  }

  applySync(reply: SyncReply, now: number): void {
    this.beforeApply(reply, now);
    this.count = reply.count;
    // the reply lists runs (SyncReply.expiryCounts): the reference walks one expiry per admit
    this.expiries = expandRuns(reply.expiries, reply.expiryCounts);
    this.expIdx = 0;
    this.emptied = false;
    this.horizon = reply.horizon;
    // own pushes past the horizon: kept per push until a reply lists the whole of one (front first)
    const { windowMs, windowKind } = this.p.policy;
    const exp = (t: number) => expiryOf(t, windowMs, windowKind);
    while (this.late.length > 0) {
      const first = this.late[0];
      if (!(exp(first[first.length - 1]) < reply.horizon)) break;
      this.late.shift();
    }
    const pushed = this.inflight;
    if (pushed.length > 0 && exp(pushed[pushed.length - 1]) >= reply.horizon) this.late.push(pushed);
    const own: number[] = [];
    for (const push of this.late) for (const t of push) if (exp(t) >= reply.horizon) own.push(exp(t));
    own.sort((a, b) => a - b);
    if (this.on && own.length > 0) this.expiries = this.expiries.concat(own);
    this.inflight = EMPTY;
    this.inflightIdx = 0;
    this.lastSyncAt = now;
  }

  /** Hook for designs that learn from the reply (track-share). */
  protected beforeApply(_reply: SyncReply, _now: number): void {}

  syncFailed(_now: number): void {
    this.asked = true;
    if (this.inflight.length > 0) {
      this.pending = this.inflight.slice(this.inflightIdx).concat(this.pending.slice(this.pendingIdx));
      this.pendingIdx = 0;
    }
    this.inflight = EMPTY;
    this.inflightIdx = 0;
  }

  unsyncedAdmits(): number {
    return this.pending.length + this.inflight.length;
  }

  isIdle(now: number): boolean {
    return this.known(now) === 0 && this.pending.length === 0 && this.inflight.length === 0;
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
 * window the share is 1/K. With K = 1 both counts are the same log, so the share is exactly 1.
 *
 * The measurement depends only on the state at the sync, not on earlier syncs, so a sync with nothing
 * to push whose read is overwritten before the next decision changes nothing (the simulator skips those).
 */
export class TrackShareKey extends SyncedKey {
  readonly design = 'track-share' as const;
  private share: number;
  private readonly own = new TimeLog(2);

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

  override decide(now: number, cost: number): Verdict {
    const v = super.decide(now, cost);
    if (v === ALLOW) for (let i = 0; i < cost; i++) this.own.insert(now);
    return v;
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
    if (!super.isIdle(now)) return false;
    if (!this.on) return this.own.size === 0;
    this.own.dropExpired(now, this.p.policy.windowMs, this.p.policy.windowKind);
    return this.own.size === 0;
  }
}
