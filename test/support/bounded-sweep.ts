import { SweepQueue } from '../../src/store/memory/sweep-queue.js';
import { MemoryStore } from '../../src/store/memory-store.js';

/**
 * A MemoryStore whose lazy sweep fails instead of spinning. The sweep pops every record due at or
 * before `now`, prunes it and pushes it back at its deadline; a record still holding something that
 * expired at `now` (an off-by-one in TimeLog.dropExpired, an unsorted log, an expiry that disagrees
 * with the prune) comes back due at once, and the store call never returns: a synchronous loop that
 * no test timeout can interrupt, so the suite hung instead of failing (issue 32). Here a record pushed
 * back no later than the time it was popped at throws, naming the record, and the test fails.
 *
 * Correct code never does that: a pruned record's deadline is past `now` (its newest admit, every
 * grant and every void still count at `now`), so the bound costs nothing and changes no result.
 */
export function boundedSweep(store = new MemoryStore()): MemoryStore {
  const fields = store as unknown as { sweep?: unknown };
  if (!(fields.sweep instanceof SweepQueue) || fields.sweep.size > 0) {
    throw new Error('boundedSweep: needs a fresh MemoryStore with its sweep schedule in `sweep`');
  }
  fields.sweep = new BoundedQueue();
  return store;
}

class BoundedQueue<T> extends SweepQueue<T> {
  private poppedAt = Number.NaN;
  private popped: T | undefined = undefined;

  override pop(): T | undefined {
    this.poppedAt = this.peekTime();
    this.popped = super.pop();
    return this.popped;
  }

  override push(time: number, item: T): void {
    if (item === this.popped && !(time > this.poppedAt)) {
      const key = (item as { key?: unknown }).key;
      throw new Error(
        `MemoryStore sweep: record ${JSON.stringify(key)} swept at ${this.poppedAt} is due again at ${time}: it would be swept forever`,
      );
    }
    super.push(time, item);
  }
}
