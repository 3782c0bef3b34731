import type { WindowKind } from '../config.js';
import { expiryOf } from './expiry.js';

/** What expiriesBefore returns when nothing expires before the horizon: shared, never written. */
export const NO_EXPIRIES: number[] = [];

/**
 * A sorted deque of admit timestamps (ms) backed by a growable Float64Array.
 * Appends are near the tail (pushes arrive nearly in time order), removals at the head (ageing out),
 * so both are amortised O(1) with no allocation once the buffer has grown.
 */
export class TimeLog {
  private buf: Float64Array;
  private head = 0;
  private len = 0;

  constructor(capacity = 4) {
    this.buf = new Float64Array(capacity);
  }

  get size(): number {
    return this.len;
  }

  /** The i-th oldest timestamp (0 = oldest). */
  at(i: number): number {
    const b = this.buf;
    return b[(this.head + i) & (b.length - 1)];
  }

  first(): number {
    return this.len === 0 ? Number.POSITIVE_INFINITY : this.at(0);
  }

  /** Inserts keeping the log sorted; equal timestamps keep arrival order. */
  insert(t: number): void {
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
  }

  /**
   * Merges ascending timestamps in one backward pass: the entries newer than the batch's oldest move
   * once, however many the batch holds (a sync's push lands just behind other gateways' pushes).
   */
  insertAll(batch: readonly number[], from = 0): void {
    const n = batch.length - from;
    if (n <= 0) return;
    while (this.len + n > this.buf.length) this.grow();
    const b = this.buf;
    const mask = b.length - 1;
    const h = this.head;
    let i = this.len - 1;
    let j = batch.length - 1;
    let k = this.len + n - 1;
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
      b[(h + k--) & mask] = bj;
      j--;
    }
    this.len += n;
  }

  shift(): number {
    const t = this.buf[this.head];
    this.head = (this.head + 1) & (this.buf.length - 1);
    this.len--;
    return t;
  }

  /** Drops entries whose timestamp is <= cutoff; returns how many. */
  dropThrough(cutoff: number): number {
    let n = 0;
    while (this.len > 0 && this.buf[this.head] <= cutoff) {
      this.head = (this.head + 1) & (this.buf.length - 1);
      this.len--;
      n++;
    }
    return n;
  }

  /** Drops entries whose timestamp is < cutoff; returns how many. */
  dropBefore(cutoff: number): number {
    let n = 0;
    while (this.len > 0 && this.buf[this.head] < cutoff) {
      this.head = (this.head + 1) & (this.buf.length - 1);
      this.len--;
      n++;
    }
    return n;
  }

  /** Drops every entry that no longer counts at `now`; returns how many. */
  dropExpired(now: number, windowMs: number, kind: WindowKind): number {
    let n = 0;
    while (this.len > 0 && expiryOf(this.buf[this.head], windowMs, kind) <= now) {
      this.head = (this.head + 1) & (this.buf.length - 1);
      this.len--;
      n++;
    }
    return n;
  }

  /**
   * The expiry instants (expiryOf) of the oldest entries, up to the first that expires at or after
   * `horizon`, oldest first. One walk with the window's kind tested once: a sync's reply calls it for
   * every read, and per-entry calls to `at` and `expiryOf` were not inlined into the store's sync.
   */
  expiriesBefore(horizon: number, windowMs: number, kind: WindowKind): number[] {
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

  /** Inserts `n` entries equal to `t`, after any equal ones, keeping the log sorted: the tail moves once. */
  insertMany(t: number, n: number): void {
    if (n <= 0) return;
    while (this.len + n > this.buf.length) this.grow();
    const b = this.buf;
    const mask = b.length - 1;
    const h = this.head;
    let i = this.len;
    while (i > 0 && b[(h + i - 1) & mask] > t) i--;
    for (let j = this.len - 1; j >= i; j--) b[(h + j + n) & mask] = b[(h + j) & mask];
    for (let j = i; j < i + n; j++) b[(h + j) & mask] = t;
    this.len += n;
  }

  /** Removes up to `n` entries equal to `t` (the newest such) in one move of the tail; returns how many. */
  removeMany(t: number, n: number): number {
    const b = this.buf;
    const mask = b.length - 1;
    const h = this.head;
    let end = this.len;
    while (end > 0 && b[(h + end - 1) & mask] > t) end--;
    let start = end;
    while (start > 0 && end - start < n && b[(h + start - 1) & mask] === t) start--;
    const k = end - start;
    if (k === 0) return 0;
    for (let j = end; j < this.len; j++) b[(h + j - k) & mask] = b[(h + j) & mask];
    this.len -= k;
    return k;
  }

  /** Removes one entry equal to `t` (the newest such); returns whether there was one. */
  removeOne(t: number): boolean {
    const b = this.buf;
    const mask = b.length - 1;
    let i = this.len - 1;
    while (i >= 0 && b[(this.head + i) & mask] > t) i--;
    if (i < 0 || b[(this.head + i) & mask] !== t) return false;
    for (let j = i; j < this.len - 1; j++) b[(this.head + j) & mask] = b[(this.head + j + 1) & mask];
    this.len--;
    return true;
  }

  clear(): void {
    this.head = 0;
    this.len = 0;
  }

  toArray(): number[] {
    const out = new Array<number>(this.len);
    for (let i = 0; i < this.len; i++) out[i] = this.at(i);
    return out;
  }

  private grow(): void {
    const old = this.buf;
    const next = new Float64Array(old.length * 2);
    for (let i = 0; i < this.len; i++) next[i] = old[(this.head + i) & (old.length - 1)];
    this.buf = next;
    this.head = 0;
  }
}
