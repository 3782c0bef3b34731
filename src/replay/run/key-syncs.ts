/**
 * The replay fleet's syncs run per key (ReplayFleet's default for the lazy synced designs): a
 * key's syncs are deferred until its next request on any gateway, or until a sweep, then run for that
 * key alone, in the fleet's sync order over all K gateways, at their instants. The store sees each
 * key's calls in time order, which is all it needs: a key's record, and a gateway's state of the key,
 * are touched by that key's calls only (the cross-key parts, the store's sweep and the gateways'
 * seqs, are kept safe below). Run one key after another, a key's state stays in cache for all its
 * syncs, where `Gateway.sync` walked 10,000 cold keys every Δ.
 *
 * A lazy design (Design.syncs 'lazy') also skips the syncs that change nothing: the simulator's rule
 * (src/sim/engine/simulate.ts with InstantSync.lastNeeded, src/sim/engine/instant-sync.ts). After a
 * sync of gateway g that left it nothing to push, with reads at every sync, g's later syncs only
 * replace g's view of the store by a newer one, until g's next request decides on the last of them.
 * So only the last sync before that request matters, provided no sync in between would find the key
 * idle and drop it: none can before the store's newest admit (as of g's sync) expires, since g's view
 * then counts it (later pushes only add to it). A skipped sync would have read (an entry, not null:
 * the key is held, not idle, and reads at every sync), so it still counts as a key-sync. The store's
 * side of a read (pruning what expired, the gateway's seq) is redone by the next call on the key.
 * Running a sync as if it were the last is always exact (it is what `Gateway.sync` does), and a skip
 * is exact with any lower bound of g's next request: a catch-up for a request at t knows t bounds
 * every gateway's, and runs each one's last sync before t (and any at t); a sweep at T, which does not
 * know when the key comes next, only goes through instants before T − Δ: every gateway has a sync in
 * [T − Δ, T), so none it passes can be the last before a request at or after T. A key-grouped chunk
 * knows more (`lookAhead`, ArrivalChunk.lookAhead): each gateway's own next request on the key in the
 * chunk, and for one with none left, the chunk's last instant, which no later chunk's comes before.
 * With its own bound (Slot.ahead), a holder not asking skips on (shared-counter, K = 32 at random: 3.3 store calls a line, not 20.9).
 *
 * Reads on request (Design.readsFollowRequests with `reads: 'on-request'`): InstantSync's
 * unchanged-read skip does not apply (whether a sync reads depends on when the last read was), but
 * the simulator's scheduling does. Once a sync finds nothing to push and no read due (its entry is
 * null: no store call, no key-sync), each later one until the next request on that gateway finds
 * the same (ReadsOnRequest.readDue: a view only ages without requests, so no read falls due before
 * one). Those are skipped, except the last one a catch-up or a sweep passes: idleness only grows
 * without requests, so it finds the key idle (and drops it) if any of the skipped ones would have.
 * The rule is taken at the sync that found it, never asked ahead: a limiter asked about a later
 * instant may move its state there (the simulator asks only when no request comes before).
 *
 * Early syncs (Design.earlySyncs, adaptive-early): after each decision the key is asked, as
 * `Gateway.allow` asks it; one sent (the gateway's bucket had a token) is recorded with the fleet's
 * sync index then (EarlySchedule), and every key the gateway holds runs it later, after the regular
 * syncs below that index and before the others, as the walk's `Gateway.sync` at the request's
 * instant ran it. Whether one is sent depends on a decision, so such a fleet decides its chunks
 * checked (ReplayFleet.beginCheck): key-grouped, each key's state saved first (KeyCheckpoints), and
 * undone and decided again in time order if a decision wanted one. Its reads all run (it learns from
 * successive reads; K = 1: lazy as adaptive), idle ones applied at once (read-steps.ts); on request,
 * its syncs with neither read nor push (entry null) are passed by the rule above and `nullRuns`.
 *
 * The lease designs (Design.syncs 'every'): every sync runs, an idle holder's parked (lease-steps.ts).
 *
 * A run walks only the gateways holding the key (their syncs: the indices ≡ their place mod K; none
 * comes to hold it during a run), round by round in place order, the fleet's; syncs the rules above
 * skip touch nothing shared, so a run of them is passed in one step (key-track.ts). With hash
 * routing a key is held at one gateway: a run costs its own syncs, not K per Δ.
 *
 * The figures: a gateway's sync is one store call however many keys it holds (the walk counted an
 * empty one's too), so store calls are the sync instants passed and the early syncs sent; key-syncs
 * are counted as each key's syncs run (or are skipped, above).
 */

import { requireKey } from '../../config.js';
import { DESIGNS, type Design } from '../../designs/index.js';
import {
  ALLOW,
  asksStore,
  DENY,
  type KeyLimiter,
  readsOnRequest,
  syncsEarly,
} from '../../designs/key-limiter.js';
import { applyReply, DROP, newEntry, syncEntryOf } from '../../designs/key-steps.js';
import { LeaseKey } from '../../designs/leases.js';
import type { Gateway } from '../../gateway/gateway.js';
import type { SyncEntry, SyncRequest } from '../../store/contract.js';
import { newReply } from '../../store/memory/sync-entry.js';
import type { MemoryStore } from '../../store/memory-store.js';
import { EarlySchedule } from './early-schedule.js';
import { KeyCheckpoints } from './key-checkpoints.js';
import { firstAt, firstIndexAt, gatewayAt, KeyTrack, type SyncClock } from './key-track.js';
import { LeaseSteps } from './lease-steps.js';
import { idleReadsOf, ReadSteps } from './read-steps.js';
import { readsRetryAfter, replayLimiter, syncRequestOf } from './replay-limiter.js';

// the clock's interface lives with the index arithmetic; its users import it from here
export type { SyncClock } from './key-track.js';

export class KeySyncs {
  private readonly tracks = new Map<string, KeyTrack>();
  private readonly reqs: SyncRequest[];
  private readonly entry: SyncEntry = newEntry();
  private readonly reply = newReply();
  /** The store's latest expiry of a key (latestExpiryInto), for a slot's `from` (KeyTrack.setFrom). */
  private readonly expiry = { from: Number.NEGATIVE_INFINITY };
  private readonly design: Design;
  /** Design.syncs 'lazy': syncs that change nothing may be skipped (see above; not with early syncs). */
  private readonly lazy: boolean;
  /** Early syncs at K > 1, reads on request: null syncs passed where ReadSteps.passes says so. */
  private readonly nullRuns: boolean;
  /** Design.earlySyncs: the early syncs sent (null: the design has none). */
  private readonly early: EarlySchedule | null;
  /** The lease designs (Design.syncs 'every'): an idle gateway's syncs that re-grant what it holds are applied at once (above). */
  private readonly leases: boolean;
  /** Design.requestPath 'ask' (leases-ask): a request that runs out asks the store. */
  private readonly asks: boolean;
  /** Per gateway, its place in the fleet's sync order (its syncs are the indices ≡ place mod K); by place, the gateway. */
  private readonly place: number[];
  private readonly byPlace: Int32Array;
  /** A run's scratch: the gateways holding the key, in place order, each one's next sync index and bound (run). */
  private readonly hs: Int32Array;
  private readonly cur: Float64Array;
  private readonly bd: Float64Array;
  /** Deciding a chunk with its look-ahead (`lookAhead`); the instant no later chunk's request comes before. */
  private aheadOn = false;
  private aheadEnd = Number.POSITIVE_INFINITY;
  /** A run's first index whose instant is at or after its bound (firstIndexAt), and the instant of its last index. */
  private atBound = 0;
  private endAt = 0;
  /** The run's bound (`run`'s): a field, as `step` reads it (a double argument is boxed on every call). */
  private runBound = 0;
  /** The lease designs' syncs and leases-ask's asks (src/replay/run/lease-steps.ts). */
  private readonly leaseSteps: LeaseSteps;
  /** The early-sync designs' early syncs, and their idle reads at K > 1 (src/replay/run/read-steps.ts). */
  private readonly readSteps: ReadSteps;
  private readonly idleReads: boolean;
  /** Whether the keys read a reply's Retry-After fields (SyncedKey.readsRetryAfter): else the store skips them. */
  private readonly retryAfter: boolean;
  /** Key-syncs run or skipped so far. */
  keySyncs = 0;
  /** The early-sync designs' checked chunks (ReplayFleet.beginCheck): each key's state saved. */
  readonly checks: KeyCheckpoints | null;

  constructor(
    private readonly clock: SyncClock,
    /** The gateways: their ids and options (their own key maps stay empty). */
    private readonly gws: readonly Gateway[],
    private readonly store: MemoryStore,
  ) {
    this.design = DESIGNS[gws[0].options.design];
    const K = clock.K;
    const es = this.design.earlySyncs;
    const fleet = gws[0].options.fleet;
    this.early = es === null ? null : new EarlySchedule(es, K, fleet.syncMs);
    const shared = gws.map((gw) => gw.options.fleet);
    this.checks = es === null ? null : new KeyCheckpoints(store, gws[0].options.policy, shared);
    // early syncs make a design learn from successive reads (Design.earlySyncs): none is skipped, as
    // the simulator skips none; at K = 1 there are no others to learn of, and no early syncs
    this.lazy = this.design.syncs === 'lazy' && (es === null || K === 1);
    this.looksAhead = this.lazy;
    this.nullRuns = !this.lazy && es !== null;
    this.leases = this.design.syncs === 'every' && this.design.create(fleet, 0) instanceof LeaseKey;
    this.asks = this.design.requestPath === 'ask';
    this.byPlace = Int32Array.from({ length: K }, (_, i) => clock.gatewayOf(i));
    this.place = new Array<number>(K).fill(0);
    for (let i = 0; i < K; i++) this.place[this.byPlace[i]] = i;
    this.hs = new Int32Array(K);
    this.cur = new Float64Array(K);
    this.bd = new Float64Array(K);
    this.reqs = gws.map(syncRequestOf);
    this.leaseSteps = new LeaseSteps(clock, gws, store, this.reqs, this.entry, this.reply, this.place);
    this.readSteps = new ReadSteps(clock, store, this.reqs, this.entry, this.reply);
    this.idleReads = idleReadsOf(this.design, fleet, K);
    this.retryAfter = readsRetryAfter(this.design, fleet);
  }

  /** Asks sent on requests' path so far (leases-ask). */
  get askCalls(): number {
    return this.leaseSteps.askCalls;
  }

  /**
   * A request for `key` on gateway g at t, after the key's syncs of index below `end` (every one
   * due at or before t; each gateway's last before t runs). Decided as `Gateway.allow` decides a
   * request of cost 1 (at most L: never over the design's largest cost): a design with no store
   * call on the request path, or leases-ask, whose ask goes to the store here (`askKey`: the
   * sweep is the fleet's, run where no key's calls are still to come before it).
   */
  arrive(key: string, g: number, t: number, end: number, next = Number.NEGATIVE_INFINITY): boolean {
    let tr = this.tracks.get(key);
    const early = this.early;
    if (tr === undefined) {
      // held nowhere: no early sync sent so far concerns it
      tr = new KeyTrack(end, early === null ? 0 : early.end, this.clock.K);
      this.tracks.set(requireKey(key), tr);
    } else if (this.behind(tr, end)) this.run(key, tr, end, t);
    // a lease holder's parked syncs before the request are applied; its park ends (LeaseSteps)
    if (this.leases) this.keySyncs += this.leaseSteps.arrived(tr, g, end);
    const slot = tr.slot(g);
    let lim = slot.lim;
    if (lim === null) lim = slot.lim = replayLimiter(this.design, this.gws[g].options.fleet, t);
    // the sync after a request runs (as the simulator's needSyncAfter): the rule starts again from it
    slot.from = Number.NEGATIVE_INFINITY;
    // g's next request on the key (lookAhead): the bound of g's syncs in the runs until then
    slot.ahead = this.aheadOn ? next : Number.NEGATIVE_INFINITY;
    const v = lim.decide(t, 1);
    let allowed: boolean;
    if (v === ALLOW) allowed = true;
    else if (v === DENY) allowed = false;
    else if (this.asks && asksStore(lim)) allowed = this.leaseSteps.ask(lim, key, g, t, end);
    else
      throw new Error(`${lim.design} said NEED_STORE: the replay's per-key syncs run no request-path call`);
    // Gateway.allow's early sync, asked after every decision (it settles the key's state) and run
    // lazily: this key's next catch-up, and every other key g holds, run it in its place
    if (early !== null && syncsEarly(lim) && lim.wantsEarlySync(t)) {
      // a checked chunk (beginCheck) sends none: it is decided again in time order, from its start
      if (this.checks?.active === true) this.checks.spoiled = true;
      // a K = 1 fleet is decided key-grouped unchecked (ReplayFleet.keyGrouped): it must send none
      else if (early.take(g, t, end) && this.clock.K === 1)
        throw new Error(`${lim.design} sent an early sync at K = 1`);
    }
    return allowed;
  }

  /**
   * A chunk's requests are decided from now on with their look-ahead (until `stopLookAhead`): each
   * key's first request on each gateway given first (`expect`), each request with its gateway's next
   * on the key (`arrive`'s `next`: +∞ for none left in the chunk), and no request of a later chunk
   * comes before `end`.
   */
  lookAhead(end: number): void {
    this.aheadOn = true;
    this.aheadEnd = end;
  }

  stopLookAhead(): void {
    this.aheadOn = false;
  }

  /** Of the key's n gateways gs with a request in the chunk, each one's first at ts (lookAhead). */
  expect(key: string, gs: Int32Array, ts: Float64Array, n: number): void {
    const tr = this.tracks.get(key);
    if (tr !== undefined) for (let j = 0; j < n; j++) tr.expect(gs[j], ts[j]);
  }

  /** Saves the key's state before a checked chunk's first request of it (KeyCheckpoints). */
  checkpoint(key: string): void {
    this.checks!.save(key, this.tracks.get(key));
  }

  /** Whether the key's requests of a checked chunk cannot spoil it (KeyCheckpoints.quiet). */
  quiet(key: string, ts: Float64Array, gs: Int32Array, n: number, from: number, until: number): boolean {
    return this.checks!.quiet(key, this.tracks.get(key), ts, gs, n, from, until);
  }

  /** Undoes the checked chunk: each key it touched as it found it, its key-syncs uncounted. */
  rollback(): void {
    this.keySyncs = this.checks!.restore((key) => this.tracks.delete(key));
    this.readSteps.rollback();
  }

  /** Whether a chunk's look-ahead lets this fleet skip more (`lookAhead`): its syncs are skipped by a bound. */
  readonly looksAhead: boolean;

  /** Early syncs sent so far (tests). */
  get earlySyncs(): number {
    return this.early === null ? 0 : this.early.end;
  }

  /** Keys held over all gateways now (tests: memory). */
  get held(): number {
    return KeyTrack.heldOver(this.tracks);
  }

  /**
   * Every key's syncs of index below `end`, as if no key came again before `bound` (a sweep passes
   * the instant the next request cannot come before; the end of the stream, +∞). Keys held nowhere
   * after it are forgotten; then the store may sweep up to the instant of `end`, which no later call
   * comes before.
   */
  sweep(end: number, bound: number, final = false): void {
    this.tracks.forEach((tr, key, tracks) => {
      if (this.behind(tr, end) || (final && this.leases)) this.run(key, tr, end, bound, final);
      if (!tr.anyHeld()) tracks.delete(key);
    });
    this.store.sweepDue(this.clock.syncAt(end));
    // every key has run the early syncs before regular sync `end`
    const early = this.early;
    if (early !== null) early.forgetBefore(early.firstAfter(end, 0));
  }

  /**
   * Whether the key has syncs to run before regular sync `end`: regular ones, or early ones sent since
   * it ran up to `end` (those sent later than a sweep's `end` come after it: a sweep leaves them).
   */
  private behind(tr: KeyTrack, end: number): boolean {
    if (tr.next !== end) return tr.next < end;
    return this.early !== null && tr.nextEarly < this.early.end;
  }

  /** The key's syncs from tr.next below `end`, in the fleet's order; a request comes at `bound` at the earliest. */
  private run(key: string, tr: KeyTrack, end: number, bound: number, final = false): void {
    const clock = this.clock;
    const K = clock.K;
    const early = this.early;
    // a lease key's run is LeaseSteps' (its parked syncs: src/replay/run/lease-steps.ts)
    if (this.leases) {
      this.keySyncs += this.leaseSteps.run(key, tr, this.byPlace, end, final);
      return;
    }
    // the gateways holding the key, in place order (none can come to hold it during the run)
    const hs = this.hs;
    const n = tr.heldInPlaceOrder(this.byPlace, hs);
    // each one's first sync index from tr.next (a gateway's indices are ≡ its place mod K)
    const cur = this.cur;
    const first = tr.next;
    this.atBound = firstIndexAt(clock, first, end, bound);
    this.runBound = bound;
    this.endAt = end > first ? clock.syncAt(end - 1) : Number.NEGATIVE_INFINITY;
    const bd = this.bd;
    // a gateway whose syncs here all come before its `from` and its last before its bound (the last
    // index's next one, below end + K, is before it) skips them all, as `step` would in one step
    const pass =
      this.lazy && early === null && end > first ? clock.syncAt(end + K - 1) : Number.POSITIVE_INFINITY;
    let min = Number.POSITIVE_INFINITY;
    const idle = this.idleReads;
    if (idle) this.readSteps.beginRun(end);
    // first's place (no % of a double: V8 calls fmod for it); the holders' fields from the key's
    // arrays (KeyTrack.fromOf, aheadOf), not their slots
    const p0 = first - Math.floor(first / K) * K;
    let a = 0;
    for (let k = 0; k < n; k++) {
      const g = hs[k];
      const d = this.place[g] - p0;
      let i = first + (d < 0 ? d + K : d);
      // the instant g's next request cannot come before: with the look-ahead, its own (the chunk's
      // end if none is left in it; at or after the run's: `expect` gave every gateway with a request
      // still to come here its next), else the run's, which no gateway's comes before (any lower
      // bound is safe: a lower one only skips less). bound * 1: a double on both sides; merged with
      // the tagged argument, V8 boxed every bound
      const b = this.aheadOn ? Math.min(tr.aheadOf(g), this.aheadEnd) : bound * 1;
      const from = tr.fromOf(g);
      // reads on request (from +∞): the run's last goes, unless the look-ahead bound is later (step),
      // or it cannot find the key idle (nullRuns)
      const skip = b > pass && from > this.endAt && (from < Number.POSITIVE_INFINITY || b > bound);
      const none = from === Number.POSITIVE_INFINITY && this.nullRuns;
      if (i < end && (skip || (none && this.readSteps.passes(tr.limOf(g), end - 1)))) {
        const m = Math.ceil((end - i) / K);
        if (from < Number.POSITIVE_INFINITY) this.keySyncs += m;
        i += m * K;
      }
      if (idle) this.readSteps.holder(tr.peek(g).lim, i);
      // only the gateways with syncs left stay in the arrays (in place order): most pass them all here
      if (i >= end) continue;
      hs[a] = g;
      cur[a] = i;
      bd[a] = b;
      a++;
      if (i < min) min = i;
    }
    // round by round (K indices from a multiple of K), the held gateways in place order: the syncs in
    // the fleet's order, each gateway's skipped runs passed in one step (they touch nothing shared);
    // one done with the run leaves the arrays (a run walked every holder each round)
    while (min < end) {
      const top = (Math.floor(min / K) + 1) * K;
      min = Number.POSITIVE_INFINITY;
      let w = 0;
      for (let k = 0; k < a; k++) {
        let i = cur[k];
        if (i < top) {
          // the early syncs sent before regular sync i, first (they may drop the key somewhere)
          if (early !== null && tr.nextEarly < early.end) tr.nextEarly = this.runEarly(key, tr, early, i);
          const g = hs[k];
          if (tr.limOf(g) === null) i = Number.POSITIVE_INFINITY;
          else if (idle && this.readSteps.idle(key, tr, tr.peek(g), g, i, end)) {
            this.keySyncs++;
            // the gateway's seq, as the sync would set it (an early sync's push is tagged with it)
            this.reqs[g].seq = Math.floor(i / K) + 1;
            i += K;
          } else i = this.step(key, tr, g, i, end, k);
          if (i >= end) continue;
        }
        hs[w] = hs[k];
        cur[w] = i;
        bd[w] = bd[k];
        w++;
        if (i < min) min = i;
      }
      a = w;
    }
    if (early !== null) tr.nextEarly = this.runEarly(key, tr, early, end);
    tr.next = end;
  }

  /**
   * Gateway g's sync i of the key (held there), or its syncs from i that the lazy rule skips (above);
   * returns g's next sync index to look at (+∞: the key dropped there). `bound`: the instant g's next
   * request cannot come before (run's `bd`); `runBound`: the run's, which `atBound` was found for.
   */
  private step(key: string, tr: KeyTrack, g: number, i: number, end: number, k: number): number {
    // read here, not passed: a double argument is boxed on every call
    const bound = this.bd[k];
    const runBound = this.runBound;
    const clock = this.clock;
    const K = clock.K;
    // boxed once per index for every key (BoxedInstants): s goes to calls not inlined, each boxed it anew
    const s = this.readSteps.instants.at(i);
    // the slot's `from`, from the key's array (a skip touches no slot). A lazy skip: before it, and
    // not g's last sync before the request
    const from = tr.fromOf(g);
    if (s < from && clock.syncAt(i + K) < bound) {
      // g's first index whose next one is at or after `bound`
      const last =
        (bound === runBound ? gatewayAt(clock, i, this.atBound, bound, end) : firstAt(clock, i, bound, end)) -
        K;
      if (from !== Number.POSITIVE_INFINITY) {
        // reads every sync: the skipped reads are key-syncs all the same
        const stop = Math.min(end, from > this.endAt ? end : firstAt(clock, i, from, end), last);
        const m = Math.ceil((stop - i) / K);
        this.keySyncs += m;
        return i + m * K;
      }
      // reads on request, none due: they carry nothing; the last of the run goes (it drops an idle
      // key), unless the look-ahead puts a later one of g's before its next request (that one will)
      const stop = Math.min(bound > runBound ? end : end - K, last);
      if (i < stop) return i + Math.ceil((stop - i) / K) * K;
    }
    const lim = tr.limOf(g) as KeyLimiter;
    // that one too, where it cannot find the key idle (adaptive-early: ReadSteps.passes)
    if (from === Number.POSITIVE_INFINITY && this.nullRuns && this.readSteps.passes(lim, i)) return i + K;
    const e = syncEntryOf(lim, key, s, this.entry);
    if (e === null) {
      // reads on request, nothing to push and no read due: none falls due before a request (below)
      if (this.lazy || this.early !== null) tr.setFrom(g, Number.POSITIVE_INFINITY);
      return i + K;
    }
    if (e !== DROP) {
      this.keySyncs++;
      const req = this.reqs[g];
      // the gateway's seq, rising by sync (only its order matters: lease grants are tagged by it)
      req.seq = Math.floor(i / K) + 1;
      if (this.idleReads) this.readSteps.synced(tr, tr.peek(g), e.admits.length > 0);
      if (!applyReply(lim, this.store.syncNext(req, e, s, this.reply, this.retryAfter), s)) {
        if (this.lazy && lim.unsyncedAdmits() === 0 && !readsOnRequest(lim)) {
          // (written by the store: a returned number is boxed, see latestExpiryInto)
          this.store.latestExpiryInto(key, this.expiry);
          tr.setFrom(g, this.expiry.from);
        } else tr.setFrom(g, Number.NEGATIVE_INFINITY);
        return i + K;
      }
    }
    // nothing left of the key here: dropped, as Gateway.sync drops it
    tr.peek(g).lim = null;
    return Number.POSITIVE_INFINITY;
  }

  /** The key's early syncs from tr.nextEarly on, up to regular sync `i`'s place (ReadSteps.runEarly). */
  private runEarly(key: string, tr: KeyTrack, early: EarlySchedule, i: number): number {
    const e = this.readSteps.runEarly(key, tr, early, i, this.idleReads);
    this.keySyncs += this.readSteps.counted;
    return e;
  }
}
