/**
 * Staging for arrivals a little behind the newest (`--spread uniform` draws about half of a second's
 * lines behind one drawn later in it): one bucket per ms over the `size` ms after `lo`, each a list
 * of its arrivals in read order, kept in columns. Taking one is O(1), where the reorder window's heap
 * was O(log n) over a minute of lines and an object per line; moving `lo` on hands the buckets passed
 * over, in (t, read order), to a queue.
 */
import type { ColumnQueue } from './column-queue.js';

export class MsRing {
  /** Arrivals held here have an integer t in (lo, lo + size]; -Infinity until the first advance. */
  lo = Number.NEGATIVE_INFINITY;
  count = 0;
  // the bucket of lo (t's is lo's plus t − lo), stepped as lo moves: a ms since 1970 is past 2^31,
  // where `t % size` is a floating-point remainder
  private loBucket = 0;
  private readonly mask: number;
  // per bucket: its first and last slot, -1 when empty
  private readonly first: Int32Array;
  private readonly last: Int32Array;
  // per slot: the next slot of its bucket (or of the free list), and the arrival's fields
  private readonly next: number[] = [];
  private readonly seq: number[] = [];
  private readonly key: string[] = [];
  private readonly gateway: number[] = [];
  private readonly status: (number | undefined)[] = [];
  private free = -1;

  /** `size`: a power of two, the ms covered. */
  constructor(private readonly size: number) {
    this.mask = size - 1;
    this.first = new Int32Array(size).fill(-1);
    this.last = new Int32Array(size).fill(-1);
  }

  /** Whether an arrival at t may be held here (an integer ms inside the span). */
  takes(t: number): boolean {
    return t > this.lo && t <= this.lo + this.size && Number.isInteger(t);
  }

  /** Holds one arrival; only when takes(t). Arrivals of one ms keep the order they were added in. */
  add(t: number, seq: number, key: string, gateway: number, status: number | undefined): void {
    let s = this.free;
    if (s >= 0) {
      this.free = this.next[s];
      this.next[s] = -1;
      this.seq[s] = seq;
      this.key[s] = key;
      this.gateway[s] = gateway;
      this.status[s] = status;
    } else {
      s = this.next.length;
      this.next.push(-1);
      this.seq.push(seq);
      this.key.push(key);
      this.gateway.push(gateway);
      this.status.push(status);
    }
    const b = (this.loBucket + (t - this.lo)) & this.mask;
    const l = this.last[b];
    if (l < 0) this.first[b] = s;
    else this.next[l] = s;
    this.last[b] = s;
    this.count++;
  }

  /**
   * Moves lo on to `to` (an integer, or ±Infinity), appending the arrivals with t ≤ to to `into` in
   * (t, the order they were added); at most `size` buckets are looked at, and none once it is empty.
   */
  advance(to: number, into: ColumnQueue): void {
    if (!(to > this.lo)) return;
    if (this.count > 0) {
      const end = Math.min(to, this.lo + this.size);
      let b = this.loBucket;
      for (let m = this.lo + 1; m <= end && this.count > 0; m++) {
        b = (b + 1) & this.mask;
        if (this.first[b] >= 0) this.drain(m, b, into);
      }
    }
    // a jump past the whole ring left it empty, and then any bucket may stand for lo
    if (to - this.lo <= this.size) this.loBucket = (this.loBucket + (to - this.lo)) & this.mask;
    this.lo = to;
  }

  /** Appends bucket b's arrivals (all at t = m) to `into` and frees their slots. */
  private drain(m: number, b: number, into: ColumnQueue): void {
    let s = this.first[b];
    this.first[b] = -1;
    this.last[b] = -1;
    const next = this.next;
    while (s >= 0) {
      into.push(m, this.seq[s], this.key[s], this.gateway[s], this.status[s]);
      this.count--;
      const n = next[s];
      next[s] = this.free;
      this.free = s;
      s = n;
    }
  }
}
