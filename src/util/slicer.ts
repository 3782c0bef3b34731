/**
 * Splits a long loop over many keys into slices of about `budgetMs`, so that one sync of a large key
 * table never holds the event loop: requests, timers and replies get a turn between slices.
 *
 *   const slicer = new Slicer();
 *   for (const x of many) { work(x); if (slicer.due()) await slicer.pause(); }
 *
 * `due()` reads the clock only every `every` items, so it costs next to nothing per item. This is
 * scheduling, not decision logic: what the loop decides never depends on where it was sliced.
 */
export class Slicer {
  private since = performance.now();
  private calls = 0;

  constructor(
    private readonly budgetMs = sliceMs,
    private readonly every = 64,
  ) {}

  /** True once the current slice has run for its budget: the caller should `await pause()`. `items`: what this step did (keys). */
  due(items = 1): boolean {
    this.calls += items;
    if (this.calls < this.every) return false;
    this.calls = 0;
    return performance.now() - this.since >= this.budgetMs;
  }

  /** Lets the event loop run (timers, I/O), then starts a new slice. */
  async pause(): Promise<void> {
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.since = performance.now();
  }
}

/** A slice's budget: well under the 50 ms a request may wait on a stalled loop. */
export const SLICE_MS = 5;
let sliceMs = SLICE_MS;

/** Tests: 0 makes every loop pause at each check (every 64 items), so interleavings are exercised. */
export function setSliceBudgetMs(ms: number): void {
  sliceMs = ms;
}
