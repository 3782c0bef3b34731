/**
 * The per-key syncs' bookkeeping (KeySyncs, src/replay/run/key-syncs.ts): one key's slots over the
 * gateways, allocated as gateways come to hold it, and the index arithmetic of the fleet's sync
 * schedule that lets a run pass a gateway's skipped syncs in one step.
 */
import type { KeyLimiter } from '../../designs/key-limiter.js';

/**
 * A slot's limiter and the fields a run reads for every holder (from, ahead, parkFrom, parkStop), by
 * gateway in arrays of the key's (KeyTrack.ls; KeyTrack.fs, field f of gateway g at [f·w + g], w the
 * gateways the arrays cover): a run over 32 holders read them from 32 cold objects, each double a
 * heap number of its own, and a sync read the limiter through its slot (shared-counter at K = 32
 * random: a third of the run's time; leases: a third of its run's, on parkFrom).
 */
const FROM = 0;
const AHEAD = 1;
const PARK_FROM = 2;
const PARK_STOP = 3;
const FIELDS = 4;

/** Zeros in a packed double array (made from a double, so it never holds a boxed one): `doubles`' source. */
const ZEROS = [Number.NaN];
ZEROS[0] = 0;

/**
 * n zeros in a packed double array of its own, its size exact (a slice of ZEROS): a Float64Array cost
 * each key a typed array, its buffer and backing store (on a log of quiet keys nearly every line
 * makes a key: promoted garbage).
 */
function doubles(n: number): number[] {
  while (ZEROS.length < n) ZEROS.push(0);
  return ZEROS.slice(0, n);
}

export class Slot {
  /** The key's arrays (KeyTrack's) and this slot's place in them. */
  protected ls: (KeyLimiter | null)[];
  protected fs: number[];
  protected idx: number;
  /**
   * A lease design's parked syncs here (LeaseSteps.park): from index parkFrom (−1: none) below
   * parkStop (both in the key's array), each answered with parkHeld slots, not yet applied to `lim`;
   * parkFull: they rely on the store staying full.
   */
  parkHeld = 0;
  parkFull = false;
  /** The tick of this gateway's last read of the key (ReadSteps: idle reads; −1 none). */
  readAt = -1;
  constructor(ls: (KeyLimiter | null)[], fs: number[], idx: number) {
    this.ls = ls;
    this.fs = fs;
    this.idx = idx;
    const w = ls.length;
    ls[idx] = null;
    fs[FROM * w + idx] = Number.NEGATIVE_INFINITY;
    fs[AHEAD * w + idx] = Number.NEGATIVE_INFINITY;
    fs[PARK_FROM * w + idx] = -1;
    fs[PARK_STOP * w + idx] = 0;
  }
  /** Where field f of this slot's gateway is in `fs` (the arrays cover `ls.length` gateways). */
  protected cell(f: number): number {
    return f * this.ls.length + this.idx;
  }
  /** The key's state there (null: not held). */
  get lim(): KeyLimiter | null {
    return this.ls[this.idx];
  }
  set lim(l: KeyLimiter | null) {
    this.ls[this.idx] = l;
  }
  /** The instant from which this gateway's syncs of the key must run again (lazy skips; −∞: every one runs). */
  get from(): number {
    return this.fs[this.cell(FROM)];
  }
  set from(x: number) {
    this.fs[this.cell(FROM)] = x;
  }
  /**
   * A lower bound of this gateway's next request on the key, as the chunk being decided tells
   * (KeySyncs.lookAhead): +∞ for none left in the chunk it was set in (the chunk's end bounds it then);
   * −∞ unknown.
   */
  get ahead(): number {
    return this.fs[this.cell(AHEAD)];
  }
  set ahead(x: number) {
    this.fs[this.cell(AHEAD)] = x;
  }
  get parkFrom(): number {
    return this.fs[this.cell(PARK_FROM)];
  }
  set parkFrom(x: number) {
    this.fs[this.cell(PARK_FROM)] = x;
  }
  get parkStop(): number {
    return this.fs[this.cell(PARK_STOP)];
  }
  set parkStop(x: number) {
    this.fs[this.cell(PARK_STOP)] = x;
  }
}

/** A gateway's slot where it has none: never held (nothing writes to it). */
const NO_SLOT: Slot = newSlot();

/** A slot of its own arrays (one that stands for none: nothing writes to it). */
export function newSlot(): Slot {
  return new Slot([null], doubles(FIELDS), 0);
}

/**
 * One key's place in the schedule: the slot of the first gateway to hold it (its home) in the record
 * itself, the others' allocated as they come (one object per key while one gateway holds it: hash
 * routing, or K = 1). Its arrays cover the home alone until another gateway comes, then every
 * gateway, by gateway (`limOf`, `fromOf`, `aheadOf`).
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
    super([null], doubles(FIELDS), 0);
    this.next = next;
    this.nextEarly = nextEarly;
    this.K = K;
  }
  /** Where field f of gateway g (one with a slot) is in `fs`: the home's alone until widened, then by gateway. */
  private at(f: number, g: number): number {
    return this.ls.length === 1 ? f : f * this.K + g;
  }
  /** The limiter of gateway g (one with a slot; the home, or any once widened), from the key's array. */
  limOf(g: number): KeyLimiter | null {
    return this.ls[this.ls.length === 1 ? 0 : g];
  }
  /** Its `from` (as `limOf`). */
  fromOf(g: number): number {
    return this.fs[this.at(FROM, g)];
  }
  /** Sets its `from` (as `limOf`). */
  setFrom(g: number, x: number): void {
    this.fs[this.at(FROM, g)] = x;
  }
  /** Its `ahead` (as `limOf`). */
  aheadOf(g: number): number {
    return this.fs[this.at(AHEAD, g)];
  }
  /** Its `parkFrom` (as `limOf`). */
  parkFromOf(g: number): number {
    return this.fs[this.at(PARK_FROM, g)];
  }
  /** Its `parkStop` (as `limOf`). */
  parkStopOf(g: number): number {
    return this.fs[this.at(PARK_STOP, g)];
  }
  /** Gateway g's slot, made if it has none. */
  slot(g: number): Slot {
    if (g === this.home) return this;
    if (this.home < 0) {
      this.home = g;
      return this;
    }
    let o = this.others;
    if (o === null) o = this.others = this.widen();
    let s = o[g];
    if (s === null) s = o[g] = new Slot(this.ls, this.fs, g);
    return s;
  }
  /** Another gateway comes: arrays over every gateway, the home's moved into them. */
  private widen(): (Slot | null)[] {
    const K = this.K;
    const h = this.home;
    if (this.ls.length !== K) {
      const ls = new Array<KeyLimiter | null>(K).fill(null);
      const fs = doubles(FIELDS * K);
      ls[h] = this.ls[this.idx];
      const w = this.ls.length;
      for (let f = 0; f < FIELDS; f++) fs[f * K + h] = this.fs[f * w + this.idx];
      this.ls = ls;
      this.fs = fs;
      this.idx = h;
    }
    return new Array<Slot | null>(K).fill(null);
  }
  /**
   * The limiters again from the slots (KeyCheckpoints.restore: a slot a checked chunk made is dropped
   * from `others`, its limiter left in the array).
   */
  restored(): void {
    const o = this.others;
    if (o === null) {
      // widened in the chunk: no other slot now
      if (this.ls.length > 1) for (let g = 0; g < this.K; g++) if (g !== this.home) this.ls[g] = null;
      return;
    }
    for (let g = 0; g < this.K; g++) if (g !== this.home && o[g] === null) this.ls[g] = null;
  }
  /**
   * Gateway g's next request on the key comes at t (KeySyncs.expect): its slot's look-ahead, if it has
   * one. Once widened, written into the key's array whether g has a slot or not (one made later sets
   * its own, and only holders' are read): a chunk's first requests wrote through up to K cold slots.
   */
  expect(g: number, t: number): void {
    if (this.ls.length !== 1) this.fs[AHEAD * this.K + g] = t;
    else if (g === this.home) this.ahead = t;
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
    const ls = this.ls;
    if (ls.length === 1) {
      if (ls[0] === null) return 0;
      hs[0] = this.home;
      return 1;
    }
    // the array, not the slots: a gateway without a slot has null there
    let n = 0;
    for (let p = 0; p < this.K; p++) {
      const g = byPlace[p];
      if (ls[g] !== null) hs[n++] = g;
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
  /** The instant of sync index i: base[p] + n·D, for i = n·K + p. */
  syncAt(i: number): number;
  /** syncAt's terms: by place, a round's first instants (origin + phase), and the gateways' period Δ. */
  readonly base: Float64Array;
  readonly D: number;
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
  // the instants of i's gateway, as syncAt computes them (b + n·D, n the round): not its calls, whose
  // doubles came back boxed where they were not inlined (shared-counter, tail log: 63 B a line)
  const D = clock.D;
  const n = Math.floor(i / K);
  const b = clock.base[i - n * K];
  const s = b + n * D;
  if (s >= x) return i;
  // a guess a Δ short (the instants are i's plus whole Δs), then exact steps
  const m = Math.floor((x - s) / (b + (n + 1) * D - s)) - 1;
  let j = m > 0 ? i + m * K : i;
  if (j >= cap) return cap;
  let r = (j - i) / K + n;
  while (j > i && b + (r - 1) * D >= x) {
    j -= K;
    r--;
  }
  while (j < cap && b + r * D < x) {
    j += K;
    r++;
  }
  return j;
}
