/**
 * The engine's live keys by name (ReplayRun): an open-addressed table of our own in place of a Map.
 * On a log of quiet keys nearly every other line is a key not live, and a Map's miss walked a bucket
 * chain whose every entry's key string sat cold in memory (a wait each); here a miss reads the probed
 * hashes, side by side in one typed array, and a string is compared only where a hash matches. The
 * keys are also listed in the order they entered, for the sweep and the report, which read them in a
 * Map's order (entry order: the figures depend on it through the leaderboard's ties). A walk longer
 * than MAX_WALK (a log's keys chosen to collide) turns the table into a Map for good.
 */
import { keyHash, MAX_WALK } from '../../util/key-hash.js';
import type { KeyStats } from './key-stats.js';

/** The fewest slots (a power of two). */
const MIN_SLOTS = 1024;

export class LiveKeys {
  /** Per slot, its key's hash (0: empty); a key sits at the first free slot from hash & mask on. */
  private hashes = new Int32Array(MIN_SLOTS);
  private slots: (KeyStats | null)[] = new Array<KeyStats | null>(MIN_SLOTS).fill(null);
  private mask = MIN_SLOTS - 1;
  /** The live keys in the order they entered. */
  private list: KeyStats[] = [];
  /** `get`'s last miss: the hash and the free slot the key goes to (`add`). */
  private missHash = 0;
  private missAt = -1;
  /** The live keys by name once a walk ran past MAX_WALK (then the slots are let go). */
  private map: Map<string, KeyStats> | null = null;

  get size(): number {
    return this.list.length;
  }

  /** Whether the table has become a Map (keys chosen to collide). */
  get isMap(): boolean {
    return this.map !== null;
  }

  /** The live key named `key`, or undefined (then `add` may enter it, with no other call between). */
  get(key: string): KeyStats | undefined {
    if (this.map !== null) return this.missInMap(this.map.get(key));
    const h = keyHash(key);
    const hashes = this.hashes;
    const mask = this.mask;
    let p = h & mask;
    for (let walk = 0; ; ) {
      const x = hashes[p];
      if (x === 0) break;
      if (x === h) {
        const st = this.slots[p]!;
        if (st.key === key) return st;
      }
      p = (p + 1) & mask;
      if (++walk > MAX_WALK) return this.missInMap(this.toMap().get(key));
    }
    this.missHash = h;
    this.missAt = p;
    return undefined;
  }

  /** Enters st, whose key `get` just missed. */
  add(st: KeyStats): void {
    const p = this.missAt;
    if (p < 0) throw new Error('LiveKeys.add: no miss to add at (get the key first)');
    this.missAt = -1;
    if (this.map !== null) {
      this.map.set(st.key, st);
      this.list.push(st);
      return;
    }
    st.hash = this.missHash;
    this.hashes[p] = st.hash;
    this.slots[p] = st;
    this.list.push(st);
    // at most half full: a miss then probes ~2.5 slots
    if (2 * this.list.length > this.mask + 1) this.rebuild(2 * (this.mask + 1));
  }

  /**
   * Retires every key `done` says so of, in entry order (`retire` called on each, after it is out);
   * the others keep their order.
   */
  sweep(done: (st: KeyStats) => boolean, retire: (st: KeyStats) => void): void {
    const list = this.list;
    let w = 0;
    for (let i = 0; i < list.length; i++) {
      const st = list[i];
      if (done(st)) retire(st);
      else list[w++] = st;
    }
    if (w === list.length) return;
    list.length = w;
    this.missAt = -1;
    if (this.map !== null) {
      const map = (this.map = new Map());
      for (const st of list) map.set(st.key, st);
      return;
    }
    // the table made anew from the keys kept, smaller when they fill under an eighth of it
    let n = this.mask + 1;
    while (n > MIN_SLOTS && 8 * w < n) n >>= 1;
    this.rebuild(n);
  }

  /** The live keys in entry order. */
  values(): readonly KeyStats[] {
    return this.list;
  }

  private rebuild(n: number): void {
    if (n === this.mask + 1) {
      this.hashes.fill(0);
      this.slots.fill(null);
    } else {
      this.hashes = new Int32Array(n);
      this.slots = new Array<KeyStats | null>(n).fill(null);
      this.mask = n - 1;
    }
    const hashes = this.hashes;
    const mask = this.mask;
    for (const st of this.list) {
      let p = st.hash & mask;
      for (let walk = 0; hashes[p] !== 0; p = (p + 1) & mask)
        if (++walk > MAX_WALK) {
          this.toMap();
          return;
        }
      hashes[p] = st.hash;
      this.slots[p] = st;
    }
  }

  /** A lookup's answer in Map form: a miss marked for `add`. */
  private missInMap(st: KeyStats | undefined): KeyStats | undefined {
    if (st === undefined) this.missAt = 0;
    return st;
  }

  /** The table as a Map from now on, made from the entry list (which holds every live key). */
  private toMap(): Map<string, KeyStats> {
    const map = new Map<string, KeyStats>();
    for (const st of this.list) map.set(st.key, st);
    this.map = map;
    this.hashes = new Int32Array(0);
    this.slots = [];
    return map;
  }
}
