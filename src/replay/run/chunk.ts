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

/**
 * An arrival's fields in `data`, before its fleets' numbers: t, seq, g · 4 + flags, next, and the
 * instant of the key's next arrival on the same gateway here (+∞: none; `lookAhead`).
 */
export const FIELDS = 5;

export class ArrivalChunk {
  /**
   * Per arrival, `stride` numbers side by side (a key's arrivals are read out of time order, so each
   * is one or two cache lines, not one in each of six arrays): t; its number in the whole stream
   * (ties across keys are broken by it: first in time); g · 4 + flags; the slot of the key's next
   * arrival here (−1: none); then one number per fleet (design 1 on): a grouped fleet's sync index the
   * request is decided after, or another fleet's decision (1 admitted), taken in time order.
   */
  data: Float64Array;
  readonly stride: number;
  /** The keys with an arrival here, in the order of their first one. */
  readonly keys: (KeyStats | null)[];
  size = 0;
  keyCount = 0;
  /** A checked fleet's decisions, by arrival (src/replay/run/checked.ts). */
  readonly verdicts: Uint8Array;
  /** Each arrival's key (`keysInOrder`), made when first asked for. */
  private byArrival: (KeyStats | null)[] | null = null;
  /** `lookAhead`'s: the key's gateways with an arrival here, each one's first, and how many. */
  readonly firstG: Int32Array;
  readonly firstT: Float64Array;
  firstN = 0;
  /** `lookAhead`'s scratch: per gateway, its latest arrival of the key so far (−1: none). */
  private readonly lastOn: Int32Array;
  /** Per arrival, its key's place in `keys` (`gather`). */
  private readonly keyOf: Int32Array;
  /** `gather`'s: per key, its next slot there, and the end of its slots; the rows moved, then swapped in. */
  private readonly cursor: Int32Array;
  private readonly ends: Int32Array;
  private spare: Float64Array | null = null;

  constructor(
    readonly capacity: number,
    /** The designs, the central log's slot 0 included (it has no number here). */
    designs: number,
    /** The gateways (K). */
    gateways = 1,
  ) {
    if (!Number.isInteger(capacity) || capacity < 1)
      throw new RangeError(`chunk: must be an integer ≥ 1, got ${capacity}`);
    this.stride = FIELDS + designs - 1;
    this.data = new Float64Array(capacity * this.stride);
    this.keys = new Array<KeyStats | null>(capacity).fill(null);
    this.verdicts = new Uint8Array(capacity);
    this.firstG = new Int32Array(gateways);
    this.firstT = new Float64Array(gateways);
    this.lastOn = new Int32Array(gateways).fill(-1);
    this.keyOf = new Int32Array(capacity);
    this.cursor = new Int32Array(capacity);
    this.ends = new Int32Array(capacity);
  }

  /**
   * Moves the arrivals into key order (the keys in the order of `keys`, each one's in time order):
   * each key's arrivals then sit side by side, `next` the slot after (−1 after its last), and the
   * walks of a key's arrivals read on through memory. Linked across the whole chunk, each arrival's
   * row was a wait for memory (the chunk is megabytes), where one pass in time order moves them all
   * with reads in order and writes that do not wait. Slots are no longer in time order after it
   * (`keysInOrder`). Left as it is under two arrivals a key (the links still hold).
   */
  gather(): void {
    const n = this.size;
    const m = this.keyCount;
    // under two arrivals a key: most keys' one row is read once, and their order is time order; the
    // rest are walked through their links (the quiet-keys log, where this was 1 % in vain)
    if (2 * m > n) return;
    const w = this.stride;
    const src = this.data;
    const dst = (this.spare ??= new Float64Array(src.length));
    const { keys, keyOf, cursor, ends } = this;
    let o = 0;
    for (let j = 0; j < m; j++) {
      const st = keys[j]!;
      st.chunkHead = o;
      cursor[j] = o;
      o += st.chunkCount;
      ends[j] = o;
    }
    for (let s = 0, at = 0; s < n; s++, at += w) {
      const j = keyOf[s];
      const r = cursor[j]++;
      const to = r * w;
      for (let k = 0; k < w; k++) dst[to + k] = src[at + k];
      dst[to + 3] = r + 1 < ends[j] ? r + 1 : -1;
    }
    this.spare = src;
    this.data = dst;
  }

  /**
   * The look-ahead of st's key here (KeySyncs.lookAhead): each arrival's field 4 set to the instant
   * of the key's next arrival on the same gateway (+∞: none here), and firstG/firstT/firstN to the
   * gateways with one, each with its first. One walk of the key's arrivals, none of K's size.
   */
  lookAhead(st: KeyStats): void {
    const d = this.data;
    const w = this.stride;
    const last = this.lastOn;
    let n = 0;
    for (let s = st.chunkHead; s !== -1; s = d[s * w + 3]) {
      const at = s * w;
      const g = d[at + 2] >> 2;
      const p = last[g];
      if (p === -1) {
        this.firstG[n] = g;
        this.firstT[n++] = d[at];
      } else d[p * w + 4] = d[at];
      last[g] = s;
    }
    for (let j = 0; j < n; j++) {
      const g = this.firstG[j];
      d[last[g] * w + 4] = Number.POSITIVE_INFINITY;
      last[g] = -1;
    }
    this.firstN = n;
  }

  /** Each arrival's key, in time order (valid until the chunk is gathered, cleared or added to). */
  keysInOrder(): readonly (KeyStats | null)[] {
    const out = (this.byArrival ??= new Array<KeyStats | null>(this.capacity).fill(null));
    for (let j = 0; j < this.keyCount; j++) {
      const st = this.keys[j]!;
      for (let s = st.chunkHead; s !== -1; s = this.data[s * this.stride + 3]) out[s] = st;
    }
    return out;
  }

  /**
   * Adds an arrival of `st`'s key; returns the offset `base` such that design i's number (i ≥ 1) is
   * data[base + i].
   */
  add(st: KeyStats, t: number, g: number, flags: number, seq: number): number {
    const s = this.size++;
    const d = this.data;
    const at = s * this.stride;
    d[at] = t;
    d[at + 1] = seq;
    d[at + 2] = g * 4 + flags;
    d[at + 3] = -1;
    d[at + 4] = Number.POSITIVE_INFINITY;
    if (st.chunkHead === -1) {
      st.chunkHead = s;
      st.chunkIndex = this.keyCount;
      st.chunkCount = 1;
      this.keys[this.keyCount++] = st;
    } else {
      d[st.chunkTail * this.stride + 3] = s;
      st.chunkCount++;
    }
    st.chunkTail = s;
    this.keyOf[s] = st.chunkIndex;
    return at + FIELDS - 1;
  }

  get full(): boolean {
    return this.size === this.capacity;
  }

  /** Empties the chunk, letting go of its keys (a retired key is kept by nothing here). */
  clear(): void {
    this.byArrival?.fill(null, 0, this.size);
    for (let j = 0; j < this.keyCount; j++) {
      this.keys[j]!.chunkHead = -1;
      this.keys[j] = null;
    }
    this.size = 0;
    this.keyCount = 0;
  }
}
