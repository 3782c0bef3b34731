/**
 * Retired keys' objects, kept to be a new key's (ReplayRun.enter). On a log of many quiet keys nearly
 * every line is a key back after more than a window, so a key's life is a line or two: a fresh KeyStats
 * each time, with a tally and a log per design, lived a window or two — long enough to be promoted —
 * and then was old-generation garbage; the collector took a quarter of the replay's time. A pooled
 * object is reset to a new key's zeros (KeyStats.reset), so a key's figures are the same either way.
 */
import { KeyStats } from './key-stats.js';

/**
 * The most objects kept idle. A sweep retires up to a window's keys at once, and objects are made only
 * when none is idle, so live and idle together stay at the peak of live keys; past this many idle (a
 * burst of keys gone quiet) the rest are let go.
 */
export const POOL_CAPACITY = 1 << 18;

export class KeyPool {
  private readonly idle: KeyStats[] = [];

  constructor(
    /** Tallies per key (the run's designs, the central log's included). */
    private readonly designs: number,
    private readonly capacity = POOL_CAPACITY,
  ) {}

  /** A new key's stats: a retired key's object, reset, or a fresh one. */
  take(key: string, t: number): KeyStats {
    const st = this.idle.pop();
    if (st === undefined) return new KeyStats(key, this.designs, t);
    st.reset(key, t);
    return st;
  }

  /** A retired key's object (nothing else may hold it: its summary, if any, already made). */
  give(st: KeyStats): void {
    if (this.idle.length < this.capacity) this.idle.push(st);
  }

  /** Objects kept idle now (tests). */
  get size(): number {
    return this.idle.length;
  }
}
