// The memory store's sweep schedule: records by the instant each may next have emptied, popped in
// time order. Most are pushed in time order (a new record's deadline is its first call's instant
// plus the window, and calls mostly come in time order), so those go to a plain queue, O(1) each way;
// only the rest (a record the sweep finds not yet empty, or a call behind the newest deadline) go to
// a heap. On a log of quiet keys, where nearly every line makes a record, a heap of every record
// took ~1/8 of a central-log replay (a pop walks ~17 levels of cold memory at 120,000 records).
import { MinHeap } from '../../util/min-heap.js';

/** Items by time: pops the earliest (of equal times, either first: the sweep's order is free). */
export class SweepQueue<T> {
  /** The in-order pushes: times ascending from `head`. */
  private times: number[] = [];
  private items: (T | undefined)[] = [];
  private head = 0;
  /** The pushes behind the queue's newest. */
  private readonly heap = new MinHeap<T>();

  get size(): number {
    return this.times.length - this.head + this.heap.size;
  }

  /** The earliest time held (+∞: none). */
  peekTime(): number {
    const h = this.heap.peekTime();
    return this.head < this.times.length && this.times[this.head] <= h ? this.times[this.head] : h;
  }

  push(time: number, item: T): void {
    const times = this.times;
    const n = times.length;
    if (n === this.head || time >= times[n - 1]) {
      times.push(time);
      this.items.push(item);
    } else this.heap.push(time, item);
  }

  /** The earliest item (undefined: none). */
  pop(): T | undefined {
    const i = this.head;
    const times = this.times;
    if (i < times.length && times[i] <= this.heap.peekTime()) {
      const item = this.items[i];
      // let go of the item now: the queue's slot outlives it until the next compaction
      this.items[i] = undefined;
      this.head = i + 1;
      if (this.head === times.length) {
        this.times.length = 0;
        this.items.length = 0;
        this.head = 0;
      } else if (this.head >= 4096 && 2 * this.head >= times.length) this.compact();
      return item;
    }
    return this.heap.pop();
  }

  /** Moves the queue's live part down to index 0 (amortized: at most as many moves as pops). */
  private compact(): void {
    const times = this.times;
    const items = this.items;
    const h = this.head;
    const n = times.length - h;
    // by a loop: copyWithin on a JS array is V8's generic builtin
    for (let j = 0; j < n; j++) {
      times[j] = times[h + j];
      items[j] = items[h + j];
    }
    times.length = n;
    items.length = n;
    this.head = 0;
  }
}
