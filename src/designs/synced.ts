import type { DesignId } from '../config.js';
import type { SyncEntry, SyncReply } from '../store/contract.js';
import { expiryOf } from '../window/expiry.js';
import { AdmitLog, RunLog } from '../window/run-log.js';
import { concatRuns, runTotal } from '../window/runs.js';
import {
  ALLOW,
  DENY,
  type FleetParams,
  type Forgets,
  type KeyLimiter,
  type ReadsOnRequest,
  type TakeBack,
  type TakesBack,
  type Verdict,
} from './key-limiter.js';
import { appendPush, dropListed, firstPushDue, listedWithLate, removeAdmits } from './synced-late.js';
import { firstAdmit, RetryMemo, type RetryState } from './synced-retry.js';

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
export abstract class SyncedKey implements KeyLimiter, TakesBack, Forgets, ReadsOnRequest {
  abstract readonly design: DesignId;

  /**
   * The store's count at the last sync, and the expiry instants it listed up to `horizon`, as runs
   * (`expCounts[i]` admits at expiries[i]; one each when undefined): `expIdx` runs, `expGone` admits,
   * have aged out since.
   */
  protected count = 0;
  protected expiries: number[] = EMPTY;
  protected expCounts: number[] | undefined = undefined;
  protected expIdx = 0;
  protected expGone = 0;
  protected horizon = Number.NEGATIVE_INFINITY;
  /**
   * When the oldest admit the last reply counted leaves, if that reply listed no expiry and said so
   * (SyncReply.oldestExpiry; NaN: not told). None of the admits it counted past its horizon leaves
   * before it; the others' among them (known only as a count) Retry-After waits for (issue 31).
   */
  private unlistedFrom = Number.NaN;
  /**
   * The last reply's store count stays at L − j or more until `below[j]` (SyncReply.belowLimitAt, told
   * for a count of L or more; null: not told). Retry-After's walk keeps enough of the others' admits
   * until then: with the oldest expiry alone it let them all leave at it, early by up to a window
   * (issue 31).
   */
  private below: number[] | null = null;
  /**
   * The expiries of the two oldest admits the last reply counted and did not list (its
   * SyncReply.pastHorizonAt, told for a count of L − 2 or more; null: not told). The others' among them
   * Retry-After walks at their instants: with the oldest alone it let the rest leave then, early until
   * its next sync when its own admits since took the key to L (issue 31).
   */
  private past: number[] | null = null;
  /**
   * Own admits since the last sync, and those taken by a sync still in flight: the runs it pushed
   * (`inflightCounts[i]` admits at inflight[i]; one each when undefined), walked past up to run
   * `inflightIdx`, with `inflightLive` admits from there on (see pushedLive). Private: a subclass
   * reads pushedLive, as `inflight.length` counts runs, not admits.
   */
  protected pending = AdmitLog.NONE;
  private inflight: number[] = EMPTY;
  private inflightCounts: number[] | undefined = undefined;
  private inflightIdx = 0;
  private inflightLive = 0;
  protected lastSyncAt = Number.NaN;
  /**
   * Own admits pushed by earlier syncs whose expiry lies past the horizon of the reply that counted
   * them: the store counts them without telling when they age out, but this gateway knows (Retry-After).
   * The pushed runs, oldest first, copied into one array as (time, count) pairs, the count negated on
   * the last run of each push; a push is dropped once a reply lists all of it (null: none). One array
   * of numbers, not the pushed arrays themselves: a reply's walk over it (listLate) read one cold
   * array per push, and each pushed array lived for a window (promoted garbage).
   */
  protected late: number[] | null = null;
  /** Where `late` starts: the pushes before it were dropped (moved down only once they are half of it). */
  protected lateFrom = 0;
  /**
   * When the first push in `late` is listed whole (the expiry of its last run; Infinity: none):
   * keepLate compares it with each reply's horizon without reading `late`, cold memory at every
   * sync of every held key.
   */
  private lateDue = Number.POSITIVE_INFINITY;
  /** Syncs taken, applied or failed: retryAt's answer is good only between two of these. */
  protected syncs = 0;
  /** The last remaining() answer, and whether a slot really freed since (see remaining). */
  protected shown = Number.POSITIVE_INFINITY;
  protected freed = false;
  /**
   * retryAt's last answer and what it was computed on; made at the key's first retryAt (a rejection
   * with headers), then updated in place. An object made on demand, not six fields on every key:
   * as fields (their doubles boxed by V8) they took a held key from 461 to 917 bytes
   * (bench/key-bytes.mjs, shared-counter).
   */
  private retryMemo: RetryMemo | null = null;
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
    // every admit the last reply counted was made by its instant: a window later all have left,
    // listed or not (a key no longer read must not hold the others' unlisted admits for ever)
    if (this.onRequest && gone < this.count && !(now < this.viewEnd())) {
      gone = this.count;
      i = ex.length;
    }
    if (i !== this.expIdx || gone !== this.expGone) {
      if (unstable) this.stableUntil = Number.NEGATIVE_INFINITY;
      this.freed = true;
      this.expIdx = i;
      this.expGone = gone;
    }
    return gone;
  }

  /**
   * When every admit the last reply counted has left the window: a window after the reply, or the
   * last expiry the view lists if later (an own admit stamped after it: a clock that went back).
   * NaN before the first reply.
   */
  private viewEnd(): number {
    const e = expiryOf(this.lastSyncAt, this.p.policy.windowMs, this.p.policy.windowKind);
    const ex = this.expiries;
    return ex.length > 0 && ex[ex.length - 1] > e ? ex[ex.length - 1] : e;
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
    let known = i < ex.length ? ex[i] : Number.POSITIVE_INFINITY;
    if (this.onRequest && this.knownCached > 0) {
      const end = this.viewEnd();
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

  /**
   * A refund of an own admit: one not pushed yet leaves the pending log here (the store never sees
   * it); one a sync in flight carries waits for that sync's answer; one the store counts is the
   * store's to take back (the caller sends it), and this gateway's view keeps it until a reply no
   * longer counts it (it errs towards rejecting meanwhile).
   */
  takeBack(at: number, cost: number, now: number): TakeBack {
    const { windowMs, windowKind } = this.p.policy;
    if (expiryOf(at, windowMs, windowKind) <= now) return 'gone';
    if (this.pending.remove(at, cost) > 0) {
      this.stableUntil = Number.NEGATIVE_INFINITY;
      this.freed = true;
      this.tookBack(at, cost);
      return 'local';
    }
    const fl = this.inflight;
    for (let i = this.inflightIdx; i < fl.length; i++) if (fl[i] === at) return 'wait';
    this.tookBack(at, cost);
    if (!this.onRequest) return 'store';
    // the store drops it: the next reply's count no longer holds it, so it must not leave that view
    // again at its expiry (it left twice: test/regressions/refunded-admit-past-horizon-leaves-view-twice.test.ts);
    // the view it is in now keeps it until then, and a read follows
    this.dropLate(at, cost);
    this.asked = true;
    this.syncs++;
    return 'store';
  }

  /** A reset (Forgets): every live pending admit taken back here, as a refund of each would be. */
  forget(now: number): number {
    const { times, counts } = this.pending.liveRuns();
    let n = 0;
    for (let i = 0; i < times.length; i++) {
      if (this.takeBack(times[i], counts[i], now) === 'local') n += counts[i];
    }
    // reads on request: the store's count changes with the reset, so the next sync reads the key
    this.asked = true;
    return n;
  }

  /** Takes `cost` admits at `at` out of `late` (see removeAdmits). */
  private dropLate(at: number, cost: number): void {
    const late = this.late;
    if (late === null) return;
    const w = removeAdmits(late, this.lateFrom, at, cost);
    this.lateFrom = 0;
    this.setLate(w === 0 ? null : late, true);
  }

  /** Hook for designs that keep a log of their own admits beside the pending one (the share's). */
  protected tookBack(_at: number, _cost: number): void {}

  nextChangeAt(now: number): number {
    if (!(now < this.stableUntil)) this.refresh(now);
    // past the horizon the gateway does not know what expires, so nothing changes until a sync
    return this.changeCached;
  }

  /**
   * The earliest instant the key admits `cost` on what this gateway knows (see KeyLimiter.retryAt).
   * Before the sync at `syncAt` it decides as now, on the store's listed expiries and its own admits
   * since the last sync (weighted); from that sync on (nothing else arriving) the store counts those
   * admits once, drops whatever aged out, and this gateway knows when each of its own admits does —
   * those pushed before, past the horizon, too (`late`). Of what the store counts past the horizon
   * that is not its own it knows when the oldest leaves (the reply's oldestExpiry, when that one is
   * not its own) and bounds on the rest: if the answer depends on where in those bounds they leave,
   * Infinity.
   * The answer holds until the state changes (an admit, a sync) or its instant comes: kept till then.
   */
  retryAt(now: number, cost: number, syncAt: number): number {
    return this.retryMemoOf(now, cost, syncAt).at;
  }

  /**
   * When retryAt cannot know: the soonest instant it might admit `cost` (every admit it has no instant
   * of leaving at its earliest); −Infinity when it has no such bound (a key not synced yet), or
   * retryAt knows.
   */
  retryNotBefore(now: number, cost: number, syncAt: number): number {
    return this.retryMemoOf(now, cost, syncAt).notBefore;
  }

  private retryMemoOf(now: number, cost: number, syncAt: number): RetryMemo {
    // an admit adds to the pending log; anything else that changes what is known is a sync's
    const m = this.retryMemo;
    if (
      m !== null &&
      now < m.at &&
      now >= m.from &&
      cost === m.cost &&
      syncAt === m.syncAt &&
      this.syncs === m.syncs &&
      this.pending.size === m.pending
    )
      return m;
    const memo = m ?? new RetryMemo();
    memo.notBefore = Number.NEGATIVE_INFINITY;
    memo.at = this.firstAdmit(now, cost, syncAt, memo);
    memo.from = now;
    memo.cost = cost;
    memo.syncAt = syncAt;
    memo.syncs = this.syncs;
    memo.pending = this.pending.size;
    this.retryMemo = memo;
    return memo;
  }

  /** retryAt's answer; when it is Infinity, sets `out.notBefore` where it has a bound. */
  private firstAdmit(now: number, cost: number, syncAt: number, out: RetryMemo): number {
    this.settle(now);
    const state: RetryState = {
      p: this.p,
      limit: this.limit,
      count: this.count,
      expiries: this.expiries,
      expCounts: this.expCounts,
      expIdx: this.expIdx,
      horizon: this.horizon,
      unlistedFrom: this.unlistedFrom,
      below: this.below,
      past: this.past,
      late: this.late,
      lateFrom: this.lateFrom,
      inflight: this.inflight,
      inflightCounts: this.inflightCounts,
      inflightIdx: this.inflightIdx,
      pendingRuns: this.pending.liveRuns(),
      lastSyncAt: this.lastSyncAt,
      knownCached: this.knownCached,
      ownCached: this.ownCached,
      admits: (k, o, c, afterSync) => this.admits(k, o, c, afterSync),
    };
    return firstAdmit(state, now, cost, syncAt, out);
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
    if (r > this.shown && !this.freed) return this.shown;
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

  syncEntry(key: string, now: number): SyncEntry | null {
    this.ownSinceSync(now);
    // nothing to push and no read due: the key is left out of the sync (issue 35)
    if (this.inflight === EMPTY && this.pending.size === 0 && !this.readDue(now)) return null;
    this.asked = false;
    // pushes that aged out are still sent: the store drops them, and the count stays honest. As runs:
    // a request of any cost is one entry
    const pend = this.pending;
    let admits: number[];
    let counts: number[] | undefined;
    if (this.inflight !== EMPTY) {
      const all = concatRuns(this.inflight, this.inflightCounts, pend.runTimes(), pend.runCounts());
      admits = all.times;
      counts = all.counts;
      this.inflightLive = runTotal(this.inflight, this.inflightCounts) + pend.size;
    } else if (pend.size === 0) {
      admits = EMPTY;
      counts = undefined;
      this.inflightLive = 0;
    } else {
      admits = pend.runTimes();
      counts = pend.runCounts();
      this.inflightLive = pend.size;
    }
    this.inflight = admits;
    this.inflightCounts = counts;
    this.inflightIdx = 0;
    this.pending = pend.recycle();
    this.syncs++;
    this.stableUntil = Number.NEGATIVE_INFINITY;
    return { key, admits, counts, read: true, release: false, ask: 0 };
  }

  applySync(reply: SyncReply, now: number): void {
    this.beforeApply(reply, now);
    // fewer than the admits it knew of still counting: some it had no expiry of aged out
    if (reply.count < this.known(now) + this.liveInflight(now)) this.freed = true;
    this.keepLate(this.inflight, this.inflightCounts, reply.horizon);
    this.syncs++;
    this.count = reply.count;
    this.horizon = reply.horizon;
    this.expiries = reply.expiries;
    this.expCounts = reply.expiryCounts;
    // its own admits the store counts past the horizon leave the view at their own expiries: with
    // reads following requests a view may serve long after its reply, and one gateway must decide
    // as the central log does (test/regressions/reads-follow-requests-k1-identity.test.ts)
    if (this.onRequest && this.late !== null) this.listLate(reply);
    this.expIdx = 0;
    this.expGone = 0;
    this.unlistedFrom =
      reply.expiries.length === 0 && reply.oldestExpiry !== undefined ? reply.oldestExpiry : Number.NaN;
    this.below = reply.belowLimitAt ?? null;
    this.past = reply.pastHorizonAt ?? null;
    this.inflight = EMPTY;
    this.inflightCounts = undefined;
    this.inflightIdx = 0;
    this.inflightLive = 0;
    this.lastSyncAt = now;
    this.stableUntil = Number.NEGATIVE_INFINITY;
  }

  /** The reply's expiries, then those of `late` past its horizon (see listedWithLate). */
  private listLate(reply: SyncReply): void {
    const listed = listedWithLate(this.late as number[], this.lateFrom, reply, this.p.policy);
    if (listed === undefined) return;
    if (listed === null) {
      this.setLate(null, true);
      return;
    }
    this.expiries = listed.t;
    this.expCounts = listed.n;
  }

  private liveInflight(now: number): number {
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

  /** Keeps the pushed admits a reply counted past its horizon; drops those it lists now (see `late`). */
  private keepLate(pushed: number[], counts: number[] | undefined, horizon: number): void {
    let late = this.late;
    let first = false;
    if (late !== null && this.lateDue < horizon) {
      const r = dropListed(late, this.lateFrom, horizon, this.p.policy);
      if (r === late.length) {
        late = null;
        this.lateFrom = 0;
      } else this.lateFrom = r;
      first = true;
    }
    const n = pushed.length;
    const { windowMs, windowKind } = this.p.policy;
    if (n > 0 && expiryOf(pushed[n - 1], windowMs, windowKind) >= horizon) {
      if (late === null) first = true;
      late = appendPush(late, pushed, counts);
    }
    this.setLate(late, first || late === null);
  }

  /** Sets `late`; `firstChanged`: its first push is another (or it is gone), so lateDue is recomputed. */
  private setLate(late: number[] | null, firstChanged: boolean): void {
    this.late = late;
    if (late === null) this.lateFrom = 0;
    if (!firstChanged) return;
    this.lateDue =
      late === null ? Number.POSITIVE_INFINITY : firstPushDue(late, this.lateFrom, this.p.policy);
  }

  /** Hook for designs that learn from the reply (track-share). */
  protected beforeApply(_reply: SyncReply, _now: number): void {}

  syncFailed(_now: number): void {
    this.syncs++;
    // its read did not happen
    this.asked = true;
    if (this.inflight.length > 0)
      this.pending = this.pending.prefixed(this.inflight, this.inflightCounts, this.inflightIdx);
    this.inflight = EMPTY;
    this.inflightCounts = undefined;
    this.inflightIdx = 0;
    this.inflightLive = 0;
    this.stableUntil = Number.NEGATIVE_INFINITY;
  }

  unsyncedAdmits(): number {
    return this.pending.size + runTotal(this.inflight, this.inflightCounts);
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

  protected override tookBack(at: number, cost: number): void {
    this.own.remove(at, cost);
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
    if (!this.onRequest) return this.own.size === 0;
    // aged here too: a key no longer read has no sync to age it (its share is measured from it there)
    this.own.dropExpired(now, this.p.policy.windowMs, this.p.policy.windowKind);
    return this.own.size === 0;
  }
}
