/**
 * The per-key syncs' bookkeeping (KeySyncs, src/replay/run/key-syncs.ts): one key's slots over the
 * gateways, allocated as gateways come to hold it, and the index arithmetic of the fleet's sync
 * schedule that lets a run pass a gateway's skipped syncs in one step.
 */
import type { KeyLimiter } from '../../designs/key-limiter.js';

/** One key on one gateway. */
export class Slot {
  /** The key's state there (null: not held). */
  lim: KeyLimiter | null = null;
  /** The instant from which this gateway's syncs of the key must run again (lazy skips; −∞: every one runs). */
  from = Number.NEGATIVE_INFINITY;
  /**
   * A lower bound of this gateway's next request on the key, as the chunk being decided tells
   * (KeySyncs.lookAhead): +∞ for none left in the chunk it was set in (the chunk's end bounds it then);
   * −∞ unknown.
   */
  ahead = Number.NEGATIVE_INFINITY;
  /**
   * A lease design's parked syncs here (LeaseSteps.park): from index parkFrom (−1: none) below
   * parkStop, each answered with parkHeld slots, not yet applied to `lim`; parkFull: they rely on the
   * store staying full.
   */
  parkFrom = -1;
  parkStop = 0;
  parkHeld = 0;
  parkFull = false;
  /** The tick of this gateway's last read of the key (ReadSteps: idle reads; −1 none). */
  readAt = -1;
}

/** A gateway's slot where it has none: never held (nothing writes to it). */
const NO_SLOT: Slot = new Slot();

/**
 * One key's place in the schedule: the slot of the first gateway to hold it (its home) in the record
 * itself, the others' allocated as they come (one object per key while one gateway holds it: hash
 * routing, or K = 1).
 */
export class KeyTrack extends Slot {
  /** The fleet's sync index from which this key's syncs have not run (nor been skipped). */
  next: number;
  /** The first early sync (EarlySchedule's number) this key has not run. */
  nextEarly: number;
  /** A lease design's: no holder's syncs below this index need running (all parked to it or beyond; LeaseSteps). */
  quietTo = -1;
  /** The tick of the last sync that pushed to the key (ReadSteps: idle reads; −1 none). */
  pushAt = -1;
  /** The gateway whose slot this record is (−1: none yet). */
  home = -1;
  /** The other gateways' slots, by gateway (null: no other has held the key; a null slot: that one has not). */
  others: (Slot | null)[] | null = null;
  private readonly K: number;
  constructor(next: number, nextEarly: number, K: number) {
    super();
    this.next = next;
    this.nextEarly = nextEarly;
    this.K = K;
  }
  /** Gateway g's slot, made if it has none. */
  slot(g: number): Slot {
    if (g === this.home) return this;
    if (this.home < 0) {
      this.home = g;
      return this;
    }
    let o = this.others;
    if (o === null) o = this.others = new Array<Slot | null>(this.K).fill(null);
    let s = o[g];
    if (s === null) s = o[g] = new Slot();
    return s;
  }
  /** Gateway g's next request on the key comes at t (KeySyncs.expect): its slot's look-ahead, if it has one. */
  expect(g: number, t: number): void {
    if (g === this.home) this.ahead = t;
    else {
      const s = this.others === null ? null : this.others[g];
      if (s !== null) s.ahead = t;
    }
  }
  /** Gateway g's slot, or NO_SLOT (lim null) if it has none: for reading. */
  peek(g: number): Slot {
    if (g === this.home) return this;
    const o = this.others;
    if (o === null) return NO_SLOT;
    return o[g] ?? NO_SLOT;
  }
  /** Whether any gateway holds the key. */
  anyHeld(): boolean {
    if (this.lim !== null) return true;
    const o = this.others;
    if (o !== null) for (const s of o) if (s !== null && s.lim !== null) return true;
    return false;
  }
  /** Writes the gateways holding the key into hs in place order (byPlace: the clock's order of a round); returns how many. */
  heldInPlaceOrder(byPlace: Int32Array, hs: Int32Array): number {
    const o = this.others;
    if (o === null) {
      if (this.lim === null) return 0;
      hs[0] = this.home;
      return 1;
    }
    let n = 0;
    for (let p = 0; p < this.K; p++) {
      const g = byPlace[p];
      const s = g === this.home ? this : o[g];
      if (s !== null && s.lim !== null) hs[n++] = g;
    }
    return n;
  }
  /** Keys held over all gateways, of every track (KeySyncs.held). */
  static heldOver(tracks: Map<string, KeyTrack>): number {
    let n = 0;
    for (const tr of tracks.values()) n += tr.heldCount();
    return n;
  }
  /** Gateways holding the key. */
  heldCount(): number {
    let n = this.lim !== null ? 1 : 0;
    const o = this.others;
    if (o !== null) for (const s of o) if (s !== null && s.lim !== null) n++;
    return n;
  }
}

/** The fleet's sync schedule, as ReplayFleet keeps it. */
export interface SyncClock {
  readonly K: number;
  /** The gateway of sync index i. */
  gatewayOf(i: number): number;
  /** The instant of sync index i. */
  syncAt(i: number): number;
}

/**
 * The first index from `first` whose instant is at or after x (the instants rise with the index, as
 * the fleet's clock has them); past end + K for none up to there.
 */
export function firstIndexAt(clock: SyncClock, first: number, end: number, x: number): number {
  if (!(x < Number.POSITIVE_INFINITY)) return end + clock.K;
  let j = end;
  while (clock.syncAt(j) < x) j++;
  while (j > first && clock.syncAt(j - 1) >= x) j--;
  return j;
}

/**
 * firstAt(i, x, end) from J = firstIndexAt(…, x): i's gateway's first index at or after J (checked
 * against the instants; firstAt if they disagree).
 */
export function gatewayAt(clock: SyncClock, i: number, J: number, x: number, end: number): number {
  const K = clock.K;
  if (J >= end + K) return end + K;
  const j = J <= i ? i : J + ((((i - J) % K) + K) % K);
  if (clock.syncAt(j) >= x && (j - K < i || clock.syncAt(j - K) < x)) return j;
  return firstAt(clock, i, x, end);
}

/**
 * The first of sync index i's gateway's indices from i (i + m·K) whose instant is at or after x; any
 * index past end + K stands for none below it.
 */
export function firstAt(clock: SyncClock, i: number, x: number, end: number): number {
  const K = clock.K;
  const cap = end + K;
  if (!(x < Number.POSITIVE_INFINITY)) return cap;
  const s = clock.syncAt(i);
  if (s >= x) return i;
  // a guess a Δ short (the instants are i's plus whole Δs), then exact steps
  const m = Math.floor((x - s) / (clock.syncAt(i + K) - s)) - 1;
  let j = m > 0 ? i + m * K : i;
  if (j >= cap) return cap;
  while (j > i && clock.syncAt(j - K) >= x) j -= K;
  while (j < cap && clock.syncAt(j) < x) j += K;
  return j;
}
