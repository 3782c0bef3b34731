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
import type { KeyLimiter } from '../../designs/key-limiter.js';
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
  /** The saved limiters' states, in the order of `saves` and their slots. */
  private readonly snap: StateSnapshot;

  constructor(
    private readonly store: MemoryStore,
    /** The store's policy of the fleet's keys. */
    private readonly policy: Policy,
    /** What the limiters share with every other key (the gateways' fleet parameters). */
    shared: readonly object[],
  ) {
    const set = new Set<object>(shared);
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
