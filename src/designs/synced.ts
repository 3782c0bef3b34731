import type { DesignId } from '../config.js';
import type { SyncEntry, SyncReply } from '../store/contract.js';
import { expiryOf } from '../window/expiry.js';
import { AdmitLog, RunLog } from '../window/run-log.js';
import { concatRuns, listTotal, runList, runTotal } from '../window/runs.js';
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
import { after, firstAdmitAt, firstRuns, merged, NO_RUNS, type RunList } from './retry-walk.js';

const EMPTY: number[] = [];

/** In SyncedKey's `late`: the index of the last run of the push whose first run is at `r`. */
function lastRunOf(late: readonly number[], r: number): number {
  while (late[r + 1] > 0) r += 2;
  return r;
}

/** SyncedKey.retryAt's last answer (`at`) and the state it was computed on. */
class RetryMemo {
  at = Number.NaN;
  /** With `at` Infinity: the soonest it might admit (retryNotBefore); −Infinity: no bound. */
  notBefore = Number.NEGATIVE_INFINITY;
  from = Number.NaN;
  cost = Number.NaN;
  syncAt = Number.NaN;
  syncs = -1;
  pending = -1;
}

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

  /** Takes `cost` admits at `at` out of `late`, the first runs at `at` first; a push left empty goes. */
  private dropLate(at: number, cost: number): void {
    const late = this.late;
    if (late === null) return;
    let w = 0;
    for (let r = this.lateFrom; r < late.length; r += 2) {
      const end = late[r + 1] < 0;
      let k = end ? -late[r + 1] : late[r + 1];
      if (late[r] === at && cost > 0) {
        const off = Math.min(k, cost);
        k -= off;
        cost -= off;
      }
      if (k > 0) {
        late[w++] = late[r];
        late[w++] = end ? -k : k;
      } else if (end && w > 0 && late[w - 1] > 0) {
        // the push's last run went: the run kept before it is of the same push (an earlier push's
        // last run is marked), and ends it now
        late[w - 1] = -late[w - 1];
      }
    }
    late.length = w;
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
    const { windowMs, windowKind } = this.p.policy;
    const exp = (t: number) => expiryOf(t, windowMs, windowKind);
    // after settle every one of these is still counting at now
    // the view's expiries: the reply's (before its horizon), then its own late ones (see applySync)
    const listed = runList(this.expiries, this.expCounts, this.expIdx, (e) => e);
    const told = this.toldExpiries();
    const pend = this.pending.liveRuns();
    const own = merged(
      runList(this.inflight, this.inflightCounts, this.inflightIdx, exp),
      runList(pend.times, pend.counts, 0, exp),
    );
    const before = firstAdmitAt(now, syncAt, this.knownCached, listed, this.ownCached, own, (k, o) =>
      this.admits(k, o, cost, false),
    );
    if (before < Number.POSITIVE_INFINITY || !(syncAt < Number.POSITIVE_INFINITY)) return before;
    // a key no reply has told the store's count of yet: what the others admitted is unknown
    if (Number.isNaN(this.lastSyncAt)) return Number.POSITIVE_INFINITY;
    const ts = Math.max(now, syncAt);
    const late = this.lateExpiries();
    const unknown = Math.max(0, this.count - listTotal(told.all) - listTotal(late));
    // its own admits count at their instants only once a reply lists them: with a horizon shorter
    // than Δ, one aging out past the next reply's horizon may still be counted when it does
    const { horizonMs, syncMs } = this.p;
    const sees = horizonMs >= syncMs ? Number.POSITIVE_INFINITY : ts + horizonMs;
    const mine = merged(after(late, ts), after(own, ts));
    let seen = 0;
    while (seen < mine.t.length && mine.t[seen] < sees) seen++;
    const ok = (k: number, o: number) => this.admits(k, o, cost, true);
    const fixed = merged(after(told.left, ts), firstRuns(mine, seen));
    let unseen = 0;
    for (let r = seen; r < mine.n.length; r++) unseen += mine.n[r];
    if (unknown === 0) {
      return firstAdmitAt(ts, Number.POSITIVE_INFINITY, listTotal(fixed) + unseen, fixed, 0, NO_RUNS, ok);
    }
    // The others' admits it knows only as a count (unknown) leave at instants it was not told, but
    // within bounds: none before the oldest the reply counted past its horizon (unlistedFrom, when
    // told; else the horizon), none after the window of the reply's instant. The oldest one leaves
    // exactly then, when it is not one of its own (those it knows). Walked both ways: with every
    // unknown leaving at its earliest (its own unseen ones too), then at its latest (the exact one at
    // its instant; past what a reply lists by then, never). The same answer both ways is the answer;
    // else it waits on admits it has no instant of: it cannot know (Infinity). It waited for its own
    // oldest admit instead, up to a window late (regression:
    // test/regressions/synced-retry-after-waits-for-its-own-oldest-admit.test.ts).
    const oldest = this.unlistedFrom;
    let lb = Number.isNaN(oldest) ? this.horizon : Math.max(oldest, this.horizon);
    let exact = !Number.isNaN(oldest) && (late.t.length === 0 || oldest < late.t[0]);
    // the others' admits among the two oldest unlisted (pastHorizonAt) leave at their instants, the
    // rest no earlier than the last told
    const known = this.pastOthers(late, unknown);
    let rest = unknown;
    if (known !== null) {
      rest -= listTotal(known.others);
      if (known.from > lb) lb = known.from;
      exact = false;
    }
    const others = known === null ? NO_RUNS : after(known.others, ts);
    const ub = Math.max(lb, exp(this.lastSyncAt));
    const at = (e: number, n: number): RunList => (e > ts && n > 0 ? { t: [e], n: [n] } : NO_RUNS);
    const lows = merged(
      after(told.left, ts),
      mine,
      others,
      this.unknownLows(ts, lb, rest, merged(told.left, others), late),
    );
    const lo = firstAdmitAt(ts, Number.POSITIVE_INFINITY, listTotal(lows), lows, 0, NO_RUNS, ok);
    if (!(lo < Number.POSITIVE_INFINITY)) return lo;
    const first = exact ? 1 : 0;
    let seenOthers = 0;
    while (seenOthers < others.t.length && others.t[seenOthers] < sees) seenOthers++;
    const highs = merged(
      fixed,
      firstRuns(others, seenOthers),
      first > 0 && lb < sees ? at(lb, 1) : NO_RUNS,
      ub < sees ? at(ub, rest - first) : NO_RUNS,
    );
    let gone = 0;
    if (first > 0 && !(lb > ts)) gone += 1;
    if (!(ub > ts)) gone += rest - first;
    const k0 = listTotal(fixed) + listTotal(others) + unseen + rest - gone;
    const hi = firstAdmitAt(ts, Number.POSITIVE_INFINITY, k0, highs, 0, NO_RUNS, ok);
    if (hi === lo) return lo;
    // it cannot know, but not before lo: a client told its next sync retried every Δ until then
    out.notBefore = lo;
    return Number.POSITIVE_INFINITY;
  }

  /**
   * The expiries the last reply listed (before its horizon; the view's list goes on with its own late
   * ones): all of them, and those not walked past yet.
   */
  private toldExpiries(): { all: RunList; left: RunList } {
    const ex = this.expiries;
    const ec = this.expCounts;
    let b = ex.length;
    while (b > 0 && ex[b - 1] >= this.horizon) b--;
    const t = ex.slice(0, b);
    const n = ec === undefined ? undefined : ec.slice(0, b);
    return { all: runList(t, n, 0, (e) => e), left: runList(t, n, Math.min(this.expIdx, b), (e) => e) };
  }

  /**
   * The others' admits among the two oldest the last reply counted and did not list (`past`, its
   * pastHorizonAt): those of its instants that are not its own `late` ones (ascending runs), at most
   * `unknown` of them; `from`, the last instant told (none of the rest leaves before it). Null: not
   * told, or the reply does not agree with its own late admits (it then knows no more than before).
   */
  private pastOthers(late: RunList, unknown: number): { others: RunList; from: number } | null {
    const past = this.past;
    if (past === null) return null;
    const t: number[] = [];
    const n: number[] = [];
    let i = 0;
    let used = 0;
    let from = Number.NEGATIVE_INFINITY;
    for (const p of past) {
      // past the store's read, or no such admit: nothing more told
      if (!(p > Number.NEGATIVE_INFINITY && p < Number.POSITIVE_INFINITY)) break;
      if (i < late.t.length && late.t[i] < p) return null;
      from = p;
      if (i < late.t.length && late.t[i] === p) {
        // one of its own (a tie with another's leaves at the same instant either way)
        if (++used === late.n[i]) {
          i++;
          used = 0;
        }
        continue;
      }
      if (listTotal({ t, n }) >= unknown) return null;
      if (t.length > 0 && t[t.length - 1] === p) n[n.length - 1]++;
      else {
        t.push(p);
        n.push(1);
      }
    }
    if (from === Number.NEGATIVE_INFINITY) return null;
    return { others: { t, n }, from };
  }

  /**
   * Where the others' admits known only as a count (`unknown`) leave at their earliest, as runs after
   * `ts`: at `lb`, but for those the store's count needs to stay at L − j until below[j] (each j,
   * latest first, less those it knows leave then or later: `listed` and `late`). It let them all leave
   * at lb, early by up to a window when the count was over L (regression:
   * test/regressions/synced-retry-after-early-when-store-over-limit.test.ts).
   */
  private unknownLows(ts: number, lb: number, unknown: number, listed: RunList, late: RunList): RunList {
    const below = this.below;
    const runs = (e: number, n: number): RunList => (e > ts && n > 0 ? { t: [e], n: [n] } : NO_RUNS);
    if (below === null) return runs(lb, unknown);
    const counted = merged(after(listed, ts), after(late, ts));
    const t: number[] = [];
    const n: number[] = [];
    let held = 0;
    for (let j = below.length - 1; j >= 0; j--) {
      const b = below[j];
      if (!(b > ts && b < Number.POSITIVE_INFINITY)) continue;
      let stay = 0;
      for (let r = 0; r < counted.t.length; r++) if (counted.t[r] >= b) stay += counted.n[r];
      const need = Math.min(unknown, this.limit - j - stay) - held;
      if (need > 0) {
        // none leaves before lb anyway
        t.unshift(Math.max(b, lb));
        n.unshift(need);
        held += need;
      }
    }
    return merged(runs(lb, unknown - held), { t, n });
  }

  /**
   * Whether decide admits `cost` with k of the store's admits and o own admits since the last sync
   * still counting; `afterSync`: at a sync with nothing else arriving (o = 0).
   */
  protected admits(k: number, o: number, cost: number, _afterSync: boolean): boolean {
    return k + this.weightCached * o + cost - 1 < this.limit;
  }

  /** Expiries of `late` admits the store counts without listing them (at or past the horizon), ascending runs. */
  private lateExpiries(): RunList {
    const late = this.late;
    if (late === null) return NO_RUNS;
    const { windowMs, windowKind } = this.p.policy;
    const t: number[] = [];
    const n: number[] = [];
    for (let r = this.lateFrom; r < late.length; r += 2) {
      const e = expiryOf(late[r], windowMs, windowKind);
      if (e >= this.horizon) {
        t.push(e);
        n.push(Math.abs(late[r + 1]));
      }
    }
    // in push order: with a clock that went back, not ascending
    return merged({ t, n });
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

  /**
   * The reply's expiries (all before its horizon), then those of `late` (at or past it), in arrays of
   * their exact length (a key's memory: bench/key-bytes.mjs), counts only where one is not 1.
   */
  private listLate(reply: SyncReply): void {
    const late = this.late as number[];
    const { windowMs, windowKind } = this.p.policy;
    const h = reply.horizon;
    let m = 0;
    let held = 0;
    let ones = reply.expiryCounts === undefined;
    for (let r = this.lateFrom; r < late.length; r += 2) {
      if (!(expiryOf(late[r], windowMs, windowKind) >= h)) continue;
      const c = Math.abs(late[r + 1]);
      m++;
      held += c;
      if (c !== 1) ones = false;
    }
    if (m === 0) return;
    const ex = reply.expiries;
    const ec = reply.expiryCounts;
    // a count below its list and these does not hold them all (the key was reset at the store after
    // the push, or the store lost them): listed, each left the count at its expiry and took the view
    // below 0, L + 1 admitted (test/regressions/synced-late-admits-past-a-reset-count.test.ts). Which
    // ones it holds is unknown: none is kept as its own
    if (reply.count < runTotal(ex, ec) + held) {
      this.setLate(null, true);
      return;
    }
    const t = new Array<number>(ex.length + m);
    const n = ones ? undefined : new Array<number>(ex.length + m);
    for (let i = 0; i < ex.length; i++) {
      t[i] = ex[i];
      if (n !== undefined) n[i] = ec === undefined ? 1 : ec[i];
    }
    let k = ex.length;
    let sorted = true;
    for (let r = this.lateFrom; r < late.length; r += 2) {
      const e = expiryOf(late[r], windowMs, windowKind);
      if (!(e >= h)) continue;
      if (k > ex.length && e < t[k - 1]) sorted = false;
      t[k] = e;
      if (n !== undefined) n[k] = Math.abs(late[r + 1]);
      k++;
    }
    if (!sorted) {
      // a clock that went back left own admits out of order
      const own = this.lateExpiries();
      for (let r = 0; r < own.t.length; r++) {
        t[ex.length + r] = own.t[r];
        if (n !== undefined) n[ex.length + r] = own.n[r];
      }
    }
    this.expiries = t;
    this.expCounts = n;
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
    const { windowMs, windowKind } = this.p.policy;
    let late = this.late;
    let first = false;
    if (late !== null && this.lateDue < horizon) {
      // the pushes listed whole, oldest first: each goes when its last run's expiry is before the horizon
      let r = this.lateFrom;
      while (r < late.length) {
        const last = lastRunOf(late, r);
        if (!(expiryOf(late[last], windowMs, windowKind) < horizon)) break;
        r = last + 2;
      }
      if (r === late.length) {
        late = null;
        r = 0;
      } else if (2 * r >= late.length) {
        // the dropped runs are half of it: the rest moved down (a loop, not copyWithin: the builtin
        // boxed every double it moved)
        const n = late.length - r;
        for (let i = 0; i < n; i++) late[i] = late[r + i];
        late.length = n;
        r = 0;
      }
      this.lateFrom = r;
      first = true;
    }
    const n = pushed.length;
    if (n > 0 && expiryOf(pushed[n - 1], windowMs, windowKind) >= horizon) {
      if (late === null) {
        // its exact size: grown by push from empty it held 16 runs (a key's memory: bench/key-bytes.mjs)
        late = new Array<number>(2 * n);
        for (let i = 0; i < n; i++) {
          late[2 * i] = pushed[i];
          late[2 * i + 1] = counts === undefined ? 1 : counts[i];
        }
        first = true;
      } else {
        // by push: grown by setting its length, it was copied whole at every push (the study's busy keys)
        for (let i = 0; i < n; i++) late.push(pushed[i], counts === undefined ? 1 : counts[i]);
      }
      late[late.length - 1] = -late[late.length - 1];
    }
    this.setLate(late, first || late === null);
  }

  /** Sets `late`; `firstChanged`: its first push is another (or it is gone), so lateDue is recomputed. */
  private setLate(late: number[] | null, firstChanged: boolean): void {
    this.late = late;
    if (late === null) this.lateFrom = 0;
    if (!firstChanged) return;
    this.lateDue =
      late === null
        ? Number.POSITIVE_INFINITY
        : expiryOf(late[lastRunOf(late, this.lateFrom)], this.p.policy.windowMs, this.p.policy.windowKind);
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
