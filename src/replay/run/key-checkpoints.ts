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
}

interface KeySave {
  key: string;
  /** The key's track then (undefined: it had none). */
  track: TrackState | undefined;
  next: number;
  nextEarly: number;
  home: number;
  /** The track's other slots then (a copy of the array: slots made during the chunk are forgotten). */
  others: (SlotState | null)[] | null;
  /** Per slot (the track's own, then each of `others` that exists, in order): whether it held a limiter (its state in the snapshot, in that order), and its `from`. */
  held: boolean[];
  froms: number[];
  record: RecordSave;
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
  private saves: KeySave[] = [];
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
    return this.saves.length;
  }

  /** Saves a key's state (once per key and chunk: the caller sees to it). */
  save(key: string, track: TrackState | undefined): void {
    const held: boolean[] = [];
    const froms: number[] = [];
    let others: (SlotState | null)[] | null = null;
    if (track !== undefined) {
      this.saveSlot(track, held, froms);
      if (track.others !== null) {
        others = track.others.slice();
        for (const s of others) if (s !== null) this.saveSlot(s, held, froms);
      }
    }
    this.saves.push({
      key,
      track,
      next: track?.next ?? 0,
      nextEarly: track?.nextEarly ?? 0,
      home: track?.home ?? -1,
      others,
      held,
      froms,
      record: this.store.saveRecord(key, this.policy),
    });
  }

  private saveSlot(s: SlotState, held: boolean[], froms: number[]): void {
    const lim = s.lim;
    held.push(lim !== null);
    if (lim !== null) this.snap.write(lim);
    froms.push(s.from);
  }

  /**
   * Puts every saved key back (`forget` drops the track of a key that had none) and ends the check;
   * returns the key-syncs counted at `begin`.
   */
  restore(forget: (key: string) => void): number {
    const snap = this.snap;
    snap.rewind();
    for (const sv of this.saves) {
      this.store.restoreRecord(sv.record);
      const tr = sv.track;
      if (tr === undefined) {
        forget(sv.key);
        continue;
      }
      tr.next = sv.next;
      tr.nextEarly = sv.nextEarly;
      tr.home = sv.home;
      // new objects, read in the order written: nothing the chunk worked on is given back
      tr.lim = sv.held[0] ? snap.read<KeyLimiter>() : null;
      tr.from = sv.froms[0];
      tr.others = sv.others;
      let k = 1;
      if (sv.others !== null)
        for (const s of sv.others) {
          if (s === null) continue;
          s.lim = sv.held[k] ? snap.read<KeyLimiter>() : null;
          s.from = sv.froms[k];
          k++;
        }
    }
    this.clear();
    return this.keySyncs;
  }

  /** Ends the check and forgets the saves (the chunk stands). */
  clear(): void {
    this.active = false;
    this.spoiled = false;
    this.saves = [];
  }
}
