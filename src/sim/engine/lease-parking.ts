import type { LeaseKey } from '../../designs/leases.js';
import type { Agenda } from './agenda.js';
import type { RunState } from './run-state.js';

/**
 * Parked lease gateways (lease designs, syncs not all run): an idle gateway whose syncs would each be
 * answered with exactly what it holds skips them; syncs parkFrom[g] … nextSyncIdx[g] − 1 were
 * skipped, each answered with parkHeld[g] slots, and are applied when the gateway's next sync runs
 * or an arrival comes (LeaseKey.applyIdle makes the same update as those syncs).
 *
 * Parked gateways that rely on the store staying full (asking above what they hold): when a slot
 * frees at t (a release, or the store's oldest admit expiring), the one whose next sync instant comes
 * first runs that sync; if slots are still free after it, the next one is woken then. Waking them all
 * would be exact too, but each would run a sync only to find the slot taken.
 *
 * Equal instants (aligned syncs: every gateway syncs at once, and with a fixed window the window's
 * edge, where admits expire, is one of those instants) keep the order of running every sync: the
 * gateways' syncs at an instant run in gateway order. An admit expiring at t frees its slot for every
 * sync at t, so the watch runs before any sync at t (simulate.ts checks watchAt), and the lowest
 * gateway with a sync at t is woken. A slot handed back by gateway g's sync at t comes after the syncs
 * at t of gateways up to g: those take it at their next instant, not at t again.
 */
export class LeaseParking {
  /** The first skipped sync's index per gateway (−1: not parked). */
  readonly parkFrom: Float64Array;
  parkedCount = 0;
  /** The free slots parkIdle last read from the store at its sync instant (NaN: it did not ask). */
  freeAtPark = Number.NaN;
  /** Each gateway's first sync index at or after the end. */
  private readonly endIdx: Float64Array;
  private readonly parkHeld: Float64Array;
  /** 1 when the park relies on the store staying full (asks above what it holds), 0 when it asks exactly that. */
  private readonly parkFull: Uint8Array;
  private parkedFull = 0;
  /**
   * The gateway the last wakeOne chose and that one's sync instant. Until that sync runs (it unparks
   * the gateway) or another gateway parks full, a later call (t only grows) chooses the same one for
   * the same instant, already scheduled: nothing to do. (Each parked gateway's candidate instant only
   * grows with t, and a parked gateway's next sync only comes earlier, by wakeOne.)
   */
  private woken = -1;
  private wokenAt = Number.NEGATIVE_INFINITY;
  /** The instant the watch leaf is set to (Infinity: nothing to watch); a sync at it waits for the watch. */
  watchAt = Number.POSITIVE_INFINITY;
  /** The instants idleRun asks about: atG's sync instants from index atFrom on (one closure for every call). */
  private atG = 0;
  private atFrom = 0;
  private readonly idleAt: (i: number) => number;

  constructor(
    private readonly run: RunState,
    /** the watch's leaf is set to the instant the store's oldest admit expires; a woken gateway's next sync is refreshed */
    private readonly agenda: Agenda,
  ) {
    const { K, clock, end } = run;
    this.parkFrom = new Float64Array(K).fill(-1);
    this.parkHeld = new Float64Array(K);
    this.parkFull = new Uint8Array(K);
    this.endIdx = new Float64Array(K);
    for (let g = 0; g < K; g++) this.endIdx[g] = clock.idxAtOrAfter(g, end);
    this.idleAt = (i: number) => clock.instant(this.atG, this.atFrom + i);
  }

  /**
   * After g's sync at s with nothing to push: with no free slot in the store until its oldest admit
   * expires, an idle gateway's syncs are answered with what it holds even when it asks for more: park
   * it from sync index `next` on, up to its next arrival (`bound`), lazily (a release by another
   * gateway or an earlier expiry wakes it; see watchStore). Returns how many syncs it skips.
   */
  parkIdle(g: number, lease: LeaseKey, s: number, next: number, bound: number): number {
    this.freeAtPark = Number.NaN;
    const { clock, store, key } = this.run;
    const before = Math.min(clock.idxAtOrAfter(g, bound), this.endIdx[g]) - next;
    if (before <= 0) return 0;
    const freeNow = store.freeSlots(key, s);
    this.freeAtPark = freeNow;
    const full = freeNow <= 0;
    this.atG = g;
    this.atFrom = next;
    const n = lease.idleRun(this.idleAt, before, full);
    if (n > 0) {
      const held = lease.slots(s);
      if (held > 0)
        store.renewLease(
          key,
          this.run.gatewayIds[g],
          clock.instant(g, next + n - 1) + this.run.fleet.leaseTtlMs,
        );
      this.parkFrom[g] = next;
      this.parkHeld[g] = held;
      this.parkFull[g] = full ? 1 : 0;
      if (full) {
        this.parkedFull++;
        this.woken = -1;
      }
      this.parkedCount++;
    }
    return n;
  }

  /** Applies parked g's skipped syncs before its sync of index idx. */
  unpark(g: number, idx: number): void {
    const { lims, clock, counts } = this.run;
    const n = idx - this.parkFrom[g];
    const lim = lims[g] as LeaseKey;
    lim.applyIdle(n, clock.instant(g, idx - 1), this.parkHeld[g]);
    counts.returnedSum += this.parkHeld[g] * n;
    counts.leaseSyncs += n;
    if (this.parkFull[g] === 1) this.parkedFull--;
    this.parkFrom[g] = -1;
    this.parkedCount--;
  }

  /**
   * After gateway `after`'s sync at t (−1: the store's oldest admit expiring at t, before every sync
   * at t): wake one if a slot is free. freeAtT: the store's free slots at t when the caller has them
   * (NaN: ask the store).
   */
  watchStore(t: number, freeAtT: number, after: number): void {
    if (this.parkedFull === 0) {
      this.setWatch(Number.POSITIVE_INFINITY);
      return;
    }
    const { store, key } = this.run;
    if ((Number.isNaN(freeAtT) ? store.freeSlots(key, t) : freeAtT) > 0) this.wakeOne(t, after);
    this.setWatch(store.headExpiry(key));
  }

  private setWatch(at: number): void {
    this.watchAt = at;
    this.agenda.tree.set(this.agenda.watchLeaf, at);
  }

  /**
   * The parked-full gateway whose next sync instant at or after t comes first (on a tie, the lowest
   * gateway) runs that sync. Gateways up to `after` synced at t before the slot freed: their next
   * instant after t counts.
   */
  private wakeOne(t: number, after: number): void {
    const { parkFrom, parkFull } = this;
    const clock = this.run.clock;
    if (this.woken >= 0 && t <= this.wokenAt && parkFrom[this.woken] >= 0 && parkFull[this.woken] === 1)
      return;
    let best = -1;
    let bestAt = Number.POSITIVE_INFINITY;
    let bestIdx = 0;
    for (let g = 0; g < parkFrom.length; g++) {
      if (parkFrom[g] < 0 || parkFull[g] === 0) continue;
      // max(idxAtOrAfter(g, t), parkFrom[g]), with the division only when the park began before t
      let idx = parkFrom[g];
      let at = clock.instant(g, idx);
      if (at < t) {
        idx = clock.idxAtOrAfter(g, t);
        at = clock.instant(g, idx);
      }
      if (at === t && g <= after) at = clock.instant(g, ++idx);
      if (at < bestAt) {
        bestAt = at;
        best = g;
        bestIdx = idx;
      }
    }
    this.woken = best;
    this.wokenAt = bestAt;
    if (best < 0) return;
    if (bestIdx < clock.nextSyncIdx[best]) {
      clock.setNext(best, bestIdx);
      this.agenda.refresh(best);
    }
  }

  /** At the end: parked gateways' skipped syncs up to the end still count. */
  countToEnd(): void {
    const parkFrom = this.parkFrom;
    const { clock, counts } = this.run;
    for (let g = 0; g < parkFrom.length; g++) {
      if (parkFrom[g] < 0) continue;
      const n = Math.min(clock.nextSyncIdx[g], this.endIdx[g]) - parkFrom[g];
      if (n > 0) {
        counts.returnedSum += this.parkHeld[g] * n;
        counts.leaseSyncs += n;
      }
    }
  }
}
