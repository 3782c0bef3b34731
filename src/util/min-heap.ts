/** A binary min-heap of items ordered by a numeric time. Used for lazy expiry sweeps, not hot paths. */
export class MinHeap<T> {
  private times: number[] = [];
  private items: T[] = [];

  get size(): number {
    return this.times.length;
  }

  peekTime(): number {
    return this.times.length === 0 ? Number.POSITIVE_INFINITY : this.times[0];
  }

  push(time: number, item: T): void {
    const times = this.times;
    const items = this.items;
    let i = times.length;
    times.push(time);
    items.push(item);
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (times[p] <= time) break;
      times[i] = times[p];
      items[i] = items[p];
      i = p;
    }
    times[i] = time;
    items[i] = item;
  }

  pop(): T | undefined {
    const times = this.times;
    const items = this.items;
    const n = times.length;
    if (n === 0) return undefined;
    const top = items[0];
    const lastT = times.pop()!;
    const lastI = items.pop()!;
    if (n === 1) {
      // give a drained heap's backing stores back
      this.clear();
      return top;
    }
    if (n > 1) {
      let i = 0;
      const m = n - 1;
      for (;;) {
        const l = 2 * i + 1;
        if (l >= m) break;
        const r = l + 1;
        const c = r < m && times[r] < times[l] ? r : l;
        if (times[c] >= lastT) break;
        times[i] = times[c];
        items[i] = items[c];
        i = c;
      }
      times[i] = lastT;
      items[i] = lastI;
    }
    return top;
  }

  clear(): void {
    this.times = [];
    this.items = [];
  }
}
