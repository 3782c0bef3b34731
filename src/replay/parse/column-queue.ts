/**
 * A first-in first-out queue of held arrivals kept as columns (time, read order, key, gateway,
 * status), appended at the end and taken at the head: the reorder window holds no object per line for
 * a collector to carry through its generations, and makes the arrival again as it leaves.
 */
import type { Arrival } from '../arrival.js';

/** Taken slots at the front are cut off once there are this many and they are half of the queue. */
const COMPACT_AT = 8192;

export class ColumnQueue {
  // [head, end) is held. The columns never shrink (slots past end are stale): cut down, V8 gave their
  // backing stores back, and they grew again, copy on copy (~150 bytes a line)
  readonly t: number[] = [];
  readonly seq: number[] = [];
  private readonly key: string[] = [];
  private readonly gateway: number[] = [];
  private readonly status: (number | undefined)[] = [];
  head = 0;
  end = 0;

  get length(): number {
    return this.end - this.head;
  }

  /** t of the last appended; only when not empty. */
  get lastT(): number {
    return this.t[this.end - 1];
  }

  push(t: number, seq: number, key: string, gateway: number, status: number | undefined): void {
    // a store at end appends when end is the length (V8 grows the array as push does): small enough
    // to be inlined into the window's push, where two branches were not
    const e = this.end;
    this.t[e] = t;
    this.seq[e] = seq;
    this.key[e] = key;
    this.gateway[e] = gateway;
    this.status[e] = status;
    this.end = e + 1;
  }

  /** Appends the head to `out` as an arrival and takes it off; only when not empty. */
  shiftTo(out: Arrival[]): void {
    const h = this.head;
    out.push({ t: this.t[h], key: this.key[h], gateway: this.gateway[h], status: this.status[h] });
    this.head = h + 1;
  }

  /** Cuts the taken slots off the front once they are most of it (amortized O(1) per arrival). */
  compact(): void {
    const h = this.head;
    const e = this.end;
    if (h === e) {
      if (h === 0) return;
      this.end = 0;
    } else if (h >= COMPACT_AT && 2 * h >= e) {
      // moved down in place, by a loop: splice also made an array of the h it cut, and copyWithin
      // is V8's generic builtin, an element at a time through the property path (1.4 % of a profile)
      const { t, seq, key, gateway, status } = this;
      for (let i = 0, j = h; j < e; i++, j++) {
        t[i] = t[j];
        seq[i] = seq[j];
        key[i] = key[j];
        gateway[i] = gateway[j];
        status[i] = status[j];
      }
      this.end = e - h;
    } else return;
    this.head = 0;
  }
}
