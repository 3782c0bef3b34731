/**
 * A frozen copy of src/designs/leases.ts as it was before the decision-cost work (commit 2cebc56): the
 * uncached, array-based reference that test/designs/cached.property.test.ts checks the optimised
 * classes against, call by call. Keep it as it is: it is the specification, not production code. One
 * change since: the leases ask rule (askAt), which the specification got wrong against the study.
 */

import {
  ALLOW,
  DENY,
  type FleetParams,
  type KeyLimiter,
  NEED_STORE,
  type Verdict,
} from '../../../src/designs/key-limiter.js';
import type { AskReply, LogAdmitReply, SyncEntry, SyncReply } from '../../../src/store/contract.js';

/**
 * leases: a gateway admits only within slots the store granted it. At each sync it pushes its
 * admits, hands back unused slots and asks for ceil(1.5 × m) + 1, where m is an exponentially
 * weighted mean of its per-interval arrival counts with time constant W. The store never grants
 * past L (admitted in the window + outstanding <= L), so no window ever holds more than L.
 *
 * leases-ask: the same, but a gateway that saw no arrivals since its last sync asks for nothing,
 * and one that runs out asks the store at once (a round trip on that request), sized by the same
 * rule. If the store grants nothing it rejects until its next sync.
 *
 * The mean is over sync intervals: m ← m + α·(arrivals − m) with α = 1 − e^(−Δ/W), Δ the configured
 * interval, so its time constant is W. An interval with no arrivals multiplies it by e^(−Δ/W); those
 * are counted and applied together (m = base·e^(−kΔ/W) after k idle intervals), so a run of idle
 * syncs costs the same however it is split.
 *
 * A grant lapses at the store after the lease TTL; the gateway stops spending it at the same
 * instant, so a gateway cut off from the store never spends slots the store has taken back.
 */
export class LeaseKey implements KeyLimiter {
  readonly design: 'leases' | 'leases-ask';
  private grant = 0;
  private grantExpiresAt = Number.NEGATIVE_INFINITY;
  /** The mean after the last interval with arrivals, and the idle intervals since. */
  private meanBase = 0;
  private idleIntervals = 0;
  private arrivals = 0;
  private lastArrivalAt = Number.NEGATIVE_INFINITY;
  private lastSyncAt: number;
  private pending: number[] = [];
  private inflight: number[] = EMPTY;
  private deniedUntilSync = false;
  /** Syncs started so far, and the count when the last ask went out (see onAskReply). */
  private syncsStarted = 0;
  private askedAt = -1;
  /** Slots handed back unused at the last sync (stranded budget, for the study). */
  lastReturned = 0;
  private readonly alpha: number;
  private readonly decay: number;

  constructor(
    private readonly p: FleetParams,
    private readonly askWhenEmpty: boolean,
    now: number,
  ) {
    this.design = askWhenEmpty ? 'leases-ask' : 'leases';
    this.lastSyncAt = now;
    this.decay = Math.exp(-p.syncMs / p.policy.windowMs);
    this.alpha = 1 - this.decay;
  }

  /** Slots this gateway may still spend. */
  slots(now: number): number {
    if (now >= this.grantExpiresAt) this.grant = 0;
    return this.grant;
  }

  decide(now: number, cost: number): Verdict {
    this.arrivals += cost;
    this.lastArrivalAt = now;
    if (this.slots(now) >= cost) return this.spend(now, cost);
    if (this.askWhenEmpty && !this.deniedUntilSync) return NEED_STORE;
    return DENY;
  }

  private spend(now: number, cost: number): Verdict {
    this.grant -= cost;
    for (let i = 0; i < cost; i++) this.pending.push(now);
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
    // A sync built after this ask went out hands back what this gateway held then; if the store
    // applied the ask first, that release took the asked slots back too. Spending them would spend
    // slots the store counts as free: the request is refused instead.
    if (this.askedAt !== this.syncsStarted) return false;
    if (reply.granted > 0) {
      this.addGrant(reply, now);
    }
    if (this.slots(now) >= cost) {
      this.spend(now, cost);
      return true;
    }
    this.deniedUntilSync = true;
    return false;
  }

  onLogReply(_r: LogAdmitReply, _now: number, _cost: number): boolean {
    throw new Error(`${this.design} never calls the log on the request path`);
  }

  noteRejected(n: number, now: number): void {
    this.arrivals += n;
    this.lastArrivalAt = now;
  }

  nextChangeAt(_now: number): number {
    // only a sync brings slots (an ask happens inside decide, before a DENY)
    return Number.POSITIVE_INFINITY;
  }

  /** Frozen before Retry-After asked this: not compared (test/gateway/retry-after.property.test.ts checks it). */
  retryAt(_now: number, _cost: number, _syncAt: number): number {
    return Number.POSITIVE_INFINITY;
  }

  remaining(now: number): number {
    return this.slots(now);
  }

  resetAt(_now: number): number {
    return this.lastSyncAt + this.p.syncMs;
  }

  /** The per-interval update of the mean: the one place it is computed. */
  /** The mean arrivals per interval after `idle` more intervals without arrivals. */
  private meanAfter(idle: number): number {
    const k = this.idleIntervals + idle;
    return k === 0 ? this.meanBase : this.meanBase * this.decay ** k;
  }

  /** Closes an interval with `arrivals` arrivals. */
  private closeInterval(arrivals: number): void {
    if (arrivals === 0) this.idleIntervals++;
    else {
      const m = this.meanAfter(0);
      this.meanBase = m + this.alpha * (arrivals - m);
      this.idleIntervals = 0;
    }
  }

  /**
   * What a sync at `now` asks for, given the mean after this interval. Changed since the freeze (issue
   * 17, item 4): leases follows the studied rule, ceil(1.5·m) + 1 at every sync, quiet or not (it
   * asked 0 a window after its last arrival); leases-ask still asks 0 after an interval without arrivals.
   */
  private askAt(_now: number, arrivals: number, mean: number): number {
    const quiet = this.askWhenEmpty && arrivals === 0;
    return quiet ? 0 : Math.ceil(1.5 * mean) + 1;
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
    if (count <= 0 || this.arrivals !== 0 || this.pending.length > 0 || this.inflight.length > 0) return 0;
    const held = this.slots(at(0));
    // Both parts of the test only turn false as i grows (the mean decays, quiet comes once), so the
    // syncs that qualify are a prefix, found by bisection.
    const same = (i: number): boolean => {
      const t = at(i);
      if (held === 0 && t - this.lastArrivalAt >= this.p.policy.windowMs) return false;
      const ask = this.askAt(t, 0, this.meanAfter(i + 1));
      return storeFull ? ask >= held : ask === held;
    };
    if (!same(0)) return 0;
    let lo = 0;
    let hi = count;
    while (hi - lo > 1) {
      const mid = (lo + hi) >>> 1;
      if (same(mid)) lo = mid;
      else hi = mid;
    }
    return lo + 1;
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

  syncEntry(key: string, now: number): SyncEntry {
    this.syncsStarted++;
    this.closeInterval(this.arrivals);
    const ask = this.askAt(now, this.arrivals, this.meanAfter(0));
    this.arrivals = 0;
    this.lastReturned = this.slots(now);
    this.grant = 0;
    this.deniedUntilSync = false;
    this.inflight = takeAdmits(this.inflight, this.pending);
    if (this.pending.length > 0) this.pending = [];
    const admits = this.inflight;
    this.lastSyncAt = now;
    return { key, admits, read: false, release: true, ask };
  }

  applySync(reply: SyncReply, now: number): void {
    this.inflight = EMPTY;
    // what asks sent since the sync was built granted stays this gateway's (the store tags it so)
    if (reply.granted > 0) this.addGrant(reply, now);
  }

  /** Slots held lapse with the newest grant: the store moves the whole grant's lapse with each. */
  private addGrant(reply: { granted: number; grantExpiresAt: number }, now: number): void {
    const held = this.slots(now);
    this.grant = held + reply.granted;
    this.grantExpiresAt =
      held > 0 ? Math.max(this.grantExpiresAt, reply.grantExpiresAt) : reply.grantExpiresAt;
  }

  syncFailed(_now: number): void {
    if (this.inflight.length > 0) this.pending = this.inflight.concat(this.pending);
    this.inflight = EMPTY;
  }

  unsyncedAdmits(): number {
    return this.pending.length + this.inflight.length;
  }

  isIdle(now: number): boolean {
    return (
      this.pending.length === 0 &&
      this.inflight.length === 0 &&
      this.slots(now) === 0 &&
      now - this.lastArrivalAt >= this.p.policy.windowMs
    );
  }
}

const EMPTY: number[] = [];

/** What a sync pushes: a failed sync's admits, then those made since. Empty needs no new array. */
function takeAdmits(inflight: number[], pending: number[]): number[] {
  if (inflight === EMPTY) return pending.length === 0 ? EMPTY : pending;
  return inflight.concat(pending);
}
