import type { AskReply, SyncEntry, SyncReply } from '../store/contract.js';
import { expiryOf } from '../window/expiry.js';
import { AdmitLog } from '../window/run-log.js';
import { concatRuns, runTotal } from '../window/runs.js';
import { forgetPending } from './forget-pending.js';
import {
  ALLOW,
  DENY,
  type FleetParams,
  type GatewayKey,
  NEED_STORE,
  type TakeBack,
  type Verdict,
} from './key-limiter.js';
import { fillEntry } from './key-steps.js';
import { LeaseMean } from './lease-mean.js';
import { prefixLength } from './prefix-length.js';
import { quietPrefix } from './quiet-prefix.js';

/**
 * leases: a gateway admits only within slots the store granted it. At each sync it pushes its
 * admits, hands back unused slots and asks for ceil(1.5 × m) + 1, where m is an exponentially
 * weighted mean of its per-interval arrival counts with time constant W — at every sync, quiet or not,
 * so a key keeps a slot for its next request (and its state: see isIdle). The store never grants
 * past L (admitted in the window + outstanding <= L), so no window ever holds more than L.
 *
 * leases-ask: the same, but a gateway that saw no arrivals since its last sync asks for nothing,
 * and one that runs out asks the store at once (a round trip on that request), sized by the same
 * rule. If the store grants nothing it rejects until its next sync.
 *
 * The mean is over sync intervals, kept by the base class (LeaseMean).
 *
 * A grant lapses at the store after the lease TTL; the gateway stops spending it at the same
 * instant, so a gateway cut off from the store never spends slots the store has taken back.
 */
export class LeaseKey extends LeaseMean implements GatewayKey {
  readonly design: 'leases' | 'leases-ask';
  private grant = 0;
  private grantExpiresAt = Number.NEGATIVE_INFINITY;
  private arrivals = 0;
  private lastArrivalAt = Number.NEGATIVE_INFINITY;
  // a number from the start: a declared field starts undefined and then holds each double boxed
  private lastSyncAt = Number.NaN;
  /**
   * Own admits since the last sync, and those taken by a sync still in flight: the runs it pushed
   * (`inflightCounts[i]` admits at inflight[i]; one each when undefined).
   */
  private pending = AdmitLog.NONE;
  private inflight: number[] = EMPTY;
  private inflightCounts: number[] | undefined = undefined;
  private deniedUntilSync = false;
  /** Syncs started so far, and the count when the last ask went out (see onAskReply). */
  private syncsStarted = 0;
  private askedAt = -1;
  /** Slots handed back unused at the last sync (stranded budget, for the study). */
  lastReturned = 0;
  /**
   * The store's view at the last reply (sync or ask) that brought one: admits counted, when the
   * oldest of them leaves, slots neither admitted nor granted — those a sync in flight hands back
   * included (they are the fleet's while it is out). Count −1: none yet, or a store that does not
   * say (a small integer, not NaN: no boxed double per key). Read only for the headers (retryAt,
   * remaining, resetAt): no decision uses them.
   */
  private storeCount = -1;
  private storeOldest = Number.POSITIVE_INFINITY;
  private storeFree = 0;

  constructor(
    private readonly p: FleetParams,
    private readonly askWhenEmpty: boolean,
    now: number,
  ) {
    super(p.syncMs, p.policy.windowMs);
    this.design = askWhenEmpty ? 'leases-ask' : 'leases';
    this.lastSyncAt = now;
  }

  /** Slots this gateway may still spend. */
  slots(now: number): number {
    if (now >= this.grantExpiresAt) this.grant = 0;
    return this.grant;
  }

  decide(now: number, cost: number): Verdict {
    this.arrivals += cost;
    this.lastArrivalAt = now;
    return this.decideAgain(now, cost);
  }

  decideAgain(now: number, cost: number): Verdict {
    if (this.slots(now) >= cost) return this.spend(now, cost);
    if (this.askWhenEmpty && !this.deniedUntilSync) return NEED_STORE;
    return DENY;
  }

  private spend(now: number, cost: number): Verdict {
    this.grant -= cost;
    if (this.pending === AdmitLog.NONE) this.pending = AdmitLog.take();
    this.pending.append(now, cost);
    return ALLOW;
  }

  /**
   * The size of an ask about to go out. It also records which sync the ask follows: a request that
   * finds no slot and waits on an ask already out must not, or a grant a later sync released
   * would pass onAskReply's check (regression:
   * test/regressions/leases-ask-coalesced-request-spends-released-ask.test.ts).
   */
  askSize(cost: number): number {
    this.askedAt = this.syncsStarted;
    return Math.max(cost, this.sizeRule());
  }

  private sizeRule(): number {
    return Math.ceil(1.5 * this.meanAfter(0)) + 1;
  }

  onAskReply(reply: AskReply, now: number, cost: number): boolean {
    // A sync built after this ask went out hands back what the gateway held then; if the store
    // applied the ask first, that release took the asked slots back too. Spending them would spend
    // slots the store counts as free: the request is refused instead. (An ask sent after a sync was
    // built is tagged so that sync never hands it back, in whichever order the two land.)
    this.learn(reply.count, reply.oldestExpiry, reply.free);
    if (this.askedAt !== this.syncsStarted) return false;
    if (reply.granted > 0) this.addGrant(reply.granted, reply.grantExpiresAt, now);
    if (this.slots(now) >= cost) {
      this.spend(now, cost);
      return true;
    }
    this.deniedUntilSync = true;
    return false;
  }

  /**
   * A refund of an own admit. One not pushed yet was spent from the grant the store still counts as
   * outstanding (the last sync handed back what was held before it): it leaves the pending log and
   * its slot returns to the grant, to spend again until the grant lapses. One a sync in flight
   * carries waits for that sync's answer; one the store counts is the store's to take back.
   */
  takeBack(at: number, cost: number, now: number): TakeBack {
    const { windowMs, windowKind } = this.p.policy;
    if (expiryOf(at, windowMs, windowKind) <= now) return 'gone';
    const k = this.pending.remove(at, cost);
    if (k > 0) {
      if (now < this.grantExpiresAt) this.grant += k;
      return 'local';
    }
    for (const t of this.inflight) if (t === at) return 'wait';
    return 'store';
  }

  /**
   * A reset (Forgets): every live pending admit taken back, its slot back in the grant (the store
   * still counts the grant outstanding, spent or not); slots granted and not spent stay as they are.
   */
  forget(now: number): number {
    return forgetPending(this, this.pending, now);
  }

  noteRejected(n: number, now: number): void {
    this.arrivals += n;
    this.lastArrivalAt = now;
  }

  nextChangeAt(_now: number): number {
    // only a sync brings slots (an ask happens inside decide, before a DENY)
    return Number.POSITIVE_INFINITY;
  }

  /** Keeps the store's view from a reply (see storeCount); a store that says nothing leaves it. */
  private learn(count: number | undefined, oldest: number | undefined, free: number | undefined): void {
    if (count === undefined || oldest === undefined || free === undefined) return;
    this.storeCount = count;
    this.storeOldest = oldest;
    this.storeFree = free;
  }

  /**
   * Slots come only from the store: at a sync (leases), or on an ask (leases-ask, which after a
   * refusal asks again only from its next sync on). The store's last reply said how many were free
   * (every gateway's grant counted, spent or not: another gateway's may hold admits not pushed yet)
   * and when its oldest admit leaves. So for one slot more than this gateway and the store hold: that
   * instant (leases-ask asks then, or at its next sync if it may not before; leases syncs from then),
   * or the sync that pushes an own admit aged out by then (its slot counted as this gateway's grant
   * till then), whichever comes first. Infinity for more than one slot (the rest leave at instants
   * it was not told), or before the key's first reply, or when that oldest admit has left and the
   * slot waits on an own admit: the store's other admits leave from then on at instants it was not
   * told (the same one, maybe), so any sync before the own admit's may bring the slot — Retry-After
   * is then the next sync (it was the own admit's, up to a window late: regression
   * test/regressions/lease-retry-after-waits-own-admit-past-untold-expiries.test.ts). It used to be
   * Infinity always, and
   * Retry-After the next sync whatever the store held (regression:
   * test/regressions/lease-retry-after-is-the-sync-interval.test.ts).
   */
  retryAt(now: number, cost: number, syncAt: number): number {
    const held = this.slots(now);
    if (held >= cost) return now;
    if (this.storeCount < 0 || !(syncAt < Number.POSITIVE_INFINITY)) return Number.POSITIVE_INFINITY;
    let free = this.storeFree;
    let oldest = this.storeOldest;
    // the store's other admits leave from `oldest` on, at instants it did not say (the same one, maybe)
    let untold = false;
    if (this.storeCount > 0 && oldest <= now) {
      // it has left since: one more free; when the next one leaves, the store did not say
      free++;
      oldest = Number.POSITIVE_INFINITY;
      untold = this.storeCount > 1;
    }
    const need = cost - held - free;
    if (need > 1) return Number.POSITIVE_INFINITY;
    const storeAt = need <= 0 ? now : this.storeCount > 0 ? oldest : Number.POSITIVE_INFINITY;
    let at =
      storeAt < Number.POSITIVE_INFINITY ? this.admitFrom(storeAt, syncAt, cost) : Number.POSITIVE_INFINITY;
    const own = this.firstOwnExpiry();
    if (need === 1 && own < at) {
      const ownAt = this.syncFrom(own, syncAt, cost);
      // one of the store's untold admits may leave before it: the soonest the key could admit is all
      // it knows, and that is no promise
      if (untold && this.admitFrom(now, syncAt, cost) < ownAt) return Number.POSITIVE_INFINITY;
      at = Math.min(at, ownAt);
    }
    return at;
  }

  /**
   * The first instant at or after `t` at which the key could take a slot the store has free from `t`:
   * leases at its first sync from then (syncFrom); leases-ask then, or at its next sync if it may not
   * ask before.
   */
  private admitFrom(t: number, syncAt: number, cost: number): number {
    if (!this.askWhenEmpty) return this.syncFrom(t, syncAt, cost);
    return this.deniedUntilSync && t < syncAt ? syncAt : t;
  }

  /**
   * The first sync at or after `t` (syncs Δ apart from `syncAt`; the store drops an admit at its
   * expiry), if what it asks for covers the cost (leases: the intervals after this one without
   * arrivals; leases-ask asks on the request path from then); else Infinity.
   */
  private syncFrom(t: number, syncAt: number, cost: number): number {
    const j = t <= syncAt ? 0 : Math.ceil((t - syncAt) / this.p.syncMs);
    if (!this.askWhenEmpty) {
      const m = this.meanAfter(0);
      const closed = this.arrivals === 0 ? m * this.decay : m + this.alpha * (this.arrivals - m);
      if (Math.ceil(1.5 * closed * this.decayPow(j)) + 1 < cost) return Number.POSITIVE_INFINITY;
    }
    return syncAt + j * this.p.syncMs;
  }

  /** When the oldest own admit not yet counted by the store (pending, or in a sync in flight) ages out. */
  private firstOwnExpiry(): number {
    const { windowMs, windowKind } = this.p.policy;
    let first = Number.POSITIVE_INFINITY;
    if (this.inflight.length > 0) first = expiryOf(this.inflight[0], windowMs, windowKind);
    if (this.pending.size > 0) {
      const e = expiryOf(this.pending.firstHeld(), windowMs, windowKind);
      if (e < first) first = e;
    }
    return first;
  }

  /**
   * What this gateway holds plus what the store had neither admitted nor granted at the last reply
   * (and what a sync in flight hands back): the slots the fleet has for the key, less those the other
   * gateways hold. It used to be the held slots alone, which went 1, 0, 1, 0 as asks refilled them
   * (issue 31): now a grant only moves slots from the store's part to this gateway's, and the sum
   * rises only when the store frees one (an admit leaves, a grant is handed back or lapses).
   */
  remaining(now: number): number {
    const held = this.slots(now);
    if (this.storeCount < 0) return held;
    return Math.min(this.p.policy.limit, held + this.storeFree);
  }

  /**
   * When the next slot frees: the store's oldest admit or this gateway's oldest admit the store has
   * not counted yet, whichever leaves first; the next sync when neither is known. (It was the next
   * sync whenever the store's last reply counted nothing, so a key's first login said its quota reset
   * in Δ where it stays spent for W: test/regressions/leases-reset-says-next-sync-not-own-admit.test.ts.)
   */
  resetAt(now: number): number {
    const store = this.storeOldest > now && this.storeCount > 0 ? this.storeOldest : Number.POSITIVE_INFINITY;
    const first = Math.min(store, this.firstOwnExpiry());
    return first > now && Number.isFinite(first) ? first : this.lastSyncAt + this.p.syncMs;
  }

  /**
   * What a sync asks for, given the mean after this interval: the studied rule, ceil(1.5·m) + 1, at
   * every sync for leases, however long the key has been quiet (so it keeps at least one slot while
   * the store has one: see isIdle); leases-ask asks nothing after an interval without arrivals.
   */
  private askAt(arrivals: number, mean: number): number {
    return this.askWhenEmpty && arrivals === 0 ? 0 : Math.ceil(1.5 * mean) + 1;
  }

  /**
   * How many of the syncs at `at(0) … at(count − 1)` of an idle gateway (no arrivals, nothing to
   * push) would be answered with exactly the slots it holds, so that they change nothing but its
   * mean, the lease's renewal and the bookkeeping. That is so while the gateway asks for what it
   * holds (the store can always re-grant what a gateway held), or — when `storeFull`, i.e. the store
   * has no free slot for the whole span — while it asks for at least that. Stops before a sync that
   * would leave the key idle (the gateway drops it then). The simulator uses this to skip store calls
   * that cannot change anything; `applyIdle` makes the same update as syncEntry + applySync.
   */
  idleRun(at: (i: number) => number, count: number, storeFull: boolean): number {
    if (count <= 0 || this.arrivals !== 0 || this.pending.size > 0 || this.inflight.length > 0) return 0;
    const held = this.slots(at(0));
    // leases-ask asks for nothing at a sync without arrivals: the same answer only while it holds none
    if (this.askWhenEmpty) return held === 0 ? this.quietRun(at, count) : 0;
    // leases asks ceil(1.5·m) + 1 with the mean m after i + 1 more idle intervals, which only falls
    // as i grows. The syncs that qualify ask exactly what it holds (or, when the store is full, at
    // least that): given the first does, that is the prefix while the ask stays at or above it.
    const j0 = this.idleIntervals + 1;
    const first = this.idleAsk(j0);
    if (storeFull ? first < held : first !== held) return 0;
    // the ask is at least 1: only a gateway the full store granted nothing can hold none
    const span = held === 0 ? this.quietRun(at, count) : count;
    return held <= 1 || span === 0 ? span : this.askRun(span, held, j0);
  }

  /** The ask of an idle sync after j idle intervals (idleRun). */
  private idleAsk(j: number): number {
    return Math.ceil(1.5 * (this.meanBase * this.decayPow(j))) + 1;
  }

  /** How many of `span` idle syncs, from j0 idle intervals on, ask at least `held` (a closure: not in idleRun). */
  private askRun(span: number, held: number, j0: number): number {
    // ask(i) >= held ⇔ meanBase·decay^(j0+i) > (held − 2)/1.5: solved with logarithms for a guess,
    // which prefixLength confirms with the exact test (and bisects if rounding put it off)
    const guess = Math.floor(Math.log((held - 2) / 1.5 / this.meanBase) / this.logDecay) - j0 + 1;
    return prefixLength(span, (i) => this.idleAsk(j0 + i) >= held, guess);
  }

  /**
   * How many of the syncs at `at(0) … at(count − 1)` come less than a window after the last arrival:
   * a gateway holding no slot goes idle (and drops the key) at the first sync a whole window after
   * it, and idleRun stops before it. Its own method: a closure in idleRun made every call allocate.
   */
  private quietRun(at: (i: number) => number, count: number): number {
    const windowMs = this.p.policy.windowMs;
    const last = this.lastArrivalAt;
    // instants Δ apart (the usual case): the count is a division away, which quietPrefix confirms
    const guess = Math.ceil((last + windowMs - at(0)) / this.p.syncMs);
    return quietPrefix(at, count, last, windowMs, guess);
  }

  /** Applies n idle syncs, the last at `last`, each answered with `held` slots (see idleRun). */
  applyIdle(n: number, last: number, held: number): void {
    if (n <= 0) return;
    this.idleIntervals += n;
    this.lastReturned = held;
    this.deniedUntilSync = false;
    this.lastSyncAt = last;
    this.grant = held;
    this.grantExpiresAt = held > 0 ? last + this.p.leaseTtlMs : last;
  }

  /** idleRun + applyIdle for syncs that ask exactly what they hold; returns how many it applied. */
  fastForwardIdle(at: (i: number) => number, count: number): number {
    const held = count > 0 ? this.slots(at(0)) : 0;
    const n = this.idleRun(at, count, false);
    if (n > 0) this.applyIdle(n, at(n - 1), held);
    return n;
  }

  syncEntry(key: string, now: number, into?: SyncEntry): SyncEntry {
    this.syncsStarted++;
    this.closeInterval(this.arrivals);
    const ask = this.askAt(this.arrivals, this.meanAfter(0));
    this.arrivals = 0;
    this.lastReturned = this.slots(now);
    this.storeFree += this.lastReturned;
    this.grant = 0;
    this.deniedUntilSync = false;
    const pend = this.pending;
    let counts: number[] | undefined;
    if (this.inflight !== EMPTY) {
      // a failed sync's admits, then those made since
      const all = concatRuns(this.inflight, this.inflightCounts, pend.runTimes(), pend.runCounts());
      this.inflight = all.times;
      counts = all.counts;
    } else if (pend.size === 0) counts = undefined;
    else {
      this.inflight = pend.runTimes();
      counts = pend.runCounts();
    }
    this.inflightCounts = counts;
    this.pending = pend.recycle();
    const admits = this.inflight;
    this.lastSyncAt = now;
    if (into === undefined) return { key, admits, counts, read: false, release: true, ask };
    return fillEntry(into, key, admits, counts, false, true, ask);
  }

  applySync(reply: SyncReply, now: number): void {
    this.inflight = EMPTY;
    this.inflightCounts = undefined;
    this.learn(reply.count, reply.oldestExpiry, reply.free);
    // slots granted to asks sent since this sync was built are still this gateway's (see onAskReply)
    if (reply.granted > 0) this.addGrant(reply.granted, reply.grantExpiresAt, now);
  }

  /**
   * Adds granted slots. The store keeps one lapse per gateway and key, moved later by every grant,
   * so slots still held lapse with the newest grant.
   */
  private addGrant(granted: number, expiresAt: number, now: number): void {
    const held = this.slots(now);
    this.grant = held + granted;
    this.grantExpiresAt = held > 0 && this.grantExpiresAt > expiresAt ? this.grantExpiresAt : expiresAt;
  }

  syncFailed(_now: number): void {
    if (this.inflight.length > 0) this.pending = this.pending.prefixed(this.inflight, this.inflightCounts, 0);
    this.inflight = EMPTY;
    this.inflightCounts = undefined;
  }

  unsyncedAdmits(): number {
    return this.pending.size + runTotal(this.inflight, this.inflightCounts);
  }

  /**
   * Nothing left of the key here. A leases key always asks for a slot, so it is idle only once the
   * store had none to grant it and it has been quiet for W; until then the key cap (async runtime)
   * is what lets it go (its grant then lapses at the store). A leases-ask key holds none after its
   * first sync without arrivals.
   */
  isIdle(now: number): boolean {
    return (
      this.pending.size === 0 &&
      this.inflight.length === 0 &&
      this.slots(now) === 0 &&
      now - this.lastArrivalAt >= this.p.policy.windowMs
    );
  }
}

const EMPTY: number[] = [];
