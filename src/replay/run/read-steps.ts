/**
 * The early-sync designs' part of the per-key syncs (KeySyncs, src/replay/run/key-syncs.ts): a run's
 * early syncs, and the idle reads applied at once.
 *
 * Idle reads. Such a design runs every sync of every holder at K > 1 (none is skipped: each read
 * feeds its estimate of the others' rate), most of them by a gateway with nothing to push on a key
 * no other gateway pushed to since. Such a read finds the store's count no higher than the view the
 * gateway holds: every admit counted then was there at its last read, and that read listed each one
 * leaving before this one (the horizon is ≥ Δ), or kept it in the view's count (a count only falls
 * from there). So it learns nothing of the others (adaptive-early's `others` ≤ 0) and changes only
 * the share (own admits over the store's count, which `MemoryStore.countOf` gives, pruning the record
 * as the sync's read would), the part's share, and bookkeeping: AdaptiveEarlyKey.idleSync does that
 * much. The view it would write, the gateway's next sync writes whole; that sync reads the key on
 * the older view, which ages to what the skipped one would have aged to (the same admits listed up
 * to then; past that horizon, counted, which only lowers `others` further, still ≤ 0) and frees
 * (SyncedView.freed) on the same admits leaving. So an idle read is applied at once when
 * - no sync pushed to the key since the gateway's last read (the reads and pushes are ordered by one
 *   tick: Slot.readAt, KeyTrack.pushAt; a rollback makes every earlier read unknown, `epoch`),
 * - none will before its next sync: every holder with admits to push has had its first sync of the
 *   run (`quietFrom`; a run makes no decision, so a gateway with nothing to push has nothing until the
 *   run ends, and an early sync pushes only a holder's admits),
 * - its next sync is in the run (index + K below the run's end): a run ends with each view written;
 * or, in place of the last two, its next sync comes before the horizon of the read that wrote its
 * view (AdaptiveEarlyKey.listsBefore). Up to then that view lists every admit it counts that leaves,
 * as the skipped read's would: with nothing pushed since the read, both know the store's count at
 * every instant, so a decision on it, or a full sync after another gateway's push (its `others`),
 * finds what it would have found on the newer view. (The default horizon is 4 Δ: about half of the
 * reads a run's rules left full at K = 4 random.)
 * An early sync (runEarly: each key the gateway holds runs it) is a read as a regular one is, taken
 * on the same rules at the index it is placed before; the gateway's next sync is its next regular
 * one at the latest, so `end` bounds it as it bounds a regular one's.
 * The design refuses (a full sync runs) where its reply could say more: reads on request, a key that
 * never synced here, `late` due before the horizon, a count of 0 (the key may be dropped).
 */
import { AdaptiveEarlyKey } from '../../designs/adaptive-early.js';
import type { Design } from '../../designs/index.js';
import type { FleetParams, KeyLimiter } from '../../designs/key-limiter.js';
import { applyReply, DROP, syncEntryOf } from '../../designs/key-steps.js';
import type { SyncEntry, SyncReply, SyncRequest } from '../../store/contract.js';
import type { MemoryStore } from '../../store/memory-store.js';
import { BoxedInstants } from './boxed-instants.js';
import type { EarlySchedule } from './early-schedule.js';
import type { KeyTrack, Slot, SyncClock } from './key-track.js';

/** Whether a fleet of `design` at K gateways applies idle reads: adaptive-early's limiters, at K > 1, reads at every sync. */
export function idleReadsOf(design: Design, fleet: FleetParams, K: number): boolean {
  // on request, the design refuses every one (AdaptiveEarlyKey.idleSync): none is asked
  if (fleet.readsOnRequest === true) return false;
  return design.earlySyncs !== null && K > 1 && design.create(fleet, 0) instanceof AdaptiveEarlyKey;
}

export class ReadSteps {
  /** Key-syncs the last `runEarly` ran. */
  counted = 0;
  /** Orders every key's pushes and reads (KeyTrack.pushAt, Slot.readAt). */
  private tick = 0;
  /** Reads before this tick are not known to follow their key's last push (a rollback undid some). */
  private epoch = 0;
  /** The run being walked: the last index a holder with admits to push syncs at (−∞: none). */
  private quietFrom = Number.NEGATIVE_INFINITY;
  /** The run's end (`beginRun`: its early syncs' idle reads need their gateway's next sync in it). */
  private runEnd = Number.NEGATIVE_INFINITY;
  /** `runEarly`'s schedule, for `idle` asked of an early sync. */
  private early: EarlySchedule | null = null;

  /** The regular syncs' instants, boxed once for every key (BoxedInstants; KeySyncs.step's too). */
  readonly instants: BoxedInstants;

  constructor(
    private readonly clock: SyncClock,
    private readonly store: MemoryStore,
    /** KeySyncs' own: the gateways' sync requests, a sync's entry and its reply (one object each). */
    private readonly reqs: readonly SyncRequest[],
    private readonly entry: SyncEntry,
    private readonly reply: SyncReply,
  ) {
    this.instants = new BoxedInstants(clock);
  }

  /** A run below index `end` starts: no holder with admits to push seen yet (`holder`). */
  beginRun(end: number): void {
    this.quietFrom = Number.NEGATIVE_INFINITY;
    this.runEnd = end;
  }

  /** A holder of the run, its first sync of it at index i. */
  holder(lim: KeyLimiter | null, i: number): void {
    if (lim !== null && i > this.quietFrom && lim.unsyncedAdmits() > 0) this.quietFrom = i;
  }

  /**
   * Gateway g's regular sync i of the key, or its early sync number e (≥ 0, placed before regular
   * sync i: EarlySchedule.indexOf), applied as an idle read if it is one (see above); false: it must
   * run in full. `end`: the run's; g's next sync after an early one comes before its next regular one,
   * below i + K. (Indices, not instants: a double passed to a call that is not inlined is boxed, a
   * heap number per sync.)
   */
  idle(key: string, tr: KeyTrack, slot: Slot, g: number, i: number, end: number, e = -1): boolean {
    const clock = this.clock;
    if (!(slot.readAt > tr.pushAt) || slot.readAt < this.epoch) return false;
    const lim = slot.lim as AdaptiveEarlyKey;
    // a push may come before g's next sync, or a decision: only if the view lists all that leaves by then
    if ((!(i > this.quietFrom) || i + clock.K >= end) && !lim.listsBefore(clock.syncAt(i + clock.K)))
      return false;
    const s = e < 0 ? this.instants.at(i) : this.early!.atOf(e);
    return lim.idleSync(s, this.store.countOf(key, this.reqs[g].policy, s));
  }

  /**
   * Whether adaptive-early's syncs of a key up to regular sync i's instant, on request, at a gateway
   * whose last one found no read due and nothing to push (`from` +∞: KeySyncs' on-request skips) and
   * no request since, are all null and cannot find it idle: an own admit still counts at that
   * instant (AdaptiveKey.ownsAt; then at every one before). Such a sync only ages the state (the next
   * call ages it the same), so none needs running: not even a run's last, which runs to drop an idle
   * key. (An index, not an instant: a double passed to a call not inlined is boxed.)
   */
  passes(lim: KeyLimiter | null, i: number): boolean {
    return (lim as AdaptiveEarlyKey).ownsAt(this.instants.at(i));
  }

  /** A full sync's store call: `pushed` whether its entry pushed admits, then its read. */
  synced(tr: KeyTrack, slot: Slot, pushed: boolean): void {
    if (pushed) tr.pushAt = ++this.tick;
    slot.readAt = ++this.tick;
  }

  /** A checked chunk was undone: the ticks kept no longer tell what the states put back read. */
  rollback(): void {
    this.epoch = ++this.tick;
  }

  /**
   * The key's early syncs from tr.nextEarly on, up to regular sync `i`'s place, each as a sync of the
   * gateway that sent it (none skipped: see KeySyncs' `lazy`; an idle read applied at once, as a
   * regular sync's, in a run of a fleet with idle reads); returns the next one's number, the
   * key-syncs in `counted`.
   */
  runEarly(key: string, tr: KeyTrack, early: EarlySchedule, i: number, idle = false): number {
    let e = tr.nextEarly;
    this.counted = 0;
    this.early = early;
    for (const stop = early.end; e < stop && early.indexOf(e) <= i; e++) {
      const g = early.gatewayOf(e);
      const slot = tr.slot(g);
      const lim = slot.lim;
      if (lim === null) continue;
      // the store's seq is left as it is (below), as the full sync leaves it
      if (idle && this.idle(key, tr, slot, g, early.indexOf(e), this.runEnd, e)) {
        this.counted++;
        continue;
      }
      const s = early.atOf(e);
      const en = syncEntryOf(lim, key, s, this.entry);
      if (en === null) continue;
      // the store's seq is left as it is: it only orders lease grants, and no lease design syncs early
      if (en !== DROP) {
        this.counted++;
        this.synced(tr, slot, en.admits.length > 0);
        if (!applyReply(lim, this.store.syncNext(this.reqs[g], en, s, this.reply), s)) continue;
      }
      slot.lim = null;
    }
    return e;
  }
}
