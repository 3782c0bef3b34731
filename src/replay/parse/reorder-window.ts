/**
 * Puts one file's arrivals back in time order within a bounded window: an arrival is held until the
 * newest time read is `windowMs` past it, so memory follows the window, never the file. One older
 * than the window allows (behind the edge, `newest - windowMs`) is counted late and placed at the
 * edge: never dropped, and never out of order.
 *
 * A min-heap on (t, read order): src/util/min-heap.ts orders by time alone, and ties must come out in
 * read order (the contract's "ties in read order").
 */
import type { Arrival } from '../arrival.js';

export class ReorderWindow {
  private times: number[] = [];
  private seqs: number[] = [];
  private items: Arrival[] = [];
  private seq = 0;
  private newest = Number.NEGATIVE_INFINITY;
  private newestStamp = Number.NEGATIVE_INFINITY;

  /**
   * `counts` gets the arrivals whose stamp, as written, is behind the newest read (`reordered`: put
   * back in order) and those behind the edge (`late`: moved up to it).
   */
  constructor(
    private readonly windowMs: number,
    private readonly counts: { reordered: number; late: number },
  ) {}

  get size(): number {
    return this.times.length;
  }

  /**
   * Takes one arrival in read order; arrivals now due are appended to `out`, in order. `stamp` is its
   * time as written (before `--spread` placed it in its second): only a stamp behind the newest
   * written counts as reordered, not an arrival the spread drew early in its second.
   */
  push(a: Arrival, stamp: number, out: Arrival[]): void {
    let t = a.t;
    if (t < this.newest - this.windowMs) {
      this.counts.late++;
      a.t = t = this.newest - this.windowMs;
    } else if (stamp < this.newestStamp) {
      this.counts.reordered++;
    }
    if (t > this.newest) this.newest = t;
    if (stamp > this.newestStamp) this.newestStamp = stamp;
    this.insert(t, this.seq++, a);
    const edge = this.newest - this.windowMs;
    while (this.times.length > 0 && this.times[0] <= edge) out.push(this.pop());
  }

  /** Appends every arrival still held, in order (at the end of the file). */
  flush(out: Arrival[]): void {
    while (this.times.length > 0) out.push(this.pop());
  }

  private insert(t: number, s: number, a: Arrival): void {
    const times = this.times;
    const seqs = this.seqs;
    const items = this.items;
    let i = times.length;
    times.push(t);
    seqs.push(s);
    items.push(a);
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (times[p] < t || (times[p] === t && seqs[p] < s)) break;
      times[i] = times[p];
      seqs[i] = seqs[p];
      items[i] = items[p];
      i = p;
    }
    times[i] = t;
    seqs[i] = s;
    items[i] = a;
  }

  private pop(): Arrival {
    const times = this.times;
    const seqs = this.seqs;
    const items = this.items;
    const top = items[0];
    const lastT = times.pop()!;
    const lastS = seqs.pop()!;
    const lastI = items.pop()!;
    const m = times.length;
    if (m === 0) return top;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= m) break;
      const r = l + 1;
      const c = r < m && (times[r] < times[l] || (times[r] === times[l] && seqs[r] < seqs[l])) ? r : l;
      if (times[c] > lastT || (times[c] === lastT && seqs[c] > lastS)) break;
      times[i] = times[c];
      seqs[i] = seqs[c];
      items[i] = items[c];
      i = c;
    }
    times[i] = lastT;
    seqs[i] = lastS;
    items[i] = lastI;
    return top;
  }
}
