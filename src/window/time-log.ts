import type { WindowKind } from '../config.js';
import { expiryOf } from './expiry.js';

/** What expiriesBefore returns when nothing expires before the horizon: shared, never written. */
export const NO_EXPIRIES: number[] = [];

/**
 * A run of at most this many admits goes in as that many plain slots while the log has no counts: the
 * common case (a few cost-1 admits at one millisecond) keeps the log a plain deque, as before runs,
 * and its memory still follows requests (at most this many slots each). A second typed array per key,
 * made and grown beside the first, cost a MemoryStore sync of such keys up to 2× (measured,
 * bench/probes/gateway-sync-cost1.mjs).
 */
const SMALL_RUN = 8;

/**
 * A sorted deque of admit timestamps (ms) backed by a growable Float64Array.
 * Appends are near the tail (pushes arrive nearly in time order), removals at the head (ageing out),
 * so both are amortised O(1) with no allocation once the buffer has grown.
 *
 * Each slot holds one timestamp and a count of admits made at it: a request of cost c (insertMany), or
 * a pushed run (insertAll with counts), is one slot, so the log's memory follows requests, never their
 * cost. The counts live in a second buffer made only when a slot first holds more than one admit;
 * until then every slot is one admit and the log works as a plain deque of timestamps.
 * `size` is the admits held; `slots` the slots they take.
 */
export class TimeLog {
  private buf: Float64Array;
  /** Admits per slot, indexed as buf (null: one each). Doubles: a count may pass 2³² under a big L. */
  private cnt: Float64Array | null = null;
  private head = 0;
  private len = 0;
  private total = 0;
  /**
   * The oldest slot's timestamp (buf[head]; +Infinity when empty), kept beside `head` by every change:
   * the checks that find nothing to drop or to list (a memory store's read of a quiet key, at every
   * sync) read it here, without touching the buffer, one more object in cold memory per key.
   */
  private oldest = Number.POSITIVE_INFINITY;

  constructor(capacity = 4) {
    this.buf = new Float64Array(capacity);
  }

  /** Admits held. */
  get size(): number {
    return this.total;
  }

  /** Slots in use (runs of admits at one instant, or single admits). */
  get slots(): number {
    return this.len;
  }

  /** The i-th oldest admit's timestamp (0 = oldest). */
  at(i: number): number {
    const b = this.buf;
    const mask = b.length - 1;
    const c = this.cnt;
    if (c === null) return b[(this.head + i) & mask];
    let s = 0;
    let left = i;
    while (s < this.len) {
      const n = c[(this.head + s) & mask];
      if (left < n) break;
      left -= n;
      s++;
    }
    return b[(this.head + s) & mask];
  }

  first(): number {
    return this.oldest;
  }

  /** The newest timestamp (-Infinity when empty). */
  last(): number {
    const b = this.buf;
    return this.len === 0 ? Number.NEGATIVE_INFINITY : b[(this.head + this.len - 1) & (b.length - 1)];
  }

  /** Whether a slot may hold more than one admit (else each holds one: slotCount is 1). */
  get hasCounts(): boolean {
    return this.cnt !== null;
  }

  /** Admits of slot s (0 = oldest). */
  slotCount(s: number): number {
    const c = this.cnt;
    return c === null ? 1 : c[(this.head + s) & (c.length - 1)];
  }

  /** Inserts keeping the log sorted; equal timestamps keep arrival order. */
  insert(t: number): void {
    if (this.cnt !== null) {
      this.insertRun(t, 1);
      return;
    }
    if (this.len === this.buf.length) this.grow();
    const b = this.buf;
    const mask = b.length - 1;
    let i = this.len;
    // shift larger entries one place towards the tail
    while (i > 0) {
      const prev = b[(this.head + i - 1) & mask];
      if (prev <= t) break;
      b[(this.head + i) & mask] = prev;
      i--;
    }
    b[(this.head + i) & mask] = t;
    this.len++;
    this.total++;
    this.noteOldest();
  }

  /**
   * Merges ascending timestamps in one backward pass: the entries newer than the batch's oldest move
   * once, however many the batch holds (a sync's push lands just behind other gateways' pushes).
   * With `counts`, batch[i] stands for counts[i] admits (a pushed run: one slot).
   */
  insertAll(batch: readonly number[], from = 0, counts?: readonly number[]): void {
    const n = batch.length - from;
    if (n <= 0) return;
    if (counts !== undefined && this.cnt === null) {
      // small runs as plain slots (SMALL_RUN), or the counts made for the first big one
      let m = 0;
      for (let j = from; j < batch.length && m >= 0; j++) m = counts[j] <= SMALL_RUN ? m + counts[j] : -1;
      if (m >= 0) {
        this.insertExpanded(batch, from, counts, m);
        return;
      }
    }
    while (this.len + n > this.buf.length) this.grow();
    if (counts !== undefined || this.cnt !== null) {
      this.insertRuns(batch, from, counts);
      return;
    }
    this.insertExpanded(batch, from, undefined, n);
  }

  /**
   * insertAll as `m` plain slots (the log has no counts): counts[j] copies of batch[j], or one each
   * without counts. The caller has checked that `m` is what they add up to.
   */
  private insertExpanded(
    batch: readonly number[],
    from: number,
    counts: readonly number[] | undefined,
    m: number,
  ): void {
    while (this.len + m > this.buf.length) this.grow();
    const b = this.buf;
    const mask = b.length - 1;
    const h = this.head;
    let i = this.len - 1;
    let j = batch.length - 1;
    let k = this.len + m - 1;
    while (j >= from) {
      const bj = batch[j];
      if (i >= 0) {
        const ai = b[(h + i) & mask];
        if (ai > bj) {
          b[(h + k--) & mask] = ai;
          i--;
          continue;
        }
      }
      if (counts === undefined) b[(h + k--) & mask] = bj;
      else for (let c = counts[j]; c > 0; c--) b[(h + k--) & mask] = bj;
      j--;
    }
    this.len += m;
    this.total += m;
    this.noteOldest();
  }

  /** insertAll with counts kept (there is room): the same backward pass, moving the counts too. */
  private insertRuns(batch: readonly number[], from: number, counts: readonly number[] | undefined): void {
    const c = this.cnt ?? this.makeCounts();
    const b = this.buf;
    const mask = b.length - 1;
    const h = this.head;
    const n = batch.length - from;
    let i = this.len - 1;
    let j = batch.length - 1;
    let k = this.len + n - 1;
    let added = 0;
    while (j >= from) {
      const bj = batch[j];
      if (i >= 0) {
        const ai = b[(h + i) & mask];
        if (ai > bj) {
          b[(h + k) & mask] = ai;
          c[(h + k--) & mask] = c[(h + i) & mask];
          i--;
          continue;
        }
      }
      const m = counts === undefined ? 1 : counts[j];
      b[(h + k) & mask] = bj;
      c[(h + k--) & mask] = m;
      added += m;
      j--;
    }
    this.len += n;
    this.total += added;
    this.noteOldest();
  }

  shift(): number {
    const t = this.buf[this.head];
    this.total -= this.slotCount(0);
    this.head = (this.head + 1) & (this.buf.length - 1);
    this.len--;
    this.noteOldest();
    return t;
  }

  /** Drops entries whose timestamp is <= cutoff; returns how many admits. */
  dropThrough(cutoff: number): number {
    let n = 0;
    while (this.len > 0 && this.buf[this.head] <= cutoff) n += this.dropHead();
    return n;
  }

  /** Drops entries whose timestamp is < cutoff; returns how many admits. */
  dropBefore(cutoff: number): number {
    let n = 0;
    while (this.len > 0 && this.buf[this.head] < cutoff) n += this.dropHead();
    return n;
  }

  /** Drops every entry that no longer counts at `now`; returns how many admits. */
  dropExpired(now: number, windowMs: number, kind: WindowKind): number {
    // the common case: nothing has aged out (the buffer is not read)
    if (!(expiryOf(this.oldest, windowMs, kind) <= now)) return 0;
    if (this.cnt !== null) {
      let n = 0;
      while (this.len > 0 && expiryOf(this.buf[this.head], windowMs, kind) <= now) n += this.dropHead();
      return n;
    }
    // every slot one admit (the common case: a store's sync runs this for every key it pushes to)
    let n = 0;
    while (this.len > 0 && expiryOf(this.buf[this.head], windowMs, kind) <= now) {
      this.head = (this.head + 1) & (this.buf.length - 1);
      this.len--;
      n++;
    }
    this.total -= n;
    this.noteOldest();
    return n;
  }

  /** Drops the oldest slot; returns its admits. */
  private dropHead(): number {
    const c = this.cnt;
    const n = c === null ? 1 : c[this.head];
    this.head = (this.head + 1) & (this.buf.length - 1);
    this.len--;
    this.total -= n;
    this.noteOldest();
    return n;
  }

  private noteOldest(): void {
    this.oldest = this.len === 0 ? Number.POSITIVE_INFINITY : this.buf[this.head];
  }

  /**
   * The expiry instants (expiryOf) of the oldest slots, up to the first that expires at or after
   * `horizon`, oldest first: one per slot (expiryRunsBefore has their admits). One walk with the window's
   * kind tested once: a sync's reply calls it for every read, and per-entry calls to `at` and
   * `expiryOf` were not inlined into the store's sync.
   */
  expiriesBefore(horizon: number, windowMs: number, kind: WindowKind): number[] {
    // the common case: the oldest expires at or after the horizon (the buffer is not read)
    if (!(expiryOf(this.oldest, windowMs, kind) < horizon)) return NO_EXPIRIES;
    const b = this.buf;
    const mask = b.length - 1;
    const h = this.head;
    const len = this.len;
    let n = 0;
    if (kind === 'sliding') {
      while (n < len && b[(h + n) & mask] + windowMs < horizon) n++;
    } else {
      while (n < len && expiryOf(b[(h + n) & mask], windowMs, kind) < horizon) n++;
    }
    if (n === 0) return NO_EXPIRIES;
    const out = new Array<number>(n);
    if (kind === 'sliding') for (let i = 0; i < n; i++) out[i] = b[(h + i) & mask] + windowMs;
    else for (let i = 0; i < n; i++) out[i] = expiryOf(b[(h + i) & mask], windowMs, kind);
    return out;
  }

  /** Inserts `n` entries equal to `t`, after any equal ones, keeping the log sorted: one slot. */
  insertMany(t: number, n: number): void {
    if (n <= 0) return;
    if (n === 1 && this.cnt === null) this.insert(t);
    else if (n <= SMALL_RUN && this.cnt === null) this.insertPlain(t, n);
    else this.insertRun(t, n);
  }

  /** n plain slots at t, after any equal ones (the log has no counts): the tail moves once. */
  private insertPlain(t: number, n: number): void {
    while (this.len + n > this.buf.length) this.grow();
    const b = this.buf;
    const mask = b.length - 1;
    const h = this.head;
    let i = this.len;
    while (i > 0 && b[(h + i - 1) & mask] > t) i--;
    for (let j = this.len - 1; j >= i; j--) b[(h + j + n) & mask] = b[(h + j) & mask];
    for (let j = i; j < i + n; j++) b[(h + j) & mask] = t;
    this.len += n;
    this.total += n;
    this.noteOldest();
  }

  /** n admits at t: added to the newest slot at t if there is one, else a slot of its own. */
  private insertRun(t: number, n: number): void {
    const b0 = this.buf;
    const mask0 = b0.length - 1;
    let i = this.len;
    while (i > 0 && b0[(this.head + i - 1) & mask0] > t) i--;
    if (i > 0 && b0[(this.head + i - 1) & mask0] === t) {
      const c = this.cnt ?? this.makeCounts();
      c[(this.head + i - 1) & mask0] += n;
      this.total += n;
      return;
    }
    if (this.len === this.buf.length) this.grow();
    const b = this.buf;
    const mask = b.length - 1;
    const h = this.head;
    const c = this.cnt ?? (n === 1 ? null : this.makeCounts());
    for (let j = this.len - 1; j >= i; j--) {
      b[(h + j + 1) & mask] = b[(h + j) & mask];
      if (c !== null) c[(h + j + 1) & mask] = c[(h + j) & mask];
    }
    b[(h + i) & mask] = t;
    if (c !== null) c[(h + i) & mask] = n;
    this.len++;
    this.total += n;
    this.noteOldest();
  }

  /** Removes up to `n` admits at `t` (the newest such) in one move of the tail; returns how many. */
  removeMany(t: number, n: number): number {
    const b = this.buf;
    const mask = b.length - 1;
    const h = this.head;
    const c = this.cnt;
    let end = this.len;
    while (end > 0 && b[(h + end - 1) & mask] > t) end--;
    let start = end;
    let removed = 0;
    while (start > 0 && removed < n && b[(h + start - 1) & mask] === t) {
      const have = c === null ? 1 : c[(h + start - 1) & mask];
      if (have > n - removed) {
        // part of this slot: it stays, with fewer
        c![(h + start - 1) & mask] = have - (n - removed);
        removed = n;
        break;
      }
      removed += have;
      start--;
    }
    const k = end - start;
    for (let j = end; j < this.len; j++) {
      b[(h + j - k) & mask] = b[(h + j) & mask];
      if (c !== null) c[(h + j - k) & mask] = c[(h + j) & mask];
    }
    this.len -= k;
    this.total -= removed;
    this.noteOldest();
    return removed;
  }

  /** Removes one admit at `t` (the newest such); returns whether there was one. */
  removeOne(t: number): boolean {
    return this.removeMany(t, 1) === 1;
  }

  clear(): void {
    this.head = 0;
    this.len = 0;
    this.total = 0;
    this.oldest = Number.POSITIVE_INFINITY;
  }

  /**
   * Back to a new log's state, for a reused record (the memory store's pool): empty, without counts
   * (a new log has none until a slot first holds several), its buffer kept unless it grew past `keep`.
   */
  reset(keep: number): void {
    this.clear();
    this.cnt = null;
    if (this.buf.length > keep) this.buf = new Float64Array(4);
  }

  /** One entry per admit, oldest first (tests). */
  toArray(): number[] {
    const out: number[] = [];
    for (let s = 0; s < this.len; s++) {
      const t = this.buf[(this.head + s) & (this.buf.length - 1)];
      for (let n = this.slotCount(s); n > 0; n--) out.push(t);
    }
    return out;
  }

  private makeCounts(): Float64Array {
    const c = new Float64Array(this.buf.length).fill(1);
    this.cnt = c;
    return c;
  }

  private grow(): void {
    const old = this.buf;
    const mask = old.length - 1;
    const next = new Float64Array(old.length * 2);
    for (let i = 0; i < this.len; i++) next[i] = old[(this.head + i) & mask];
    const c = this.cnt;
    if (c !== null) {
      const nc = new Float64Array(old.length * 2).fill(1);
      for (let i = 0; i < this.len; i++) nc[i] = c[(this.head + i) & mask];
      this.cnt = nc;
    }
    this.buf = next;
    this.head = 0;
  }
}
