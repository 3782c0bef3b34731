import type { SyncEntry, SyncReply } from '../store/contract.js';
import { expiryOf } from '../window/expiry.js';
import { concatRuns, runTotal } from '../window/runs.js';
import { forgetPending } from './forget-pending.js';
import type { FleetParams, GatewayKey, ReadsOnRequest, TakeBack } from './key-limiter.js';
import { fillEntry } from './key-steps.js';
import { OwnLog } from './own-log.js';
import {
  keepLate,
  lateTail,
  listedWithLate,
  NO_LATE,
  NOT_HELD,
  NOT_IN_PLACE,
  removeAdmits,
  setLate,
} from './synced-late.js';
import { firstAdmit, RetryMemo, RetryPart, type RetryState } from './synced-retry.js';
import { EMPTY, SyncedView } from './synced-view.js';

/** SyncedKey.keeps: the Retry-After state whole; `late` alone (listLate's, reads on request); none. */
const KEEPS_ALL = 0;
const KEEPS_LATE = 1;
const KEEPS_NONE = 2;

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
export abstract class SyncedKey extends SyncedView implements GatewayKey, ReadsOnRequest {
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
   * The rest of what only Retry-After reads (RetryPart), made at its first use: never where nothing asks
   * for it (withoutRetryAfter), where it cost a held key 7 fields and 3 boxed doubles (promoted garbage).
   */
  private retry: RetryPart | null = null;
  /** What of the Retry-After state is kept (withoutRetryAfter: less where nothing asks for it). */
  private keeps = KEEPS_ALL;

  /** The Retry-After state, made if the key has none yet (only while `late` is kept). */
  private retryPart(): RetryPart {
    return (this.retry ??= new RetryPart());
  }

  /** The pushes kept past their replies' horizons (RetryPart.late; null: none). */
  protected get late(): number[] | null {
    const r = this.retry;
    return r === null ? null : r.late;
  }

  /** Where `late` starts (RetryPart.lateFrom). */
  protected get lateFrom(): number {
    const r = this.retry;
    return r === null ? 0 : r.lateFrom;
  }

  /** Syncs taken, applied or failed, since the Retry-After state was made (RetryPart.syncs). */
  protected get syncs(): number {
    const r = this.retry;
    return r === null ? 0 : r.syncs;
  }

  /** A sync taken, applied or failed: a remembered Retry-After answer no longer holds. */
  private synced(): void {
    const r = this.retry;
    if (r !== null) r.syncs++;
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
    this.synced();
    return 'store';
  }

  /** A reset (Forgets): every live pending admit taken back here, as a refund of each would be. */
  forget(now: number): number {
    const n = forgetPending(this, this.pending, now);
    // reads on request: the store's count changes with the reset, so the next sync reads the key
    this.asked = true;
    return n;
  }

  /** The view's list whole and where its walk stands (wholeFrom), the view unchanged: for tests. */
  protected wholeView(): { t: number[]; n: number[] | undefined; expIdx: number } {
    const r = this.retry;
    return r === null ? this.wholeFrom(0, 0) : this.wholeFrom(r.lateFrom, r.horizon);
  }

  /** Takes `cost` admits at `at` out of `late` (see removeAdmits). */
  private dropLate(at: number, cost: number): void {
    const r = this.retry;
    if (r === null || r.late === null) return;
    // the view reads `late` in place: it keeps its list as it is
    this.materialize(r.lateFrom, r.horizon);
    const late = r.late;
    const w = removeAdmits(late, r.lateFrom, at, cost);
    r.lateFrom = 0;
    setLate(r, w === 0 ? null : late, true, this.p.policy);
  }

  /** Hook for designs that keep a log of their own admits beside the pending one (the share's). */
  protected tookBack(_at: number, _cost: number): void {}

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

  /**
   * For a driver that never asks retryAt nor retryNotBefore (the replay, src/replay/run/replay-limiter.ts;
   * they throw): `late` (a window of arrays per held key) is kept only where reads on request decide on
   * it (listLate), and the replies' Retry-After fields (a boxed double and two arrays a read) are not.
   */
  withoutRetryAfter(): void {
    this.keeps = this.onRequest ? KEEPS_LATE : KEEPS_NONE;
  }

  /**
   * Whether applySync reads a reply's Retry-After fields (oldestExpiry, belowLimitAt, pastHorizonAt):
   * only while Retry-After may be asked (the replay's syncs ask the store for them only then).
   */
  get readsRetryAfter(): boolean {
    return this.keeps === KEEPS_ALL;
  }

  private retryMemoOf(now: number, cost: number, syncAt: number): RetryMemo {
    if (this.keeps !== KEEPS_ALL) throw new Error(`${this.design}: Retry-After asked of a key without it`);
    // an admit adds to the pending log; anything else that changes what is known is a sync's
    const part = this.retryPart();
    const m = part.memo;
    if (
      m !== null &&
      now < m.at &&
      now >= m.from &&
      cost === m.cost &&
      syncAt === m.syncAt &&
      part.syncs === m.syncs &&
      this.pending.size === m.pending
    )
      return m;
    const memo = m ?? new RetryMemo();
    memo.notBefore = Number.NEGATIVE_INFINITY;
    memo.at = this.firstAdmit(now, cost, syncAt, memo);
    memo.from = now;
    memo.cost = cost;
    memo.syncAt = syncAt;
    memo.syncs = part.syncs;
    memo.pending = this.pending.size;
    part.memo = memo;
    return memo;
  }

  /** retryAt's answer; when it is Infinity, sets `out.notBefore` where it has a bound. */
  private firstAdmit(now: number, cost: number, syncAt: number, out: RetryMemo): number {
    this.settle(now);
    const r = this.retryPart();
    this.materialize(r.lateFrom, r.horizon);
    const state: RetryState = {
      p: this.p,
      limit: this.limit,
      count: this.count,
      expiries: this.expiries,
      expCounts: this.expCounts,
      expIdx: this.expIdx,
      horizon: r.horizon,
      unlistedFrom: r.unlistedFrom,
      below: this.below,
      past: this.past,
      late: r.late,
      lateFrom: r.lateFrom,
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

  syncEntry(key: string, now: number, into?: SyncEntry): SyncEntry | null {
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
    this.synced();
    this.stableUntil = Number.NEGATIVE_INFINITY;
    if (into === undefined) return { key, admits, counts, read: true, release: false, ask: 0 };
    return fillEntry(into, key, admits, counts, true, false, 0);
  }

  applySync(reply: SyncReply, now: number): void {
    this.beforeApply(reply, now);
    // fewer than the admits it knew of still counting: some it had no expiry of aged out
    if (reply.count < this.known(now) + this.liveInflight(now)) this.freed = true;
    const r = this.keeps !== KEEPS_NONE ? this.retryPart() : null;
    if (r !== null) keepLate(r, this.inflight, this.inflightCounts, reply.horizon, this.p.policy);
    this.synced();
    this.count = reply.count;
    this.expiries = reply.expiries;
    this.expCounts = reply.expiryCounts;
    this.expIdx = 0;
    this.expGone = 0;
    this.tail = EMPTY;
    this.tailIdx = 0;
    if (r !== null) {
      r.horizon = reply.horizon;
      // its own admits the store counts past the horizon leave the view at their own expiries: with
      // reads following requests a view may serve long after its reply, and one gateway must decide
      // as the central log does (test/regressions/reads-follow-requests-k1-identity.test.ts)
      if (this.onRequest && r.late !== null) this.listLate(r, reply);
      // what only Retry-After reads, kept only for it
      if (this.keeps === KEEPS_ALL) {
        r.unlistedFrom = reply.expiries.length === 0 ? (reply.oldestExpiry ?? Number.NaN) : Number.NaN;
        this.below = reply.belowLimitAt ?? null;
        this.past = reply.pastHorizonAt ?? null;
      }
    }
    this.inflight = EMPTY;
    this.inflightCounts = undefined;
    this.inflightIdx = 0;
    this.inflightLive = 0;
    this.lastSyncAt = now;
    this.stableUntil = Number.NEGATIVE_INFINITY;
  }

  /** The reply's expiries, then those of `late` past its horizon: read in place (see lateTail). */
  private listLate(r: RetryPart, reply: SyncReply): void {
    const late = r.late as number[];
    const s = lateTail(late, r.lateFrom, reply, this.p.policy);
    if (s === NO_LATE) return;
    if (s === NOT_HELD) {
      setLate(r, null, true, this.p.policy);
      return;
    }
    if (s === NOT_IN_PLACE) {
      const listed = listedWithLate(late, r.lateFrom, reply, this.p.policy);
      this.expiries = listed.t;
      this.expCounts = listed.n;
      return;
    }
    this.tail = late;
    this.tailIdx = s;
  }

  /**
   * The parts of a sync with nothing to push (syncEntry, then applySync, less a design's
   * beforeApply) that outlast the next sync: all but the view, which that sync writes whole (the
   * replay's idle reads, src/replay/run/read-steps.ts: why exact). False, nothing changed, unless the
   * key reads at every sync, has nothing to push, has synced before, and its `late` stays as it is
   * (keepLate: lateDue not before the read's horizon). `idleSyncEnd` ends it.
   */
  protected idleSyncStart(now: number): boolean {
    if (this.onRequest || this.inflight !== EMPTY || Number.isNaN(this.lastSyncAt)) return false;
    const r = this.retry;
    if (r !== null && r.late !== null && r.lateDue < now + this.p.horizonMs) return false;
    // syncEntry's, as it runs them (the walk is the one a full sync would make first)
    this.ownSinceSync(now);
    if (this.pending.size !== 0) return false;
    this.asked = false;
    this.inflightLive = 0;
    this.inflightCounts = undefined;
    this.inflightIdx = 0;
    this.pending = this.pending.recycle();
    this.synced();
    this.stableUntil = Number.NEGATIVE_INFINITY;
    return true;
  }

  /** applySync's part of an idle sync (idleSyncStart), after the design's beforeApply. */
  protected idleSyncEnd(now: number): void {
    this.synced();
    this.lastSyncAt = now;
    this.stableUntil = Number.NEGATIVE_INFINITY;
  }

  /** Hook for designs that learn from the reply (track-share). */
  protected beforeApply(_reply: SyncReply, _now: number): void {}

  syncFailed(_now: number): void {
    this.synced();
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
  // a number from the start: a declared field starts undefined and then holds each double boxed
  private share = Number.NaN;
  /** Own admits over the last window (not just since the last sync): the share's numerator. */
  private readonly own = new OwnLog();

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
