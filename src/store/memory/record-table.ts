/**
 * One policy's records by key (KeyRecords): an open-addressed table of our own in place of a Map. On a
 * log of quiet keys nearly every call is a key with no record, and the sweep deletes nearly every
 * record a window after it was made: a Map's miss walked a bucket chain whose every entry sat cold in
 * memory, and the sweep's delete hashed the record's cold key string and walked the chain again. Here
 * a miss reads the probed hashes, side by side in one typed array, and a delete starts from the hash
 * the record keeps. Linear probing, at most half full; a delete moves the entries after it back
 * (no tombstones), so a lookup stops at the first empty slot.
 */
import { keyHash } from '../../util/key-hash.js';

/** What the table holds: an item that keeps its key and its key's hash (set by the table). */
export interface Hashed {
  readonly key: string;
  hash: number;
}

/** The fewest slots (a power of two). */
const MIN_SLOTS = 16;

export class RecordTable<T extends Hashed> {
  /** Per slot, its key's hash (0: empty); an item sits in the first free slot from hash & mask on. */
  private hashes = new Int32Array(MIN_SLOTS);
  private slots: (T | null)[] = new Array<T | null>(MIN_SLOTS).fill(null);
  private mask = MIN_SLOTS - 1;
  private count = 0;

  get size(): number {
    return this.count;
  }

  get(key: string): T | undefined {
    const h = keyHash(key);
    const hashes = this.hashes;
    const mask = this.mask;
    for (let p = h & mask; ; p = (p + 1) & mask) {
      const x = hashes[p];
      if (x === 0) return undefined;
      if (x === h) {
        const item = this.slots[p]!;
        if (item.key === key) return item;
      }
    }
  }

  /** Whether the table holds `item` itself (by the hash it keeps: its key's characters are not read). */
  holds(item: T): boolean {
    const hashes = this.hashes;
    const slots = this.slots;
    const mask = this.mask;
    for (let p = item.hash & mask; hashes[p] !== 0; p = (p + 1) & mask) if (slots[p] === item) return true;
    return false;
  }

  /** Puts `item` under its key, in place of the item there (if any). */
  set(item: T): void {
    const key = item.key;
    const h = keyHash(key);
    const hashes = this.hashes;
    const mask = this.mask;
    let p = h & mask;
    for (; hashes[p] !== 0; p = (p + 1) & mask) {
      if (hashes[p] === h && this.slots[p]!.key === key) {
        item.hash = h;
        this.slots[p] = item;
        return;
      }
    }
    item.hash = h;
    hashes[p] = h;
    this.slots[p] = item;
    if (2 * ++this.count > mask + 1) this.resize(2 * (mask + 1));
  }

  /** Takes `item` out (nothing if this table does not hold it). */
  remove(item: T): void {
    const hashes = this.hashes;
    const slots = this.slots;
    const mask = this.mask;
    let p = item.hash & mask;
    for (; slots[p] !== item; p = (p + 1) & mask) if (hashes[p] === 0) return;
    // the entries after it, up to an empty slot, moved back where their probe passes p
    for (let q = (p + 1) & mask; hashes[q] !== 0; q = (q + 1) & mask) {
      if (((q - hashes[q]) & mask) >= ((q - p) & mask)) {
        hashes[p] = hashes[q];
        slots[p] = slots[q];
        p = q;
      }
    }
    hashes[p] = 0;
    slots[p] = null;
    this.count--;
    // halved when under an eighth full: the memory follows the records held
    if (8 * this.count < mask + 1 && mask + 1 > MIN_SLOTS) this.resize((mask + 1) >> 1);
  }

  /** The keys held, in no order. */
  keys(): string[] {
    const out: string[] = [];
    for (const item of this.slots) if (item !== null) out.push(item.key);
    return out;
  }

  private resize(n: number): void {
    const old = this.slots;
    const hashes = (this.hashes = new Int32Array(n));
    const slots = (this.slots = new Array<T | null>(n).fill(null));
    const mask = (this.mask = n - 1);
    for (const item of old) {
      if (item === null) continue;
      let p = item.hash & mask;
      while (hashes[p] !== 0) p = (p + 1) & mask;
      hashes[p] = item.hash;
      slots[p] = item;
    }
  }
}
