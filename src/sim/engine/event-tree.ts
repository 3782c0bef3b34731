/**
 * A tournament tree over the gateways' next event times: O(log K) update, O(1) minimum.
 * Leaves: one per gateway, then the page-load stream and the store watch when a run has them.
 */
export class EventTree {
  readonly size: number;
  /** Per node (leaves at size + i): the earliest time below it and its leaf (the left one on a tie). */
  private readonly time: Float64Array;
  private readonly win: Int32Array;

  constructor(leaves: number) {
    let size = 1;
    while (size < leaves) size *= 2;
    this.size = size;
    this.time = new Float64Array(2 * size).fill(Number.POSITIVE_INFINITY);
    this.win = new Int32Array(2 * size);
    for (let i = 0; i < size; i++) this.win[size + i] = i;
    for (let n = size - 1; n >= 1; n--) this.win[n] = this.win[2 * n];
  }

  set(leaf: number, t: number): void {
    const n = leaf + this.size;
    // the tree is a function of the leaves' times: the same time changes nothing
    if (this.time[n] === t) return;
    this.time[n] = t;
    this.up(n);
  }

  /** Replays the path from leaf node n (its time just set) to the root. */
  private up(n: number): void {
    const time = this.time;
    const win = this.win;
    // the new winner of each node on the path is the path's winner so far or the sibling's; the
    // time is read back from the array (the same double) so that the JIT keeps it unboxed
    let bestT = time[n];
    let best = win[n];
    while (n > 1) {
      const sib = n ^ 1;
      const st = time[sib];
      if (n & 1 ? !(bestT < st) : st < bestT) {
        bestT = st;
        best = win[sib];
      }
      n >>= 1;
      time[n] = bestT;
      win[n] = best;
    }
  }

  minLeaf(): number {
    return this.win[1];
  }

  minTime(): number {
    return this.time[1];
  }
}
