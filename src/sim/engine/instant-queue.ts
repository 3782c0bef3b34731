/**
 * Instants in ascending order, equal ones in the order they came, each with a tag (the page-load
 * queue: arrival instants and their gateways). Taken from the front, added mostly at the back.
 */
export class InstantQueue {
  private time = new Float64Array(16);
  private tag = new Int32Array(16);
  private head = 0;
  length = 0;

  /** The earliest instant (Infinity when empty). */
  first(): number {
    return this.length > 0 ? this.time[this.head] : Number.POSITIVE_INFINITY;
  }

  firstTag(): number {
    return this.tag[this.head];
  }

  shift(): void {
    this.head++;
    if (--this.length === 0) this.head = 0;
  }

  /** Adds t after every instant at or before it. */
  insert(t: number, tag: number): void {
    if (this.head + this.length === this.time.length) this.makeRoom();
    const time = this.time;
    const tags = this.tag;
    let j = this.head + this.length;
    while (j > this.head && time[j - 1] > t) {
      time[j] = time[j - 1];
      tags[j] = tags[j - 1];
      j--;
    }
    time[j] = t;
    tags[j] = tag;
    this.length++;
  }

  private makeRoom(): void {
    const from = this.head;
    const to = from + this.length;
    if (this.length < this.time.length / 2) {
      this.time.copyWithin(0, from, to);
      this.tag.copyWithin(0, from, to);
    } else {
      const time = new Float64Array(2 * this.time.length);
      const tag = new Int32Array(2 * this.time.length);
      time.set(this.time.subarray(from, to));
      tag.set(this.tag.subarray(from, to));
      this.time = time;
      this.tag = tag;
    }
    this.head = 0;
  }
}
