/**
 * The retired keys worth reporting, in bounded memory. A log keyed by client address may hold millions
 * of keys; only those a design treated differently from the central log (an honest rejection, an admit
 * beyond L) can be among the most affected, and of those the board keeps the `capacity` highest
 * (pruned to half when full). A key that comes back merges with its kept summary; one pruned earlier
 * restarts from zero — the board's figures are exact for every key that never fell out of it.
 */
import type { KeySummary } from './key-stats.js';

/** A key's rank on the board: the most it was affected under any design. */
function score(s: KeySummary): number {
  let m = 0;
  for (let i = 0; i < s.honestRejected.length; i++)
    m = Math.max(m, s.honestRejected[i], s.overAdmitted[i] * 1.000001);
  return m;
}

export class Leaderboard {
  private readonly kept = new Map<string, KeySummary>();
  /** Keys dropped when the board was pruned (the report says so when it is not 0). */
  pruned = 0;

  constructor(private readonly capacity: number) {
    if (!(capacity >= 2)) throw new RangeError(`leaderboard capacity must be ≥ 2, got ${capacity}`);
  }

  /** A retiring key (its whole history: the caller merged what `take` gave back): kept if it was affected at all. */
  offer(s: KeySummary): void {
    if (score(s) === 0) return;
    this.kept.set(s.key, s);
    if (this.kept.size > this.capacity) this.prune();
  }

  /** A key back in the log: its kept summary, taken off the board to be merged on its next retirement. */
  take(key: string): KeySummary | undefined {
    const s = this.kept.get(key);
    if (s !== undefined) this.kept.delete(key);
    return s;
  }

  private prune(): void {
    const all = [...this.kept.values()].sort((a, b) => score(b) - score(a));
    const keep = all.slice(0, Math.floor(this.capacity / 2));
    this.pruned += all.length - keep.length;
    this.kept.clear();
    for (const s of keep) this.kept.set(s.key, s);
  }

  values(): IterableIterator<KeySummary> {
    return this.kept.values();
  }
}
