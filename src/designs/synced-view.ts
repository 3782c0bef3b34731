import type { DesignId } from '../config.js';
import { expiryOf } from '../window/expiry.js';
import { AdmitLog } from '../window/run-log.js';
import { runTotal } from '../window/runs.js';
import { ALLOW, DENY, type FleetParams, type Verdict } from './key-limiter.js';
import { wholeList } from './synced-late.js';

/** An empty run list, shared: `inflight === EMPTY` says no sync is in flight. */
export const EMPTY: number[] = [];

/**
 * The decision half of SyncedKey (see there): the view of the key's count the last sync's reply gave
 * (the store's count and the expiries it listed, aged as time goes on), this gateway's own admits since
 * (pending, and those a sync in flight carries), and the decision on them, with its inputs cached
 * between calls. SyncedKey adds the sync itself, refunds and Retry-After.
 */
export abstract class SyncedView {
  abstract readonly design: DesignId;

  /**
   * The store's count at the last sync, and the expiry instants it listed up to its horizon, as runs
   * (`expCounts[i]` admits at expiries[i]; one each when undefined): `expIdx` runs, `expGone` admits,
   * have aged out since.
   */
  protected count = 0;
  protected expiries: number[] = EMPTY;
  protected expCounts: number[] | undefined = undefined;
  protected expIdx = 0;
  protected expGone = 0;
  /**
   * Reads on request: the view's list goes on past `expiries` with own admits the store counts past
   * the reply's horizon, read in place from SyncedKey's `late` runs (time, ±count pairs; see
   * synced-late.ts), from run `tailIdx` (walked past up to there) to its end; EMPTY: none. SyncedKey
   * copies them into `expiries` (materialize) before it writes `late` while this view stands.
   */
  protected tail: number[] = EMPTY;
  protected tailIdx = 0;
  /**
   * Own admits since the last sync, and those taken by a sync still in flight: the runs it pushed
   * (`inflightCounts[i]` admits at inflight[i]; one each when undefined), walked past up to run
   * `inflightIdx`, with `inflightLive` admits from there on (see pushedLive). Written by SyncedKey's
   * sync; a design reads pushedLive, as `inflight.length` counts runs, not admits.
   */
  protected pending = AdmitLog.NONE;
  protected inflight: number[] = EMPTY;
  protected inflightCounts: number[] | undefined = undefined;
  protected inflightIdx = 0;
  protected inflightLive = 0;
  protected lastSyncAt = Number.NaN;
  /**
   * The last remaining() answer (−1: none yet; a small integer, never a double V8 boxes on every key),
   * and whether a slot really freed since (see remaining).
   */
  protected shown = -1;
  protected freed = false;
  /**
   * A request was decided here (or an admit taken back at the store) since the last read: the next
   * sync reads the key (ReadsOnRequest). Without one, a key far from L is not read (issue 35).
   */
  protected asked = true;

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
    return this.count - this.walkKnown(now, true);
  }

  /** Walks past the listed expiries at or before `now`; returns the admits aged out of them. */
  private walkKnown(now: number, unstable: boolean): number {
    const ex = this.expiries;
    const ec = this.expCounts;
    let i = this.expIdx;
    let gone = this.expGone;
    while (i < ex.length && ex[i] <= now) {
      gone += ec === undefined ? 1 : ec[i];
      i++;
    }
    const tl = this.tail;
    let t = this.tailIdx;
    if (i === ex.length && t < tl.length) {
      const { windowMs, windowKind } = this.p.policy;
      while (t < tl.length && expiryOf(tl[t], windowMs, windowKind) <= now) {
        gone += Math.abs(tl[t + 1]);
        t += 2;
      }
    }
    // every admit the last reply counted was made by its instant: a window later all have left,
    // listed or not (a key no longer read must not hold the others' unlisted admits for ever)
    if (this.onRequest && gone < this.count && this.viewEndedBy(now)) {
      gone = this.count;
      i = ex.length;
      t = tl.length;
    }
    if (i !== this.expIdx || gone !== this.expGone || t !== this.tailIdx) {
      if (unstable) this.stableUntil = Number.NEGATIVE_INFINITY;
      this.freed = true;
      this.expIdx = i;
      this.expGone = gone;
      this.tailIdx = t;
    }
    return gone;
  }

  /**
   * Whether every admit the last reply counted has left the window by `now`: a window after the
   * reply, and the last expiry the view lists if later (an own admit stamped after it: a clock that
   * went back); true before the first reply. A boolean: a method returning that instant (refresh
   * writes it out) came back a boxed double, 45 of the 791 bytes a line of track-share at K = 4
   * random, on request.
   */
  private viewEndedBy(now: number): boolean {
    const { windowMs, windowKind } = this.p.policy;
    const e = expiryOf(this.lastSyncAt, windowMs, windowKind);
    if (Number.isNaN(e)) return true;
    if (now < e) return false;
    // the tail's last run is the list's last (its runs are at or past the horizon, the reply's before)
    const ex = this.expiries;
    const tl = this.tail;
    if (tl.length > 0) return !(now < expiryOf(tl[tl.length - 2], windowMs, windowKind));
    return !(ex.length > 0 && now < ex[ex.length - 1]);
  }

  /**
   * The view's list whole, as listedWithLate made it at every read (the tail copied after the reply's
   * expiries), and where the walk stands in it; the view unchanged. `from`, `horizon`: where `late`
   * started and the reply's horizon when the view was made.
   */
  protected wholeFrom(
    from: number,
    horizon: number,
  ): { t: number[]; n: number[] | undefined; expIdx: number } {
    if (this.tail === EMPTY) return { t: this.expiries, n: this.expCounts, expIdx: this.expIdx };
    const view = { count: this.count, expiries: this.expiries, expiryCounts: this.expCounts, horizon };
    return wholeList(this.tail, this.tailIdx, from, view, this.expIdx, this.p.policy);
  }

  /**
   * The view's list copied whole into `expiries` (wholeFrom), its walk where it was: before SyncedKey
   * writes into `late` while the view reads it, and for Retry-After.
   */
  protected materialize(from: number, horizon: number): void {
    if (this.tail === EMPTY) return;
    const w = this.wholeFrom(from, horizon);
    this.expiries = w.t;
    this.expCounts = w.n;
    this.expIdx = w.expIdx;
    this.tail = EMPTY;
    this.tailIdx = 0;
  }

  /** Own admits since the last completed sync that still count now. */
  ownSinceSync(now: number): number {
    if (now < this.stableUntil) return this.ownCached;
    this.stableUntil = Number.NEGATIVE_INFINITY;
    return this.walkOwn(now);
  }

  private walkOwn(now: number): number {
    const { windowMs, windowKind } = this.p.policy;
    const wasLive = this.pending.live;
    const live = this.pending.expire(now, windowMs, windowKind);
    const fl = this.inflight;
    const fc = this.inflightCounts;
    let j = this.inflightIdx;
    let flLive = this.inflightLive;
    while (j < fl.length && expiryOf(fl[j], windowMs, windowKind) <= now) {
      flLive -= fc === undefined ? 1 : fc[j];
      j++;
    }
    if (live !== wasLive || j !== this.inflightIdx) this.freed = true;
    this.inflightIdx = j;
    this.inflightLive = flLive;
    return live + flLive;
  }

  /**
   * Own admits pushed by the sync in flight that still counted at the last walk (what adaptive-early's
   * reading of the others' admits takes off the store's count).
   */
  protected pushedLive(): number {
    return this.inflightLive;
  }

  /**
   * Ages the three logs to `now` (what the decision's inputs depend on) and caches the inputs, unless
   * nothing in them can have aged out since the last time: then the cached inputs are exact as they are.
   */
  protected settle(now: number): void {
    if (!(now < this.stableUntil)) this.refresh(now);
  }

  private refresh(now: number): void {
    this.knownCached = this.count - this.walkKnown(now, false);
    const ex = this.expiries;
    const i = this.expIdx;
    this.ownCached = this.walkOwn(now);
    this.weightCached = this.weight();
    const { windowMs, windowKind } = this.p.policy;
    let known = Number.POSITIVE_INFINITY;
    if (i < ex.length) known = ex[i];
    else if (this.tailIdx < this.tail.length) known = expiryOf(this.tail[this.tailIdx], windowMs, windowKind);
    if (this.onRequest && this.knownCached > 0) {
      // when every admit the last reply counted has left (see viewEndedBy), written out
      let end = expiryOf(this.lastSyncAt, windowMs, windowKind);
      const tl = this.tail;
      if (tl.length > 0) end = Math.max(expiryOf(tl[tl.length - 2], windowMs, windowKind), end);
      else if (ex.length > 0 && ex[ex.length - 1] > end) end = ex[ex.length - 1];
      if (end < known) known = end;
    }
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
    this.asked = true;
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

  noteRejected(_n: number, _now: number): void {
    this.asked = true;
  }

  nextChangeAt(now: number): number {
    if (!(now < this.stableUntil)) this.refresh(now);
    // past the horizon the gateway does not know what expires, so nothing changes until a sync
    return this.changeCached;
  }

  /**
   * Whether decide admits `cost` with k of the store's admits and o own admits since the last sync
   * still counting; `afterSync`: at a sync with nothing else arriving (o = 0).
   */
  protected admits(k: number, o: number, cost: number, _afterSync: boolean): boolean {
    return k + this.weightCached * o + cost - 1 < this.limit;
  }

  /**
   * The estimate's headroom, never shown rising unless a slot really freed since the last answer: an
   * admit this gateway knows of aged out, or a sync reported fewer than it knew of. A sync that only
   * swaps weighted own admits for the store's count (assume-others, track-share) frees none: it used
   * to show a rise (9, 9, 7, 6, 4, 5…; regression: test/regressions/remaining-rises-without-a-freed-slot.test.ts).
   */
  remaining(now: number): number {
    const r = Math.max(0, Math.floor(this.limit - this.estimate(now)));
    if (this.shown >= 0 && r > this.shown && !this.freed) return this.shown;
    this.shown = r;
    this.freed = false;
    return r;
  }

  resetAt(now: number): number {
    return this.nextChangeAt(now);
  }

  /**
   * FleetParams.readsOnRequest (GatewayOptions.reads 'on-request'; the five designs that are
   * SyncedKeys all can): off, every held key is read at every sync and a view is as on main. A getter,
   * not a field: a key's bytes (bench/key-bytes.mjs).
   */
  get onRequest(): boolean {
    return this.p.readsOnRequest === true;
  }

  /**
   * Whether the next sync reads this key though it has nothing to push (ReadsOnRequest): a request
   * was decided here since the last read, or the view is near L (at most half of it left: a busy key,
   * read every Δ as before). A quiet key's view is no older than its first request since: that request
   * is followed by a read at the next sync, as a key this gateway never held would be.
   */
  readDue(now: number): boolean {
    return !this.onRequest || this.asked || 2 * this.estimate(now) >= this.limit;
  }

  protected liveInflight(now: number): number {
    const { windowMs, windowKind } = this.p.policy;
    const fl = this.inflight;
    const fc = this.inflightCounts;
    let j = this.inflightIdx;
    let live = this.inflightLive;
    while (j < fl.length && expiryOf(fl[j], windowMs, windowKind) <= now) {
      live -= fc === undefined ? 1 : fc[j];
      j++;
    }
    return live;
  }

  unsyncedAdmits(): number {
    return this.pending.size + runTotal(this.inflight, this.inflightCounts);
  }

  isIdle(now: number): boolean {
    return this.known(now) === 0 && this.pending.size === 0 && this.inflight.length === 0;
  }
}
