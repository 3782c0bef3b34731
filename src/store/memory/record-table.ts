/**
 * One policy's records by key (KeyRecords): an open-addressed table of our own in place of a Map. On a
 * log of quiet keys nearly every call is a key with no record, and the sweep deletes nearly every
 * record a window after it was made: a Map's miss walked a bucket chain whose every entry sat cold in
 * memory, and the sweep's delete hashed the record's cold key string and walked the chain again. Here
 * a miss reads the probed hashes, side by side in one typed array, and a delete starts from the hash
 * the record keeps. Linear probing, at most half full; a delete moves the entries after it back
 * (no tombstones), so a lookup stops at the first empty slot. A walk longer than MAX_WALK (keys chosen
 * to collide) turns the table into a Map for good: the work per key stays bounded whatever the keys.
 */
import { keyHash, MAX_WALK } from '../../util/key-hash.js';

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
  /** The items by key once a walk ran past MAX_WALK (then the slots are let go). */
  private map: Map<string, T> | null = null;

  get size(): number {
    return this.map === null ? this.count : this.map.size;
  }

  /** Whether the table has become a Map (keys chosen to collide). */
  get isMap(): boolean {
    return this.map !== null;
  }

  get(key: string): T | undefined {
    if (this.map !== null) return this.map.get(key);
    const h = keyHash(key);
    const hashes = this.hashes;
    const mask = this.mask;
    for (let p = h & mask, walk = 0; ; p = (p + 1) & mask) {
      const x = hashes[p];
      if (x === 0) return undefined;
      if (x === h) {
        const item = this.slots[p]!;
        if (item.key === key) return item;
      }
      if (++walk > MAX_WALK) return this.toMap().get(key);
    }
  }

  /** Whether the table holds `item` itself (by the hash it keeps: its key's characters are not read). */
  holds(item: T): boolean {
    if (this.map !== null) return this.map.get(item.key) === item;
    const hashes = this.hashes;
    const slots = this.slots;
    const mask = this.mask;
    for (let p = item.hash & mask, walk = 0; hashes[p] !== 0; p = (p + 1) & mask) {
      if (slots[p] === item) return true;
      if (++walk > MAX_WALK) return this.toMap().get(item.key) === item;
    }
    return false;
  }

  /** Puts `item` under its key, in place of the item there (if any). */
  set(item: T): void {
    const key = item.key;
    const h = keyHash(key);
    item.hash = h;
    if (this.map !== null) {
      this.map.set(key, item);
      return;
    }
    const hashes = this.hashes;
    const mask = this.mask;
    let p = h & mask;
    for (let walk = 0; hashes[p] !== 0; p = (p + 1) & mask) {
      if (hashes[p] === h && this.slots[p]!.key === key) {
        this.slots[p] = item;
        return;
      }
      if (++walk > MAX_WALK) {
        this.toMap().set(key, item);
        return;
      }
    }
    hashes[p] = h;
    this.slots[p] = item;
    if (2 * ++this.count > mask + 1) this.resize(2 * (mask + 1));
  }

  /** Takes `item` out (nothing if this table does not hold it). */
  remove(item: T): void {
    if (this.map !== null) {
      if (this.map.get(item.key) === item) this.map.delete(item.key);
      return;
    }
    const hashes = this.hashes;
    const slots = this.slots;
    const mask = this.mask;
    let p = item.hash & mask;
    for (let walk = 0; slots[p] !== item; p = (p + 1) & mask) {
      if (hashes[p] === 0) return;
      if (++walk > MAX_WALK) {
        this.toMap();
        this.remove(item);
        return;
      }
    }
    // the entries after it, up to an empty slot, moved back where their probe passes p
    let walk = 0;
    for (let q = (p + 1) & mask; hashes[q] !== 0; q = (q + 1) & mask) {
      if (((q - hashes[q]) & mask) >= ((q - p) & mask)) {
        hashes[p] = hashes[q];
        slots[p] = slots[q];
        p = q;
      }
      // every item is still in some slot here (a moved one in two): the Map gets each once
      if (++walk > MAX_WALK) {
        this.toMap();
        this.remove(item);
        return;
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
    if (this.map !== null) return [...this.map.keys()];
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
      for (let walk = 0; hashes[p] !== 0; p = (p + 1) & mask)
        if (++walk > MAX_WALK) {
          this.toMap(old);
          return;
        }
      hashes[p] = item.hash;
      slots[p] = item;
    }
  }

  /** The table as a Map from now on (`from`: the slots to take the items from, if not the table's). */
  private toMap(from: readonly (T | null)[] = this.slots): Map<string, T> {
    const map = new Map<string, T>();
    for (const item of from) if (item !== null) map.set(item.key, item);
    this.map = map;
    this.hashes = new Int32Array(0);
    this.slots = [];
    this.count = 0;
    return map;
  }
}
