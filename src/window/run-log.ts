import type { WindowKind } from '../config.js';
import { expiryOf } from './expiry.js';

/**
 * Admit timestamps stored as (time, count) runs in one reused Float64Array: [t0, n0, t1, n1, …],
 * `end` runs in use. Admits at the same instant (the common case on a millisecond clock under load)
 * take one run, and recording an admit writes into the buffer, so once it has grown the request path
 * allocates nothing. A typed array, not a plain one: a log that grows over a whole window (split,
 * the share logs) lives outside the JS heap, where growing it costs no garbage collection (a plain
 * array was ~1.5–2× slower there, measured). No buffer until the first admit.
 */
const NO_RUNS = new Float64Array(0);

/**
 * Zero for the admit counters. They take run counts read back from the Float64Array, i.e. doubles; a
 * counter that started as a small integer would later change the objects' layout under optimized
 * code (seen to leave a hot loop unoptimized). −0 is the one zero V8 keeps as a double; the getters
 * add +0 so that no −0 leaves the class.
 */
const DOUBLE_ZERO = -0;

abstract class Runs {
  protected buf: Float64Array = NO_RUNS;
  /** One past the last run in use, in runs. */
  protected end = 0;

  /** Room for one more run at `end`; `keepFrom` is the first run still needed (earlier ones are dropped). Returns keepFrom. */
  protected room(keepFrom: number): number {
    const old = this.buf;
    if (keepFrom > 0 && 2 * (this.end - keepFrom + 1) <= old.length / 2) {
      // at least half the buffer is dead runs at the head: slide the live ones down instead of growing
      old.copyWithin(0, 2 * keepFrom, 2 * this.end);
    } else {
      const next = new Float64Array(Math.max(4, 2 * old.length));
      next.set(old.subarray(2 * keepFrom, 2 * this.end));
      this.buf = next;
    }
    this.end -= keepFrom;
    return keepFrom;
  }
}

/**
 * A sorted multiset of admit timestamps with removal from the oldest end: the same operations as
 * `TimeLog` (insert keeping order, drop what expired, size, oldest), stored as runs.
 */
export class RunLog extends Runs {
  private head = 0;
  private total = DOUBLE_ZERO;

  get size(): number {
    return this.total + 0;
  }

  /** The oldest timestamp (Infinity when empty). */
  first(): number {
    return this.head < this.end ? this.buf[2 * this.head] : Number.POSITIVE_INFINITY;
  }

  /** Records n admits at t, keeping time order; equal times share a run. */
  insert(t: number, n = 1): void {
    this.total += n;
    const b = this.buf;
    const last = 2 * (this.end - 1);
    if (this.end > this.head) {
      if (b[last] === t) {
        b[last + 1] += n;
        return;
      }
      if (b[last] > t) {
        this.insertBefore(t, n);
        return;
      }
    }
    if (2 * this.end === b.length) this.head -= this.room(this.head);
    const at = 2 * this.end++;
    this.buf[at] = t;
    this.buf[at + 1] = n;
  }

  /** Out of order (a caller's clock went back): find the place, merge or shift the newer runs up. */
  private insertBefore(t: number, n: number): void {
    const b = this.buf;
    let i = this.end - 1;
    while (i > this.head && b[2 * (i - 1)] >= t) i--;
    // now every run before i is older than t, and run i is not
    if (b[2 * i] === t) {
      b[2 * i + 1] += n;
      return;
    }
    if (2 * this.end === b.length) {
      const dropped = this.room(this.head);
      this.head -= dropped;
      i -= dropped;
    }
    // everything from run i moves up by one
    const nb = this.buf;
    nb.copyWithin(2 * i + 2, 2 * i, 2 * this.end);
    nb[2 * i] = t;
    nb[2 * i + 1] = n;
    this.end++;
  }

  /** Drops every admit that no longer counts at `now`; returns how many. */
  dropExpired(now: number, windowMs: number, kind: WindowKind): number {
    const b = this.buf;
    let h = this.head;
    let n = 0;
    while (h < this.end && expiryOf(b[2 * h], windowMs, kind) <= now) {
      n += b[2 * h + 1];
      h++;
    }
    this.head = h;
    this.total -= n;
    if (h === this.end) this.head = this.end = 0;
    return n;
  }

  /** Every timestamp, oldest first, one entry per admit. */
  toArray(): number[] {
    return expand(this.buf, this.head, this.end, this.total);
  }
}

/**
 * Own admits since the last sync, in the order they were made: appended at the tail, taken whole by
 * the next sync (expired ones included: the store drops them itself). A cursor walks over the runs
 * that no longer count, so the live count is kept without removing anything.
 */
export class AdmitLog extends Runs {
  /**
   * The empty log shared by every key with no admits since its last sync: a key at rest carries no
   * log of its own. Never appended to (take a `new AdmitLog()` first); `recycle` hands it back.
   */
  static readonly NONE: AdmitLog = new AdmitLog();

  /** Admits held, and those from the cursor on (still counting at the last walk). */
  private total = DOUBLE_ZERO;
  private liveCount = DOUBLE_ZERO;
  private cursor = 0;

  /** Every admit held, expired or not. */
  get size(): number {
    return this.total + 0;
  }

  /** Admits not yet walked past (still counting at the last `expire`). */
  get live(): number {
    return this.liveCount + 0;
  }

  /** The oldest admit not walked past (NaN when none). */
  firstLive(): number {
    return this.cursor < this.end ? this.buf[2 * this.cursor] : Number.NaN;
  }

  /**
   * Records n admits at t; returns true when they are the only live ones (the log's first live run
   * changed). They join the last run when it has the same time and is still live; a run already walked
   * past stays closed (with a clock that went back, t may equal an expired run's time).
   */
  append(t: number, n: number): boolean {
    this.total += n;
    const wasLive = this.liveCount;
    this.liveCount = wasLive + n;
    const end = this.end;
    if (wasLive > 0 && this.buf[2 * end - 2] === t) {
      this.buf[2 * end - 1] += n;
      return false;
    }
    // the walked-past runs are still to be pushed: the buffer only grows
    if (2 * end === this.buf.length) this.room(0);
    const b = this.buf;
    b[2 * end] = t;
    b[2 * end + 1] = n;
    this.end = end + 1;
    return wasLive === 0;
  }

  /** Walks past the leading admits that no longer count at `now`; returns the live count. */
  expire(now: number, windowMs: number, kind: WindowKind): number {
    const b = this.buf;
    let c = this.cursor;
    while (c < this.end && expiryOf(b[2 * c], windowMs, kind) <= now) {
      this.liveCount -= b[2 * c + 1];
      c++;
    }
    if (c !== this.cursor) this.cursor = c;
    return this.liveCount + 0;
  }

  /** Every admit held (walked past or not), oldest first, one entry per admit: what a sync pushes. */
  toArray(): number[] {
    return expand(this.buf, 0, this.end, this.total);
  }

  /** The live admits (from the cursor on), one entry per admit. */
  liveToArray(): number[] {
    return expand(this.buf, this.cursor, this.end, this.liveCount);
  }

  /**
   * Empties the log for the next sync interval (a sync took the admits) and returns the log to use:
   * a busy key keeps its buffer; a quiet one gives it back (NONE), and one far bigger than its last
   * interval needed shrinks a little at a time.
   */
  recycle(): AdmitLog {
    const used = this.end;
    if (used <= 2) return AdmitLog.NONE;
    this.end = this.total = this.liveCount = this.cursor = 0;
    if (16 * used < this.buf.length) this.buf = new Float64Array(this.buf.length / 4);
    return this;
  }

  /** A log of `ts[from…]` (ascending) followed by this log's live admits, its cursor at 0. */
  prefixed(ts: readonly number[], from: number): AdmitLog {
    const out = new AdmitLog();
    for (let i = from; i < ts.length; i++) out.append(ts[i], 1);
    const b = this.buf;
    for (let r = this.cursor; r < this.end; r++) out.append(b[2 * r], b[2 * r + 1]);
    return out;
  }
}

function expand(b: Float64Array, from: number, to: number, count: number): number[] {
  const out = new Array<number>(count);
  let k = 0;
  for (let r = from; r < to; r++) {
    const t = b[2 * r];
    for (let n = b[2 * r + 1]; n > 0; n--) out[k++] = t;
  }
  return out;
}
