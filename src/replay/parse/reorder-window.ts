/**
 * Puts one file's arrivals back in time order within a bounded window: an arrival is held until the
 * newest time read is `windowMs` past it, so memory follows the window, never the file. One older
 * than the window allows (behind the edge, `newest - windowMs`) is counted late and placed at the
 * edge: never dropped, and never out of order.
 *
 * Most lines come in order: those (t not behind the newest held in order) wait in a queue of columns,
 * appended and taken at its ends, and the arrival is made again when it leaves: the window holds no
 * object per line for a collector to carry through its generations. The few out of order wait in a
 * min-heap on (t, read order) (src/util/min-heap.ts orders by time alone, and ties must come out in
 * read order: the contract's "ties in read order"); the next due is the earlier of the two heads.
 */
import type { Arrival } from '../arrival.js';

/** Taken slots at the queue's front are cut off once there are this many and they are half of it. */
const COMPACT_AT = 8192;

export class ReorderWindow {
  // the queue, in read order and ascending t: [qHead, qEnd). The columns never shrink (slots past
  // qEnd are stale): cut down, V8 gave their backing stores back, and they grew again, copy on copy
  // (~150 bytes a line)
  private qT: number[] = [];
  private qSeq: number[] = [];
  private qKey: string[] = [];
  private qGateway: number[] = [];
  private qStatus: (number | undefined)[] = [];
  private qHead = 0;
  private qEnd = 0;
  // the heap
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
    return this.qEnd - this.qHead + this.times.length;
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
    if (t > this.newest) this.newest = t;
    if (stamp > this.newestStamp) this.newestStamp = stamp;
    const q = this.qT;
    const e = this.qEnd;
    if (e === this.qHead || t >= q[e - 1]) {
      if (e === q.length) {
        q.push(t);
        this.qSeq.push(this.seq++);
        this.qKey.push(key);
        this.qGateway.push(gateway);
        this.qStatus.push(status);
      } else {
        q[e] = t;
        this.qSeq[e] = this.seq++;
        this.qKey[e] = key;
        this.qGateway[e] = gateway;
        this.qStatus[e] = status;
      }
      this.qEnd = e + 1;
    } else this.insert(t, this.seq++, { t, key, gateway, status });
    this.emitUpTo(this.newest - this.windowMs, out);
  }

  /** Appends every arrival still held, in order (at the end of the file). */
  flush(out: Arrival[]): void {
    this.emitUpTo(Number.POSITIVE_INFINITY, out);
  }

  /** Appends, in order, the arrivals held with t ≤ edge. */
  private emitUpTo(edge: number, out: Arrival[]): void {
    const q = this.qT;
    const times = this.times;
    for (;;) {
      const h = this.qHead;
      const fromQueue =
        h < this.qEnd &&
        (times.length === 0 || q[h] < times[0] || (q[h] === times[0] && this.qSeq[h] < this.seqs[0]));
      if (fromQueue) {
        if (!(q[h] <= edge)) break;
        out.push({ t: q[h], key: this.qKey[h], gateway: this.qGateway[h], status: this.qStatus[h] });
        this.qHead = h + 1;
      } else {
        if (!(times.length > 0 && times[0] <= edge)) break;
        out.push(this.pop());
      }
    }
    this.compact();
  }

  /** Cuts the taken slots off the queue's front once they are most of it (amortized O(1) per arrival). */
  private compact(): void {
    const h = this.qHead;
    const e = this.qEnd;
    if (h === e) {
      if (h === 0) return;
      this.qEnd = 0;
    } else if (h >= COMPACT_AT && 2 * h >= e) {
      // moved down in place, by a loop: splice also made an array of the h it cut, and copyWithin
      // is V8's generic builtin, an element at a time through the property path (1.4 % of a profile)
      const { qT, qSeq, qKey, qGateway, qStatus } = this;
      for (let i = 0, j = h; j < e; i++, j++) {
        qT[i] = qT[j];
        qSeq[i] = qSeq[j];
        qKey[i] = qKey[j];
        qGateway[i] = qGateway[j];
        qStatus[i] = qStatus[j];
      }
      this.qEnd = e - h;
    } else return;
    this.qHead = 0;
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
