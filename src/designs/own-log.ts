import type { WindowKind } from '../config.js';
import { expiryOf } from '../window/expiry.js';

/**
 * A gateway's own admits over the last window, for adaptive's share (AdaptiveKey.own): only their
 * count is read. RunLog's operations (insert in time order, equal instants joined; drop what expired;
 * take back from the newest run at an instant), in plain arrays: every held key has one, a few runs
 * long, and a RunLog made and regrew typed arrays for it (4, then 8 runs, each grow a subarray too),
 * which cost far more to make than to fill (adaptive at K = 4 random: ~1 µs each, a tenth of its
 * replay went to the own log). The arrays only grow; dead runs at the head are slid out.
 */
export class OwnLog {
  // four runs' room from the start, as literals (doubles, small integers): an empty array's first push
  // grows it to 17 slots, and a held key's two of those cost ~200 bytes more than a RunLog's
  // (test/regressions/key-bytes-stale-retry-fields-on-every-key.live.test.ts)
  private readonly times: number[] = [0.5, 0.5, 0.5, 0.5];
  private readonly counts: number[] = [0, 0, 0, 0];
  /** Runs [head, end) are live. */
  private head = 0;
  private end = 0;
  private total = 0;
  /**
   * When the run at `head` expires (+∞: none; −∞: not known, a run was put before it): dropExpired
   * before it touches no array (most syncs find nothing expired). Never later than that run's expiry;
   * an earlier one (the head run taken back) only costs a walk.
   */
  private due = Number.POSITIVE_INFINITY;

  get size(): number {
    return this.total;
  }

  /** Whether an admit still counts at `now` (the newest run's expiry is later), walked or not. */
  countsAt(now: number, windowMs: number, kind: WindowKind): boolean {
    return this.end > this.head && now < expiryOf(this.times[this.end - 1], windowMs, kind);
  }

  /** Records n admits at t, keeping time order; equal times share a run. */
  insert(t: number, n: number): void {
    const last = this.end - 1;
    const lt = last >= this.head ? this.times[last] : Number.NEGATIVE_INFINITY;
    if (lt === t) this.counts[last] += n;
    else if (lt > t) this.insertBefore(t, n);
    else {
      if (last < this.head) this.due = Number.NEGATIVE_INFINITY;
      this.put(t, n);
    }
    this.total += n;
  }

  /** A run at `end`: slid down first when at least half the arrays are dead runs, else pushed. */
  private put(t: number, n: number): void {
    const times = this.times;
    const counts = this.counts;
    if (this.end === times.length && this.head > 0 && 2 * this.head >= this.end) this.slide();
    const at = this.end++;
    if (at === times.length) {
      times.push(t);
      counts.push(n);
    } else {
      times[at] = t;
      counts[at] = n;
    }
  }

  /** Moves the live runs to the start. */
  private slide(): void {
    const times = this.times;
    const counts = this.counts;
    const h = this.head;
    for (let r = h; r < this.end; r++) {
      times[r - h] = times[r];
      counts[r - h] = counts[r];
    }
    this.end -= h;
    this.head = 0;
  }

  /** Out of order (a clock went back): merged with the run at t, or a run opened before the newer ones. */
  private insertBefore(t: number, n: number): void {
    const times = this.times;
    let i = this.end - 1;
    while (i > this.head && times[i - 1] >= t) i--;
    if (times[i] === t) {
      this.counts[i] += n;
      return;
    }
    times.splice(i, 0, t);
    this.counts.splice(i, 0, n);
    this.end++;
    if (i === this.head) this.due = Number.NEGATIVE_INFINITY;
  }

  /** Drops every admit that no longer counts at `now`. */
  dropExpired(now: number, windowMs: number, kind: WindowKind): void {
    if (now < this.due) return;
    const times = this.times;
    let h = this.head;
    let due = Number.POSITIVE_INFINITY;
    for (; h < this.end; h++) {
      const e = expiryOf(times[h], windowMs, kind);
      if (e > now) {
        due = e;
        break;
      }
      this.total -= this.counts[h];
    }
    this.head = h;
    this.due = due;
    if (h === this.end) this.head = this.end = 0;
  }

  /** Takes back up to `n` admits recorded at `t` (a refund); returns how many it held. */
  remove(t: number, n: number): number {
    const times = this.times;
    let r = this.end - 1;
    while (r >= this.head && times[r] !== t) r--;
    if (r < this.head || n <= 0) return 0;
    const have = this.counts[r];
    if (have > n) {
      this.counts[r] = have - n;
      this.total -= n;
      return n;
    }
    times.splice(r, 1);
    this.counts.splice(r, 1);
    this.end--;
    this.total -= have;
    if (this.head === this.end) this.head = this.end = 0;
    return have;
  }
}
