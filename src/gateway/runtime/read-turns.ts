import type { KeyLimiter } from '../../designs/key-limiter.js';
import { Slicer } from '../../util/slicer.js';
import { runTotal } from '../../window/runs.js';
import type { KeyTable } from './key-table.js';
import type { Entries } from './sync-parts.js';

/** A key whose read may wait its turn: room to spare, nothing to push (see buildBatch). */
export interface FarKey {
  key: string;
  lim: KeyLimiter;
}

/**
 * The reads of keys with room to spare and nothing to push, taken in turns: a round takes what fits
 * in ROUND_PARTS parts beside its other entries, from where the last round stopped, round the list,
 * so a flood of such keys only makes their own views staler, never a round longer.
 */
export class ReadTurns {
  /** Where the next round's reads begin, in the list of far keys. */
  private from = 0;

  /**
   * How many reads a round of `others` other entries takes, parts being `partKeys` keys: what is left
   * of ROUND_PARTS parts, and at least one part's worth, so every such key is read in its turn even
   * while pushes fill the round.
   */
  budget(others: number, partKeys: number): number {
    return Math.max(partKeys, ROUND_PARTS * partKeys - others);
  }

  /**
   * Takes the entries of up to `max` of the `far` keys into `to`, from where the last round stopped.
   * A key dropped or replaced since the walk is passed over; one that admitted since pushes now, as
   * a key the walk had not reached yet would.
   */
  async take(far: FarKey[], max: number, now: number, table: KeyTable, to: Entries): Promise<void> {
    const n = far.length;
    const take = Math.min(n, max);
    const from = n === 0 ? 0 : this.from % n;
    const slicer = new Slicer();
    for (let j = 0; j < take; j++) {
      if (slicer.due()) await slicer.pause();
      const { key, lim } = far[(from + j) % n];
      if (table.get(key) !== lim) continue;
      const e = lim.syncEntry(key, now);
      if (e !== null) to.add(e, lim, null, runTotal(e.admits, e.counts));
    }
    this.from = from + take;
  }
}

/**
 * A round's reads of keys with room to spare fill it up to this many parts (about one store timeout
 * of store time, a part taking a quarter of it: see PartSizer): the rest wait for a later round.
 */
const ROUND_PARTS = 4;
