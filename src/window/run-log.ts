import type { WindowKind } from '../config.js';
import { expiryOf } from './expiry.js';
import type { RunList } from './runs.js';

/**
 * Admit timestamps stored as (time, count) runs: the times in one reused Float64Array, `end` runs in
 * use, and the counts in a Uint32Array made only when a run first holds more than one admit (until
 * then every count is 1). Admits at the same instant (the common case on a millisecond clock under
 * load) take one run; admits at distinct instants cost 8 bytes each, as a plain timestamp log does.
 * Recording an admit writes into the buffers, so once they have grown the request path allocates
 * nothing. Typed arrays, not plain ones: a log that grows over a whole window (split, the share logs)
 * lives outside the JS heap, where growing it costs no garbage collection (a plain array was ~1.5–2×
 * slower there, measured). No buffer until the first admit.
 */
const NO_RUNS = new Float64Array(0);

/**
 * Most admits one run can hold. Counts are unsigned 32-bit: read back, they stay small integers, so
 * the counters that add them up never turn into doubles (a counter changing representation after
 * warm-up changes the objects' layout under optimized code; that was seen to leave a hot loop
 * unoptimized). A request costing more is refused by the log (RangeError), as is one that would take
 * one instant's run past it.
 */
const MAX_RUN = 0xffff_ffff;

abstract class Runs {
  protected times: Float64Array = NO_RUNS;
  /** null: every run holds one admit. */
  protected counts: Uint32Array | null = null;
  /** One past the last run in use. */
  protected end = 0;

  protected countOf(r: number): number {
    const c = this.counts;
    return c === null ? 1 : c[r];
  }

  /** Adds n admits to run r. */
  protected addTo(r: number, n: number): void {
    const c = this.counts ?? this.makeCounts();
    if (n > MAX_RUN - c[r]) tooMany(c[r] + n);
    c[r] += n;
  }

  /** Writes a run at `end` (there is room) and counts it. */
  protected put(t: number, n: number): void {
    const at = this.end++;
    this.times[at] = t;
    const c = this.counts;
    if (c !== null) c[at] = n;
    else if (n !== 1) this.makeCounts()[at] = n;
  }

  private makeCounts(): Uint32Array {
    const c = new Uint32Array(this.times.length);
    c.fill(1, 0, this.end);
    this.counts = c;
    return c;
  }

  /** Room for one more run at `end`; `keepFrom` is the first run still needed (earlier ones are dropped). Returns keepFrom. */
  protected room(keepFrom: number): number {
    const t = this.times;
    const c = this.counts;
    if (keepFrom > 0 && this.end - keepFrom + 1 <= t.length / 2) {
      // at least half the buffer is dead runs at the head: slide the live ones down instead of growing
      t.copyWithin(0, keepFrom, this.end);
      c?.copyWithin(0, keepFrom, this.end);
    } else {
      const size = Math.max(4, 2 * t.length);
      this.times = grown(t, size, keepFrom, this.end);
      if (c !== null) this.counts = grown(c, size, keepFrom, this.end);
    }
    this.end -= keepFrom;
    return keepFrom;
  }

  /** Shifts runs [i, end) up by one (there is room), leaving run i to be written. */
  protected openAt(i: number): void {
    this.times.copyWithin(i + 1, i, this.end);
    this.counts?.copyWithin(i + 1, i, this.end);
    this.end++;
  }

  /**
   * Takes up to `n` admits from the run at `t` among runs [from, end) (the last such, times ascending
   * or not); a run left empty is removed (the runs after it move down). Returns how many were taken.
   */
  protected takeFrom(from: number, t: number, n: number): number {
    const times = this.times;
    let r = this.end - 1;
    while (r >= from && times[r] !== t) r--;
    if (r < from || n <= 0) return 0;
    const have = this.countOf(r);
    if (have > n) {
      this.counts![r] = have - n;
      return n;
    }
    times.copyWithin(r, r + 1, this.end);
    this.counts?.copyWithin(r, r + 1, this.end);
    this.end--;
    return have;
  }

  /** Every admit of runs [from, to), one entry each, oldest first. */
  protected expand(from: number, to: number, total: number): number[] {
    const out = new Array<number>(total);
    const t = this.times;
    let k = 0;
    for (let r = from; r < to; r++) {
      for (let n = this.countOf(r); n > 0; n--) out[k++] = t[r];
    }
    return out;
  }
}

function grown<A extends Float64Array | Uint32Array>(a: A, size: number, from: number, to: number): A {
  const next = (a instanceof Float64Array ? new Float64Array(size) : new Uint32Array(size)) as A;
  // a loop, not set(subarray): the subarray was a typed array object made per grow (17 of the 791
  // bytes a line of track-share at K = 4 random, on request), for a copy of a few runs
  for (let i = from; i < to; i++) next[i - from] = a[i];
  return next;
}

function tooMany(n: number): never {
  throw new RangeError(`${n} admits at one instant on one key: at most ${MAX_RUN} are recorded`);
}

/**
 * A sorted multiset of admit timestamps with removal from the oldest end: the same operations as
 * `TimeLog` (insert keeping order, drop what expired, size, oldest), stored as runs.
 */
export class RunLog extends Runs {
  private head = 0;
  private total = 0;

  get size(): number {
    return this.total;
  }

  /** The oldest timestamp (Infinity when empty). */
  first(): number {
    return this.head < this.end ? this.times[this.head] : Number.POSITIVE_INFINITY;
  }

  /** Records n admits at t, keeping time order; equal times share a run. */
  insert(t: number, n = 1): void {
    if (n > MAX_RUN) tooMany(n);
    const last = this.end - 1;
    const lt = last >= this.head ? this.times[last] : Number.NEGATIVE_INFINITY;
    if (lt === t) this.addTo(last, n);
    else if (lt > t) this.insertBefore(t, n);
    else {
      if (this.end === this.times.length) this.head -= this.room(this.head);
      this.put(t, n);
    }
    this.total += n;
  }

  /** Out of order (a caller's clock went back): find the place, merge or shift the newer runs up. */
  private insertBefore(t: number, n: number): void {
    let i = this.end - 1;
    while (i > this.head && this.times[i - 1] >= t) i--;
    // now every run before i is older than t, and run i is not
    if (this.times[i] === t) {
      this.addTo(i, n);
      return;
    }
    if (this.end === this.times.length) {
      const dropped = this.room(this.head);
      this.head -= dropped;
      i -= dropped;
    }
    this.openAt(i);
    this.times[i] = t;
    const c = this.counts;
    if (c !== null) c[i] = n;
    else if (n !== 1) this.addTo(i, n - 1);
  }

  /** Drops every admit that no longer counts at `now`; returns how many. */
  dropExpired(now: number, windowMs: number, kind: WindowKind): number {
    const t = this.times;
    let h = this.head;
    let n = 0;
    while (h < this.end && expiryOf(t[h], windowMs, kind) <= now) {
      n += this.countOf(h);
      h++;
    }
    this.head = h;
    this.total -= n;
    if (h === this.end) this.head = this.end = 0;
    return n;
  }

  /** Takes back up to `n` admits recorded at `t` (a refund); returns how many it held. */
  remove(t: number, n: number): number {
    const k = this.takeFrom(this.head, t, n);
    this.total -= k;
    if (this.head === this.end) this.head = this.end = 0;
    return k;
  }

  /** Every timestamp, oldest first, one entry per admit (tests: see expiryRuns). */
  toArray(): number[] {
    return this.expand(this.head, this.end, this.total);
  }

  /** The expiry instant of every run held, oldest first, with its admits: one entry per run. */
  expiryRuns(windowMs: number, kind: WindowKind): RunList {
    const len = this.end - this.head;
    const t = new Array<number>(len);
    const n = new Array<number>(len);
    for (let r = 0; r < len; r++) {
      t[r] = expiryOf(this.times[this.head + r], windowMs, kind);
      n[r] = this.countOf(this.head + r);
    }
    return { t, n };
  }
}

/** Small logs handed back by quiet keys, shared by every key (bounded: a key at rest holds none). */
const SPARE: AdmitLog[] = [];
/** The most spare logs kept outside a replay: a gateway's keys hand theirs back a few at a time. */
export const SPARE_AT_REST = 64;
/**
 * The most spare logs kept while a replay runs (holdSpares). The replay runs a key's syncs when it
 * comes back or at a sweep, so tens of thousands of keys hand their logs back at once and the new
 * keys after take them. With 64 kept, on a log of quiet keys (200,000 addresses, one back every
 * ~100 s; shared-counter at K = 4, random) nearly every admit made a new log, promoted before its
 * key's sync and then old-generation garbage: 270 of 1,900 bytes allocated a line. Outside a replay
 * the pool goes back to SPARE_AT_REST, so a library gateway's keys at rest hold none of these
 * (test/gateway/idle-reclaim-million-keys.live.test.ts: ~20 MB stayed held with MAX_SPARE always).
 */
export const MAX_SPARE = 1 << 16;
let spareCap = SPARE_AT_REST;
let holders = 0;

/**
 * Raises the spare pool's cap to MAX_SPARE until the returned function is called (once per hold;
 * replays that overlap each hold it); when the last hold ends, the pool is cut back to
 * SPARE_AT_REST. Which log a key gets changes no count: only what is allocated.
 */
export function holdSpares(): () => void {
  holders++;
  spareCap = MAX_SPARE;
  let held = true;
  return () => {
    if (!held) return;
    held = false;
    if (--holders > 0) return;
    spareCap = SPARE_AT_REST;
    if (SPARE.length > SPARE_AT_REST) SPARE.length = SPARE_AT_REST;
  };
}
/**
 * Largest buffer (in runs) a spare log keeps: a key whose intervals swing between a few admits and a
 * dozen grew its log to 8 or 16 runs, handed it back in a quiet interval, and would grow a fresh one
 * again the next busy interval.
 */
const MAX_SPARE_RUNS = 16;

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

  /**
   * A log to append to: a small one a quiet key handed back, or a new one. A key that admits once per
   * sync interval would otherwise make a log and its typed array for every admit (a typed array costs
   * far more to make than to fill: an honest shared-counter run at K = 32 took ~12 % longer).
   */
  static take(): AdmitLog {
    return SPARE.pop() ?? new AdmitLog();
  }

  /** Admits held, and those from the cursor on (still counting at the last walk). */
  private total = 0;
  private liveCount = 0;
  private cursor = 0;

  /** Every admit held, expired or not. */
  get size(): number {
    return this.total;
  }

  /** Admits not yet walked past (still counting at the last `expire`). */
  get live(): number {
    return this.liveCount;
  }

  /** The oldest admit held, walked past or not (NaN when none): toArray()[0] without the copy. */
  firstHeld(): number {
    return this.end > 0 ? this.times[0] : Number.NaN;
  }

  /** The oldest admit not walked past (NaN when none). */
  firstLive(): number {
    return this.cursor < this.end ? this.times[this.cursor] : Number.NaN;
  }

  /**
   * Records n admits at t; returns true when they are the only live ones (the log's first live run
   * changed). They join the last run when it has the same time and is still live; a run already walked
   * past stays closed (with a clock that went back, t may equal an expired run's time).
   */
  append(t: number, n: number): boolean {
    const wasLive = this.liveCount;
    const end = this.end;
    const merged = wasLive > 0 && this.times[end - 1] === t;
    if (merged) this.addTo(end - 1, n);
    else {
      if (n > MAX_RUN) tooMany(n);
      // the walked-past runs are still to be pushed: the buffer only grows
      if (end === this.times.length) this.room(0);
      this.put(t, n);
    }
    this.total += n;
    this.liveCount = wasLive + n;
    return !merged && wasLive === 0;
  }

  /** Walks past the leading admits that no longer count at `now`; returns the live count. */
  expire(now: number, windowMs: number, kind: WindowKind): number {
    const t = this.times;
    let c = this.cursor;
    while (c < this.end && expiryOf(t[c], windowMs, kind) <= now) {
      this.liveCount -= this.countOf(c);
      c++;
    }
    if (c !== this.cursor) this.cursor = c;
    return this.liveCount;
  }

  /**
   * Takes back up to `n` live admits recorded at `t` (a refund of an admit not pushed yet); returns
   * how many it held. Never from NONE (it holds nothing).
   */
  remove(t: number, n: number): number {
    if (this === AdmitLog.NONE) return 0;
    const k = this.takeFrom(this.cursor, t, n);
    this.total -= k;
    this.liveCount -= k;
    return k;
  }

  /** Every admit held (walked past or not), oldest first, one entry per admit (tests: a sync takes runTimes). */
  toArray(): number[] {
    return this.expand(0, this.end, this.total);
  }

  /**
   * The time of every run held (walked past or not), oldest first: what a sync pushes, with
   * runCounts (SyncEntry.admits and .counts). One entry per run, never per unit of cost.
   */
  runTimes(): number[] {
    const n = this.end;
    const t = this.times;
    const out = new Array<number>(n);
    for (let r = 0; r < n; r++) out[r] = t[r];
    return out;
  }

  /** The admits of each run of runTimes; undefined when every run holds one. */
  runCounts(): number[] | undefined {
    const c = this.counts;
    if (c === null) return undefined;
    const n = this.end;
    const out = new Array<number>(n);
    for (let r = 0; r < n; r++) out[r] = c[r];
    return out;
  }

  /** The live runs (from the cursor on): their times and admits, oldest first. */
  liveRuns(): { times: number[]; counts: number[] } {
    const n = this.end - this.cursor;
    const times = new Array<number>(n);
    const counts = new Array<number>(n);
    for (let r = 0; r < n; r++) {
      times[r] = this.times[this.cursor + r];
      counts[r] = this.countOf(this.cursor + r);
    }
    return { times, counts };
  }

  /**
   * Empties the log for the next sync interval (a sync took the admits) and returns the log to use:
   * a busy key keeps its buffers; a quiet one gives them back (NONE), and one far bigger than its
   * last interval needed shrinks a little at a time.
   */
  recycle(): AdmitLog {
    const used = this.end;
    this.end = this.total = this.liveCount = this.cursor = 0;
    if (used <= 2) {
      // handed to the next key that needs one; the log's data was copied out by the sync (toArray).
      // Without its counts: a key whose runs each hold one admit pushes no counts (SyncEntry.counts)
      if (this !== AdmitLog.NONE && SPARE.length < spareCap && this.times.length <= MAX_SPARE_RUNS) {
        this.counts = null;
        SPARE.push(this);
      }
      return AdmitLog.NONE;
    }
    if (16 * used < this.times.length) {
      this.times = new Float64Array(this.times.length / 4);
      this.counts = null;
    }
    return this;
  }

  /**
   * A log of the runs `ts[from…]` (ascending; `counts[i]` admits at ts[i], one each without counts)
   * followed by this log's live admits, its cursor at 0.
   */
  prefixed(ts: readonly number[], counts: readonly number[] | undefined, from: number): AdmitLog {
    const out = new AdmitLog();
    for (let i = from; i < ts.length; i++) out.append(ts[i], counts === undefined ? 1 : counts[i]);
    for (let r = this.cursor; r < this.end; r++) out.append(this.times[r], this.countOf(r));
    return out;
  }
}
