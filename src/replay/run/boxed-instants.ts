/**
 * The replay's sync instants boxed once per sync index (ReadSteps' idle reads, KeySyncs.step).
 */
import type { SyncClock } from './key-track.js';

/** The entries, a power of 2: indices 1,024 apart share one (boxed again, never a wrong instant). */
const INSTANTS = 1024;

/**
 * clock.syncAt(i), as a number already boxed: an idle read and a full sync (KeySyncs.step) hand their
 * instant to calls the optimiser does not inline (the store's countOf and syncNext, parts of idleSync),
 * and a double made there was boxed anew for each, a heap number or more per sync (~200 B a line at
 * K = 4 random). An index is read by every key its gateway holds, so one box per index serves them all.
 */
export class BoxedInstants {
  /** The index each entry holds (−1: none). */
  private readonly idx = new Float64Array(INSTANTS).fill(-1);
  // tagged elements (made with null): a double stored here stays the heap number it is read as
  private readonly boxes: (number | null)[] = new Array<number | null>(INSTANTS).fill(null);

  constructor(private readonly clock: SyncClock) {}

  /** clock.syncAt(i), i ≥ 0 a sync index. */
  at(i: number): number {
    const j = i & (INSTANTS - 1);
    if (this.idx[j] !== i) {
      this.idx[j] = i;
      this.boxes[j] = this.clock.syncAt(i);
    }
    return this.boxes[j] as number;
  }
}
