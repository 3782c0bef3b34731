/**
 * A bounded chunk of arrivals, held in time order and handed back grouped by key (ReplayRun's
 * key-grouped path). Keys are independent once the cross-key bookkeeping is done in time order
 * (see engine.ts), so each key's arrivals of the chunk are decided one after another while its
 * tallies, track, limiter and store record are hot, where in time order 10,000 other keys' lines
 * evicted them in between. A key's arrivals stay in their time order (a list through `next`); the
 * keys come in the order of their first arrival in the chunk.
 */
import type { KeyStats } from './key-stats.js';

/** An arrival's flags. */
export const FLOOD = 1;
export const LOGGED_429 = 2;

export class ArrivalChunk {
  readonly t: Float64Array;
  readonly g: Int32Array;
  readonly flags: Uint8Array;
  /** The arrival's number in the whole stream (ties across keys are broken by it: first in time). */
  readonly seq: Float64Array;
  /**
   * Per arrival, `width` numbers, one per fleet: a grouped fleet's sync index the request is decided
   * after, or another fleet's decision (1 admitted), taken in time order.
   */
  readonly ends: Float64Array;
  /** The next arrival of the same key in this chunk (−1: none). */
  readonly next: Int32Array;
  /** The keys with an arrival here, in the order of their first one. */
  readonly keys: (KeyStats | null)[];
  size = 0;
  keyCount = 0;

  constructor(
    readonly capacity: number,
    readonly width: number,
  ) {
    if (!Number.isInteger(capacity) || capacity < 1)
      throw new RangeError(`chunk: must be an integer ≥ 1, got ${capacity}`);
    this.t = new Float64Array(capacity);
    this.g = new Int32Array(capacity);
    this.flags = new Uint8Array(capacity);
    this.seq = new Float64Array(capacity);
    this.ends = new Float64Array(capacity * width);
    this.next = new Int32Array(capacity);
    this.keys = new Array<KeyStats | null>(capacity).fill(null);
  }

  /** Adds an arrival of `st`'s key; returns its slot (its `ends` start at slot · width). */
  add(st: KeyStats, t: number, g: number, flags: number, seq: number): number {
    const s = this.size++;
    this.t[s] = t;
    this.g[s] = g;
    this.flags[s] = flags;
    this.seq[s] = seq;
    this.next[s] = -1;
    if (st.chunkHead === -1) {
      st.chunkHead = s;
      this.keys[this.keyCount++] = st;
    } else this.next[st.chunkTail] = s;
    st.chunkTail = s;
    return s;
  }

  get full(): boolean {
    return this.size === this.capacity;
  }

  /** Empties the chunk, letting go of its keys (a retired key is kept by nothing here). */
  clear(): void {
    for (let j = 0; j < this.keyCount; j++) {
      this.keys[j]!.chunkHead = -1;
      this.keys[j] = null;
    }
    this.size = 0;
    this.keyCount = 0;
  }
}
