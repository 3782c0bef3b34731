/**
 * The lease designs' part of the per-key syncs (KeySyncs, src/replay/run/key-syncs.ts: why exact): a
 * key's run over its holders, and leases-ask's ask on a request.
 *
 * Every sync of a lease design runs (each renews the key's grant), but an idle holder's syncs that the
 * store answers with exactly the slots it holds change only its mean, the lease's lapse and
 * bookkeeping: they are parked (as the simulator's parked gateways are, src/sim/engine/lease-parking.ts)
 * and applied at once where the park stops (LeaseKey.applyIdle). Two kinds: asks of what it holds,
 * which the store can always grant again (they stop only at the holder's own request, or where
 * LeaseKey.idleRun says the ask falls or the key would be dropped); and, after a sync that left the
 * store full, asks of at least that, answered with it while nothing frees a slot: another holder's
 * sync that leaves one free, an admit's expiry or a grant's lapse stop those (`stored`, `watch`).
 * A park may reach past the run's end and stay unapplied across runs (Slot.parkFrom): a run of a key
 * whose holders are all parked past its end does nothing (KeyTrack.quietTo), so a sweep passes quiet
 * keys without touching them, and a holder asked nothing at K = 32 is not stepped at every request
 * on its key. What a park leaves unwritten changes no decision: a newer grant tag (tags only order a
 * gateway's calls on the key, and the next sync hands back every older part), the store's prune
 * (redone by the next call on the key), the reply's view of the store (the headers'; a full park's
 * would be the same), and the lease's lapse, renewed at once to the park's last sync (until then the
 * holder renews it every sync; no other gateway's call reads more of it than that it counts). The
 * store's side of a park is one renewLease.
 *
 * leases-ask's ask on a request goes to the store at once (askKey, tagged with the gateway's last
 * sync before it), without the store's sweep: keys are run out of time order, and a sweep up to the
 * ask's instant could prune another key's record ahead of its calls still to come.
 */
import type { AsksStore, KeyLimiter } from '../../designs/key-limiter.js';
import { applyReply, DROP, syncEntryOf } from '../../designs/key-steps.js';
import type { LeaseKey } from '../../designs/leases.js';
import type { Gateway } from '../../gateway/gateway.js';
import type { AskReply, AskRequest, SyncEntry, SyncReply, SyncRequest } from '../../store/contract.js';
import type { MemoryStore } from '../../store/memory-store.js';
import { firstAt, KeyTrack, newSlot, type Slot, type SyncClock } from './key-track.js';

export class LeaseSteps {
  /** Asks sent on requests' path so far (leases-ask). */
  askCalls = 0;
  /** The ask of a request (one object: the store keeps nothing of it). */
  private readonly askReq: AskRequest;
  /** Its reply, written by the store (one object: the gateway reads it at once). */
  private readonly askReply: AskReply = {
    granted: 0,
    grantExpiresAt: 0,
    now: 0,
    count: 0,
    oldestExpiry: 0,
    free: 0,
  };
  /** The instants LeaseKey.idleRun asks about: idleAt(j) = syncAt(idleFrom + j·K). */
  private idleFrom = 0;
  private readonly idleAt: (j: number) => number;
  /** A run's (`run`) key, its holders (gateways, in place order; their slots) and how many. */
  private key = '';
  private tr: KeyTrack = NO_TRACK;
  private readonly hs: Int32Array;
  private readonly slots: Slot[];
  private n = 0;
  /** A run's key-syncs so far. */
  private keySyncs = 0;
  /** Per holder: its next sync index to look at. */
  private readonly cur: Float64Array;
  /** The lowest index a park ended at (`stored`) in the round, and the store's `watch` (NaN: to be read). */
  private wokeMin = Number.POSITIVE_INFINITY;
  private watchAt = Number.NaN;

  constructor(
    private readonly clock: SyncClock,
    private readonly gws: readonly Gateway[],
    private readonly store: MemoryStore,
    /** KeySyncs' own: the gateways' sync requests, a sync's entry and its reply (one object each). */
    private readonly reqs: readonly SyncRequest[],
    private readonly entry: SyncEntry,
    private readonly reply: SyncReply,
    /** Per gateway, its place in the fleet's sync order. */
    private readonly place: readonly number[],
  ) {
    const fleet = gws[0].options.fleet;
    this.askReq = {
      gatewayId: '',
      key: '',
      policy: fleet.policy,
      leaseTtlMs: fleet.leaseTtlMs,
      ask: 0,
      seq: 0,
    };
    const K = clock.K;
    this.idleAt = (j: number) => clock.syncAt(this.idleFrom + j * K);
    this.hs = new Int32Array(K);
    this.slots = new Array<Slot>(K).fill(NO_SLOT);
    this.cur = new Float64Array(K);
  }

  /**
   * leases-ask's ask, as Gateway.allow sends it (callStore), tagged with the gateway's last sync
   * before it: the count of its sync indices below `end`. The walk's seq counts only the syncs the
   * gateway sent, but a tag only has to fall between the syncs around the ask (the store hands a
   * grant back at the gateway's first sync tagged above it), and the key's syncs are the same.
   */
  ask(lim: KeyLimiter & AsksStore, key: string, g: number, t: number, end: number): boolean {
    const K = this.clock.K;
    const req = this.askReq;
    req.gatewayId = this.gws[g].id;
    req.key = key;
    req.ask = lim.askSize(1);
    req.seq = Math.max(0, Math.floor((end - this.place[g] + K - 1) / K));
    this.askCalls++;
    return lim.onAskReply(this.store.askKey(req, t, this.askReply), t, 1);
  }

  /**
   * The key's syncs of index from tr.next below `end` on the gateways holding it (byPlace: the
   * clock's order of a round), in the fleet's order: each holder's `step`s, its parked syncs applied
   * where the park stops (`unpark`). Parks reaching past `end` stay parked, unapplied (the holder's
   * own request applies them, `arrived`), unless `final` (the figures: applied up to `end`); a key
   * whose holders are all parked to `end` or beyond has nothing to run. Returns the key-syncs applied.
   */
  run(key: string, tr: KeyTrack, byPlace: Int32Array, end: number, final: boolean): number {
    const first = tr.next;
    tr.next = end;
    if (!final && tr.quietTo >= end) return 0;
    const hs = this.hs;
    const n = tr.heldInPlaceOrder(byPlace, hs);
    const K = this.clock.K;
    const cur = this.cur;
    const slots = this.slots;
    this.key = key;
    this.tr = tr;
    this.n = n;
    this.keySyncs = 0;
    this.watchAt = Number.NaN;
    let min = Number.POSITIVE_INFINITY;
    // first's place (no % of a double: V8 calls fmod for it); each holder's first index from it
    const p0 = first - Math.floor(first / K) * K;
    for (let k = 0; k < n; k++) {
      // the slot is touched only where its park or its sync runs: its fields from the key's arrays
      const g = hs[k];
      slots[k] = tr.peek(g);
      let i: number;
      if (tr.parkFromOf(g) >= 0) i = tr.parkStopOf(g);
      else {
        const d = this.place[g] - p0;
        i = first + (d < 0 ? d + K : d);
      }
      cur[k] = i;
      if (i < min) min = i;
    }
    // round by round (K indices from a multiple of K), the holders in place order
    while (min < end) {
      const top = (Math.floor(min / K) + 1) * K;
      min = Number.POSITIVE_INFINITY;
      this.wokeMin = Number.POSITIVE_INFINITY;
      for (let k = 0; k < n; k++) {
        let i = cur[k];
        if (i >= end) continue;
        if (i < top) {
          if (tr.parkFromOf(hs[k]) >= 0) this.unpark(slots[k], i);
          i = this.step(k, i);
          cur[k] = i;
          if (i >= end) continue;
        }
        if (i < min) min = i;
      }
      // a holder woken before its place in this round syncs in a later one
      if (this.wokeMin < min) min = this.wokeMin;
    }
    // the holders' next sync index to look at: the key need not run before the first of them
    let quiet = Number.POSITIVE_INFINITY;
    for (let k = 0; k < n; k++) {
      const g = hs[k];
      if (final && tr.parkFromOf(g) >= 0) this.unpark(slots[k], this.firstFrom(tr.parkFromOf(g), end));
      if (tr.limOf(g) !== null && cur[k] < quiet) quiet = cur[k];
      slots[k] = NO_SLOT;
    }
    tr.quietTo = quiet;
    // let the key go, as its slots above: a retired key's track is not kept alive by the last run
    this.tr = NO_TRACK;
    return this.keySyncs;
  }

  /**
   * A request on gateway g, after the key's syncs below `end` ran: g's parked syncs below `end` are
   * applied (they come before it) and its park ends (its next sync carries the request). Returns the
   * key-syncs applied.
   */
  arrived(tr: KeyTrack, g: number, end: number): number {
    const slot = tr.peek(g);
    tr.quietTo = -1;
    if (slot.parkFrom < 0) return 0;
    this.keySyncs = 0;
    this.unpark(slot, this.firstFrom(slot.parkFrom, end));
    return this.keySyncs;
  }

  /** The first index of index i's gateway at or after `end` (i itself if it is). */
  private firstFrom(i: number, end: number): number {
    const K = this.clock.K;
    return i >= end ? i : i + Math.ceil((end - i) / K) * K;
  }

  /**
   * Holder k's sync i of the key (held there): every sync runs (each renews the key's grant), except
   * that an idle gateway's syncs answered with exactly what it holds are parked (`park`), as the
   * simulator's parked gateways are; returns k's next sync index to look at (+∞: the key dropped
   * there).
   */
  private step(k: number, i: number): number {
    const slot = this.slots[k];
    const lim = this.tr.limOf(this.hs[k]) as LeaseKey | null;
    if (lim === null) return Number.POSITIVE_INFINITY;
    const clock = this.clock;
    const K = clock.K;
    const g = this.hs[k];
    const key = this.key;
    const s = clock.syncAt(i);
    // idle here: the syncs from i that the store would answer with exactly what it holds (asks of
    // that many: it can always grant them again)
    if (lim.unsyncedAdmits() === 0) {
      const held = lim.slots(s);
      const stop = this.park(slot, lim, g, i, held, false, Number.POSITIVE_INFINITY);
      if (stop > i) return stop;
    }
    const e = syncEntryOf(lim, key, s, this.entry);
    if (e === null) return i + K;
    if (e !== DROP) {
      this.keySyncs++;
      const req = this.reqs[g];
      req.seq = Math.floor(i / K) + 1;
      const reply = this.store.syncNext(req, e, s, this.reply);
      const dropped = applyReply(lim, reply, s);
      const full = reply.free === 0;
      this.stored(k, i, full);
      if (!dropped) {
        if (!full || lim.unsyncedAdmits() !== 0) return i + K;
        // what it holds at its next sync must be what the store holds for it (a grant lapsed at
        // the gateway and still counted at the store would be granted again)
        const held = lim.slots(clock.syncAt(i + K));
        if (held !== reply.granted) return i + K;
        return this.park(slot, lim, g, i + K, held, true, this.watch());
      }
    }
    slot.lim = null;
    return Number.POSITIVE_INFINITY;
  }

  /**
   * Parks the idle holder's syncs from index `from` that are answered with exactly the `held` slots
   * it holds, up to before the first at or after `watch`: while it asks for `held` (the store can
   * always grant them again), or, `full` (its last sync left the store with no slot neither admitted
   * nor granted), asks at least `held`, while nothing frees a slot (the store grants min(ask, slots
   * free once its own are handed back), and those are its own). LeaseKey.idleRun counts them (it
   * stops before an ask below `held` or a sync that would drop the key). They are applied when the
   * park stops (`unpark`): there, at the holder's own request (`arrived`), or, `full`, where another
   * holder's sync leaves a slot free, or the instant an admit or a grant leaves the store comes
   * sooner (`stored`). The lease is renewed at once to the park's last sync: a later lapse than an
   * early stop gives is read by no other gateway's call (they count the grant either way), and the
   * holder's next sync hands every part back and grants anew. Returns the park's stop (`from`: none).
   */
  private park(
    slot: Slot,
    lim: LeaseKey,
    g: number,
    from: number,
    held: number,
    full: boolean,
    watch: number,
  ): number {
    const clock = this.clock;
    const K = clock.K;
    const stop = firstAt(clock, from, watch, from + PARK_MAX * K);
    const count = Math.min(PARK_MAX, (stop - from) / K);
    if (count <= 0) return from;
    this.idleFrom = from;
    const m = lim.idleRun(this.idleAt, count, full);
    if (m <= 0) return from;
    if (held > 0)
      this.store.renewLease(
        this.key,
        this.gws[g].id,
        clock.syncAt(from + (m - 1) * K) + this.reqs[g].leaseTtlMs,
      );
    slot.parkFrom = from;
    slot.parkStop = from + m * K;
    slot.parkHeld = held;
    slot.parkFull = full;
    return slot.parkStop;
  }

  /** Applies the parked syncs below index `to` (each answered with what it held); the park ends. */
  private unpark(slot: Slot, to: number): void {
    const from = slot.parkFrom;
    slot.parkFrom = -1;
    const K = this.clock.K;
    const m = (to - from) / K;
    if (m <= 0) return;
    (slot.lim as LeaseKey).applyIdle(m, this.clock.syncAt(to - K), slot.parkHeld);
    this.keySyncs += m;
  }

  /**
   * After holder b's store call at sync index j: a slot left free stops every other full park at its
   * next sync after j; a store still full may still have brought an instant a slot frees sooner (an
   * admit pushed older than the oldest counted), which stops them there.
   */
  private stored(b: number, j: number, full: boolean): void {
    this.watchAt = Number.NaN;
    const cur = this.cur;
    const K = this.clock.K;
    const pj = j - Math.floor(j / K) * K;
    for (let k = 0; k < this.n; k++) {
      if (k === b || this.tr.parkFromOf(this.hs[k]) < 0) continue;
      const slot = this.slots[k];
      if (!slot.parkFull) continue;
      let w: number;
      if (full) w = firstAt(this.clock, slot.parkFrom, this.watch(), cur[k]);
      else {
        const d = this.place[this.hs[k]] - pj;
        w = j + (d <= 0 ? d + K : d);
      }
      if (w >= cur[k]) continue;
      // the park stops at w: its syncs from there run (unpark applies those before)
      cur[k] = slot.parkStop = Math.max(w, slot.parkFrom);
      if (cur[k] < this.wokeMin) this.wokeMin = cur[k];
    }
  }

  /**
   * The first instant a slot may free in the store without a call on the key: its oldest admit's
   * expiry, or a grant's lapse (NaN: not read since the last store call).
   */
  private watch(): number {
    if (!Number.isNaN(this.watchAt)) return this.watchAt;
    let w = this.store.headExpiry(this.key);
    const leases = this.store.peekOnly(this.key)?.leases;
    if (leases != null) for (const l of leases) if (l.until < w) w = l.until;
    this.watchAt = w;
    return w;
  }
}

/** The most syncs one park covers (idleRun counts them: a bound, not a cost). */
const PARK_MAX = 2048;

/** A holder's slot where none is listed (run's scratch, let go after it). */
const NO_SLOT = newSlot();
/** The run's track between runs (nothing reads it then). */
const NO_TRACK = new KeyTrack(0, 0, 1);
