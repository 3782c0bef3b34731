/**
 * Puts one file's arrivals back in time order within a bounded window: an arrival is held until the
 * newest time read is `windowMs` past it, so memory follows the window, never the file. One older
 * than the window allows (behind the edge, `newest - windowMs`) is counted late and placed at the
 * edge: never dropped, and never out of order.
 *
 * Most lines come in order: those (t not behind the newest held in order) wait in a queue of columns
 * (column-queue.ts): the window holds no object per line for a collector to carry through its
 * generations, and the arrival is made again when it leaves. Those a little behind (up to ~2 s, as
 * `--spread uniform` draws half of a second's lines) wait in a ring of per-ms buckets (ms-ring.ts),
 * O(1) each, and go on, in (t, read order), to a second queue of columns as the newest moves past
 * them. The few further behind wait in a min-heap on (t, read order) (src/util/min-heap.ts orders by
 * time alone, and ties must come out in read order: the contract's "ties in read order"). The next
 * due is the earliest of the two queues' heads and the heap's top; the ring never holds one due.
 * Each part gives its arrivals in (t, read order) (`passed` gets ms at or below the ring's lo, and the
 * ring holds only ms above it), so what leaves, and when, is what one heap of them all gave
 * (test/replay/reorder-window.property.test.ts checks it against a plain model).
 */
import type { Arrival } from '../arrival.js';
import { ColumnQueue } from './column-queue.js';
import { MsRing } from './ms-ring.js';

/** The ms the ring covers: a spread line is behind the newest by under 1 s, a slow one's by more. */
const RING_MS = 2048;

export class ReorderWindow {
  // arrivals in read order and ascending t
  private readonly queue = new ColumnQueue();
  // arrivals a little behind, until the newest moves on; then in (t, read order) in `passed`
  private readonly ring = new MsRing(RING_MS);
  private readonly passed = new ColumnQueue();
  // the rest: the heap
  private times: number[] = [];
  private seqs: number[] = [];
  private items: Arrival[] = [];
  private seq = 0;
  private newest = Number.NEGATIVE_INFINITY;
  private newestStamp = Number.NEGATIVE_INFINITY;
  // the ring's lo trails the newest by this much, never more than the window: what it holds is not due
  private readonly ringSpan: number;

  /**
   * `counts` gets the arrivals whose stamp, as written, is behind the newest read (`reordered`: put
   * back in order) and those behind the edge (`late`: moved up to it).
   */
  constructor(
    private readonly windowMs: number,
    private readonly counts: { reordered: number; late: number },
  ) {
    this.ringSpan = Math.min(RING_MS, windowMs);
  }

  get size(): number {
    return this.queue.length + this.ring.count + this.passed.length + this.times.length;
  }

  /**
   * Takes one arrival in read order; arrivals now due are appended to `out`, in order. `stamp` is its
   * time as written (before `--spread` placed it in its second): only a stamp behind the newest
   * written counts as reordered, not an arrival the spread drew early in its second.
   */
  push(a: Arrival, stamp: number, out: Arrival[]): void {
    this.pushFields(a.t, a.key, a.gateway, a.status, stamp, out);
  }

  /**
   * push, the arrival given by its fields: the reader's way, so that one in order (nearly all) is
   * made once, as it leaves, not also as it comes in (an object per line for the collector).
   */
  pushFields(
    at: number,
    key: string,
    gateway: number,
    status: number | undefined,
    stamp: number,
    out: Arrival[],
  ): void {
    let t = at;
    if (t < this.newest - this.windowMs) {
      this.counts.late++;
      t = this.newest - this.windowMs;
    } else if (stamp < this.newestStamp) {
      this.counts.reordered++;
    }
    const ring = this.ring;
    if (t > this.newest) {
      this.newest = t;
      // the ring's lo kept ≥ the edge while it holds any (integers above lo: never one due); an empty
      // ring's lo is moved only when a line may go in, not at every line in order
      if (ring.count > 0) ring.advance(Math.floor(t - this.ringSpan), this.passed);
    }
    if (stamp > this.newestStamp) this.newestStamp = stamp;
    const q = this.queue;
    if (q.end === q.head || t >= q.lastT) q.push(t, this.seq++, key, gateway, status);
    else this.holdBehind(t, key, gateway, status);
    this.emitUpTo(this.newest - this.windowMs, out);
  }

  /** Holds an arrival behind the queue's last: in the ring if it is near, else in the heap. */
  private holdBehind(t: number, key: string, gateway: number, status: number | undefined): void {
    const ring = this.ring;
    ring.advance(Math.floor(this.newest - this.ringSpan), this.passed);
    if (ring.takes(t)) ring.add(t, this.seq++, key, gateway, status);
    else this.insert(t, this.seq++, { t, key, gateway, status });
  }

  /** Appends every arrival still held, in order (at the end of the file). */
  flush(out: Arrival[]): void {
    this.ring.advance(Number.POSITIVE_INFINITY, this.passed);
    this.emitUpTo(Number.POSITIVE_INFINITY, out);
  }

  /** Appends, in order, the arrivals held with t ≤ edge (none is in the ring). */
  private emitUpTo(edge: number, out: Arrival[]): void {
    const q = this.queue;
    const p = this.passed;
    const times = this.times;
    for (;;) {
      // the earliest on (t, read order) of the three: 1 the queue, 2 passed, 3 the heap
      let from = 0;
      let t = 0;
      let s = 0;
      if (q.head < q.end) {
        from = 1;
        t = q.t[q.head];
        s = q.seq[q.head];
      }
      if (p.head < p.end) {
        const pt = p.t[p.head];
        if (from === 0 || pt < t || (pt === t && p.seq[p.head] < s)) {
          from = 2;
          t = pt;
          s = p.seq[p.head];
        }
      }
      if (times.length > 0 && (from === 0 || times[0] < t || (times[0] === t && this.seqs[0] < s))) {
        from = 3;
        t = times[0];
      }
      if (from === 0 || !(t <= edge)) break;
      if (from === 1) q.shiftTo(out);
      else if (from === 2) p.shiftTo(out);
      else out.push(this.pop());
    }
    q.compact();
    p.compact();
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
      this.put(i, times[p], seqs[p], items[p]);
      i = p;
    }
    this.put(i, t, s, a);
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
      this.put(i, times[c], seqs[c], items[c]);
      i = c;
    }
    this.put(i, lastT, lastS, lastI);
    return top;
  }

  /** Sets heap slot i: its time, sequence and arrival, kept in three parallel arrays. */
  private put(i: number, t: number, s: number, a: Arrival): void {
    this.times[i] = t;
    this.seqs[i] = s;
    this.items[i] = a;
  }
}
