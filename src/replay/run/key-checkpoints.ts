/**
 * The checked chunks' undo (KeySyncs.beginCheck): each key's state as the chunk found it, copied at
 * the key's first request there, before anything of the chunk touched it: its track (the sync
 * indices it ran to, each gateway's limiter and lazy-skip instant) and its store record. A chunk
 * decided key-grouped that turns out to need time order (a decision wanted an early sync) is put
 * back with `restore` and decided again in time order, from exactly the state time order had.
 *
 * The limiters are saved whole (a StateSnapshot: their states written in order into buffers reused
 * from chunk to chunk), sharing only what is shared in the design's own working: the fleet's
 * parameters, the sentinels compared by identity (the empty run list `EMPTY`, the empty admit log
 * `AdmitLog.NONE`), and the arrays the design only replaces (REPLACED_FIELDS). New objects read back
 * from it, not the ones the chunk went on working with, are what a slot gets back: a log the chunk
 * handed to the spare pool stays there.
 */

import type { Policy } from '../../config.js';
import { AdaptiveEarlyKey, partShareLow, quietBound } from '../../designs/adaptive-early.js';
import type { FleetParams, KeyLimiter } from '../../designs/key-limiter.js';
import { EMPTY } from '../../designs/synced-view.js';
import type { RecordSave } from '../../store/memory/key-records.js';
import type { MemoryStore } from '../../store/memory-store.js';
import { StateSnapshot } from '../../util/state-snapshot.js';
import { AdmitLog } from '../../window/run-log.js';

/** One key on one gateway, as KeySyncs keeps it (Slot). */
export interface SlotState {
  lim: KeyLimiter | null;
  from: number;
}

/** One key's place in the schedule, as KeySyncs keeps it (KeyTrack: its home gateway's slot in itself). */
export interface TrackState extends SlotState {
  next: number;
  nextEarly: number;
  home: number;
  others: (SlotState | null)[] | null;
  /** After the slots are put back: the held flags the dropped slots left (KeyTrack.restored). */
  restored(): void;
}

/**
 * One key's save. Reused from chunk to chunk (`saves` keeps them), and the slots' parts are written
 * into the snapshot, not into arrays of their own: a save allocated six objects a key, a tenth of
 * what adaptive-early's replay allocated at K = 4 (random routing).
 */
interface KeySave {
  key: string;
  /** The key's track then (undefined: it had none). */
  track: TrackState | undefined;
  next: number;
  nextEarly: number;
  home: number;
  /**
   * The track's array of other slots then (null: none), its entries in the snapshot: a slot the
   * chunk made in it is forgotten at `restore`.
   */
  others: (SlotState | null)[] | null;
  record: RecordSave | null;
}

/**
 * The limiters' fields (the synced designs' view, src/designs/synced-view.ts and synced.ts) that hold
 * arrays only ever replaced whole, never written into: a reply's expiries and their counts, the
 * runs a sync pushed, the reply's Retry-After instants. A save shares them (StateSnapshot), where
 * copying them was a third of a save; test/replay/key-checkpoints-sharing.test.ts freezes them through
 * a design's whole working to hold that. (`late` is written into: it is copied.)
 */
export const REPLACED_FIELDS: ReadonlySet<string> = new Set([
  'expiries',
  'expCounts',
  'inflight',
  'inflightCounts',
  'below',
  'past',
]);

export class KeyCheckpoints {
  /** A checked chunk is being decided (`begin`): a decision that wants an early sync sends none. */
  active = false;
  /** Set when one did: the chunk must be undone (`restore`) and decided in time order. */
  spoiled = false;
  private keySyncs = 0;
  /** The saves since `begin`: the first `count` of `saves` (the rest kept for later chunks). */
  private readonly saves: KeySave[] = [];
  private count = 0;
  /** `mostWithin`'s scratch: per gateway, its most, its queue's ends and length; the queue's links. */
  private readonly most: Int32Array;
  private readonly first: Int32Array;
  private readonly last: Int32Array;
  private readonly inSpan: Int32Array;
  private order = new Int32Array(64);
  /** The saved limiters' states, in the order of `saves` and their slots. */
  private readonly snap: StateSnapshot;

  constructor(
    private readonly store: MemoryStore,
    /** The store's policy of the fleet's keys. */
    private readonly policy: Policy,
    /** What the limiters share with every other key: the gateways' fleet parameters, by gateway. */
    private readonly fleets: readonly FleetParams[],
  ) {
    const set = new Set<object>(fleets);
    const K = fleets.length;
    this.most = new Int32Array(K);
    this.first = new Int32Array(K);
    this.last = new Int32Array(K);
    this.inSpan = new Int32Array(K);
    set.add(EMPTY);
    set.add(AdmitLog.NONE);
    this.snap = new StateSnapshot((v) => set.has(v), REPLACED_FIELDS);
  }

  /** A checked chunk starts, the key-syncs counted so far at `keySyncs`. */
  begin(keySyncs: number): void {
    this.active = true;
    this.spoiled = false;
    this.keySyncs = keySyncs;
    this.snap.reset();
  }

  /** Keys saved since the last `clear`. */
  get size(): number {
    return this.count;
  }

  /**
   * Whether none of the key's n requests in the chunk (at ts[j] on gateway gs[j], in order) can want
   * an early sync, from its state as the chunk finds it (`from`, `until`: the chunk's first and last
   * instants): such a key cannot spoil the chunk, and decided after every key that can (checked.ts),
   * it need not be saved. Every read of the key in the chunk counts at most what its record holds now
   * (none dropped yet: its calls come in time order) plus what the chunk pushes: the slots' unsynced
   * admits and the requests' admits (n at most). Gateway g syncs every Δ (none skipped: an early-sync
   * design's are not), each sync taking its admits since the last one, so its own admits since a sync
   * are at most its unsynced ones plus its most requests within a span of Δ (`mostWithin`, over 2Δ: a
   * margin). AdaptiveEarlyKey.quietWhile bounds the part from those (a limiter dropped and made again
   * in the chunk is a new key's, within them); a gateway with no request decides nothing. A design
   * other than adaptive-early, or requests out of order: false.
   */
  quiet(
    key: string,
    track: TrackState | undefined,
    ts: Float64Array,
    gs: Int32Array,
    n: number,
    from: number,
    until: number,
  ): boolean {
    let unsynced = 0;
    if (track !== undefined) {
      unsynced += unsyncedOf(track);
      const others = track.others;
      if (others !== null) for (let g = 0; g < others.length; g++) unsynced += unsyncedOf(others[g]);
    }
    const most = this.mostWithin(ts, gs, n);
    if (most === null) return false;
    const countMax = this.store.heldOf(key, this.policy) + unsynced + n;
    for (let g = 0; g < most.length; g++) {
      if (most[g] === 0) continue;
      const slot = track === undefined ? null : g === track.home ? track : (track.others?.[g] ?? null);
      const lim = slot === null ? null : slot.lim;
      if (lim === null) {
        // a new key's limiter, made in the chunk
        const p = this.fleets[g];
        if (!quietBound(p, countMax, 0, partShareLow(p, 1 / p.gateways, from, until), most[g])) return false;
      } else if (
        !(lim instanceof AdaptiveEarlyKey) ||
        !lim.quietWhile(lim.unsyncedAdmits() + most[g], countMax, from, until)
      )
        return false;
    }
    return true;
  }

  /**
   * Per gateway, the most of its requests (of the n at ts[j] on gs[j]) within any closed span of 2Δ
   * (its fleet's syncMs); null if the instants are not in order.
   */
  private mostWithin(ts: Float64Array, gs: Int32Array, n: number): Int32Array | null {
    const K = this.fleets.length;
    const most = this.most;
    const last = this.last;
    const first = this.first;
    most.fill(0);
    // per gateway, its requests so far in the span ending at the latest (a queue in `order`)
    if (this.order.length < n) this.order = new Int32Array(Math.max(n, 2 * this.order.length));
    const order = this.order;
    for (let g = 0; g < K; g++) first[g] = last[g] = -1;
    const count = this.inSpan;
    count.fill(0);
    for (let j = 0; j < n; j++) {
      if (j > 0 && !(ts[j] >= ts[j - 1])) return null;
      const g = gs[j];
      const span = 2 * this.fleets[g].syncMs;
      // g's requests: a linked queue through `order`, oldest first
      order[j] = -1;
      if (last[g] === -1) first[g] = j;
      else order[last[g]] = j;
      last[g] = j;
      count[g]++;
      while (ts[first[g]] < ts[j] - span) {
        first[g] = order[first[g]];
        count[g]--;
      }
      if (count[g] > most[g]) most[g] = count[g];
    }
    return most;
  }

  /**
   * Saves a key's state (once per key and chunk: the caller sees to it). Written into the snapshot,
   * per slot (the track's own, then each of `others` in order): the entry (of `others`), then for a
   * slot that exists its `from`, whether it holds a limiter, and the limiter's state.
   */
  save(key: string, track: TrackState | undefined): void {
    let sv = this.saves[this.count];
    if (sv === undefined) {
      sv = { key, track, next: 0, nextEarly: 0, home: -1, others: null, record: null };
      this.saves.push(sv);
    }
    this.count++;
    sv.key = key;
    sv.track = track;
    sv.others = null;
    if (track !== undefined) {
      sv.next = track.next;
      sv.nextEarly = track.nextEarly;
      sv.home = track.home;
      this.saveSlot(track);
      const others = track.others;
      sv.others = others;
      if (others !== null)
        for (let g = 0; g < others.length; g++) {
          const o = others[g];
          this.snap.writeRef(o);
          if (o !== null) this.saveSlot(o);
        }
    }
    sv.record = this.store.saveRecord(key, this.policy);
  }

  private saveSlot(s: SlotState): void {
    const snap = this.snap;
    const lim = s.lim;
    snap.writeNumber(s.from);
    snap.writeNumber(lim === null ? 0 : 1);
    if (lim !== null) snap.write(lim);
  }

  /** A slot as `saveSlot` wrote it: its limiter a new object read back, nothing the chunk worked on. */
  private restoreSlot(s: SlotState): void {
    const snap = this.snap;
    s.from = snap.readNumber();
    s.lim = snap.readNumber() === 1 ? snap.read<KeyLimiter>() : null;
  }

  /**
   * Puts every saved key back (`forget` drops the track of a key that had none) and ends the check;
   * returns the key-syncs counted at `begin`.
   */
  restore(forget: (key: string) => void): number {
    const snap = this.snap;
    snap.rewind();
    for (let i = 0; i < this.count; i++) {
      const sv = this.saves[i];
      this.store.restoreRecord(sv.record!);
      const tr = sv.track;
      if (tr === undefined) {
        forget(sv.key);
        continue;
      }
      tr.next = sv.next;
      tr.nextEarly = sv.nextEarly;
      tr.home = sv.home;
      this.restoreSlot(tr);
      // the same array, its entries as they were (a slot made since is dropped)
      const others = sv.others;
      tr.others = others;
      if (others !== null)
        for (let g = 0; g < others.length; g++) {
          const o = snap.readRef<SlotState | null>();
          others[g] = o;
          if (o !== null) this.restoreSlot(o);
        }
      tr.restored();
    }
    this.clear();
    return this.keySyncs;
  }

  /** Ends the check and forgets the saves (the chunk stands). */
  clear(): void {
    this.active = false;
    this.spoiled = false;
    // the saves let go of their keys, tracks and records (kept for reuse, not for what they held)
    for (let i = 0; i < this.count; i++) {
      const sv = this.saves[i];
      sv.key = '';
      sv.track = undefined;
      sv.others = null;
      sv.record = null;
    }
    this.count = 0;
  }
}

/** A slot's unsynced admits (none: 0). */
function unsyncedOf(s: SlotState | null | undefined): number {
  return s === null || s === undefined || s.lim === null ? 0 : s.lim.unsyncedAdmits();
}
