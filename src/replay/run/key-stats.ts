/**
 * What the replay counts per key, per design: admits in the trailing window (the worst window and the
 * admits beyond L), honest rejections against the central log. Held only while the key is live; a key
 * with no arrival for a whole window is retired to a summary (see leaderboard.ts).
 */

/**
 * A tally's first log: 8 slots of a block shared by 512 tallies (an ArrayBuffer of 32 KB, off the
 * JS heap), not a typed array of its own. On a log of quiet keys ~150,000 keys are live at once,
 * each made anew until the pool (KeyPool) has as many: a log of its own per tally, two heap objects
 * promoted with the key, took the collector from 16 % to 24 % of central-log's CPU (K = 4, random,
 * /tmp/replay-tail.log). A block is let go once no tally holds a slot of it; a busy key's tally
 * grows out of its slot into a log of its own (a busy key's ~12 admits in a minute grow it once,
 * and a pooled tally keeps it).
 */
const FIRST_CAPACITY = 8;
const BLOCK_TALLIES = 512;
let block = new Float64Array(0);
let blockNext = 0;

/**
 * The largest log a reused tally keeps (`reset`): a flood key's log, grown to its busiest window, is
 * let go for its first slot rather than held by the pool for a quiet key that needs a few.
 */
const KEPT_CAPACITY = 64;

/** One design's counts on one key. */
export class DesignTally {
  requests = 0;
  admitted = 0;
  rejected = 0;
  /** Non-flood requests the central log admits and this design rejects. */
  honestRejected = 0;
  /** Admits that left more than L in the trailing window. */
  overAdmitted = 0;
  /** The most admits in any window W (live count right after an admit). */
  worst = 0;
  /**
   * Admit times still in the trailing window: a ring of `len` from `head`, its capacity a power of
   * two that only grows (to the key's busiest window). A plain array compacted by splicing was copied
   * again and again over the key's life, long-lived garbage for the collector's old generation.
   */
  private log: Float64Array;
  /** The ring's first slot in `log` and its capacity (a power of two). */
  private base: number;
  private cap = FIRST_CAPACITY;
  private head = 0;
  private len = 0;
  /** The tally's slot in a shared block, where its log starts and comes back to (`reset`). */
  private readonly home: Float64Array;
  private readonly homeBase: number;

  constructor() {
    if (blockNext === block.length) {
      block = new Float64Array(BLOCK_TALLIES * FIRST_CAPACITY);
      blockNext = 0;
    }
    this.home = this.log = block;
    this.homeBase = this.base = blockNext;
    blockNext += FIRST_CAPACITY;
  }

  /** Back to a new key's zero counts and empty window (its log reused unless it grew large). */
  reset(): void {
    this.requests = 0;
    this.admitted = 0;
    this.rejected = 0;
    this.honestRejected = 0;
    this.overAdmitted = 0;
    this.worst = 0;
    this.head = 0;
    this.len = 0;
    if (this.cap > KEPT_CAPACITY) {
      this.log = this.home;
      this.base = this.homeBase;
      this.cap = FIRST_CAPACITY;
    }
  }

  /** Admits in the trailing window (t − W, t] before one at t: the central log admits iff this is < L. */
  liveAt(t: number, W: number): number {
    this.dropExpired(t, W);
    return this.len;
  }

  /** An admit at t; returns the admits in the trailing window (t − W, t] after it. */
  admit(t: number, W: number): number {
    this.dropExpired(t, W);
    if (this.len === this.cap) this.grow();
    this.log[this.base + ((this.head + this.len) & (this.cap - 1))] = t;
    return ++this.len;
  }

  private dropExpired(t: number, W: number): void {
    const log = this.log;
    const base = this.base;
    const mask = this.cap - 1;
    let h = this.head;
    let n = this.len;
    while (n > 0 && t - log[base + h] >= W) {
      h = (h + 1) & mask;
      n--;
    }
    this.head = h;
    this.len = n;
  }

  private grow(): void {
    const old = this.log;
    const next = new Float64Array(2 * this.cap);
    const mask = this.cap - 1;
    for (let i = 0; i < this.len; i++) next[i] = old[this.base + ((this.head + i) & mask)];
    this.log = next;
    this.base = 0;
    this.cap = next.length;
    this.head = 0;
  }
}

/** A live key: its name, counts per design (index 0 is the central log) and what the log recorded. */
export class KeyStats {
  key: string;
  /** The key's hash in the live keys' table (LiveKeys). */
  hash = 0;
  lastSeen: number;
  /** Arrivals the log recorded as 429 (rejected by today's limiter). */
  logRejected = 0;
  floodRequests = 0;
  private readonly tallies: DesignTally[];
  /** Reset since the tallies were last read: they still hold the last key's counts (see `designs`). */
  private stale = false;
  /**
   * A design treated the key differently in this stretch (a tally's honestRejected or overAdmitted
   * above 0, its leaderboard score > 0): set by what counts them (ReplayRun.decide), so that
   * `worthSummary`, asked of every retiring key, reads this object alone, not its tallies (cold, three
   * objects more).
   */
  affected = false;
  /** What the key did before it last went idle, if the leaderboard kept it. */
  prior: KeySummary | undefined = undefined;
  /** The key's first and last arrival in the engine's chunk (ArrivalChunk; −1: none there). */
  chunkHead = -1;
  chunkTail = -1;
  /** The key's place in the chunk's `keys`, and its arrivals there (when chunkHead is not −1). */
  chunkIndex = 0;
  chunkCount = 0;

  constructor(key: string, designs: number, t: number) {
    this.key = key;
    this.lastSeen = t;
    const tallies: DesignTally[] = [];
    for (let i = 0; i < designs; i++) tallies.push(new DesignTally());
    this.tallies = tallies;
  }

  /**
   * Counts per design (index 0 the central log). A reset key's are zeroed here, at their first read:
   * the engine resets a key as it enters, and decides its arrivals only at the chunk's flush, up to a
   * minute of lines later, when the tallies are out of the processor's caches again either way.
   */
  get designs(): DesignTally[] {
    if (this.stale) {
      this.stale = false;
      for (const d of this.tallies) d.reset();
    }
    return this.tallies;
  }

  /** A retired key's object made a new key's (KeyPool): every count zero, as if just constructed. */
  reset(key: string, t: number): void {
    this.key = key;
    this.lastSeen = t;
    this.logRejected = 0;
    this.floodRequests = 0;
    this.prior = undefined;
    this.affected = false;
    this.chunkHead = -1;
    this.chunkTail = -1;
    this.stale = true;
  }

  /**
   * Whether the leaderboard would keep the key on its retirement (`Leaderboard.offer`): a design
   * treated it differently in this stretch, or the board kept an earlier one (whose score the merge
   * keeps). Else its summary would be dropped, so it need not be made.
   */
  get worthSummary(): boolean {
    return this.prior !== undefined || this.affected;
  }
}

/** A retired key's figures: enough to rank it and to show it in the report. */
export interface KeySummary {
  key: string;
  requests: number;
  floodRequests: number;
  logRejected: number;
  /** per design, in the run's order (index 0 the central log) */
  honestRejected: number[];
  overAdmitted: number[];
  worst: number[];
  admitted: number[];
}

/** The key's figures over the whole replay so far (its earlier stretches merged in). */
export function summarize(s: KeyStats): KeySummary {
  const now = summarizeStretch(s);
  return s.prior === undefined ? now : mergeSummaries(s.prior, now);
}

function summarizeStretch(s: KeyStats): KeySummary {
  return {
    key: s.key,
    requests: s.designs[0].requests,
    floodRequests: s.floodRequests,
    logRejected: s.logRejected,
    honestRejected: s.designs.map((d) => d.honestRejected),
    overAdmitted: s.designs.map((d) => d.overAdmitted),
    worst: s.designs.map((d) => d.worst),
    admitted: s.designs.map((d) => d.admitted),
  };
}

/** Two stretches of one key (it went idle and came back): one summary. */
export function mergeSummaries(a: KeySummary, b: KeySummary): KeySummary {
  const add = (x: number[], y: number[]) => x.map((v, i) => v + y[i]);
  return {
    key: a.key,
    requests: a.requests + b.requests,
    floodRequests: a.floodRequests + b.floodRequests,
    logRejected: a.logRejected + b.logRejected,
    honestRejected: add(a.honestRejected, b.honestRejected),
    overAdmitted: add(a.overAdmitted, b.overAdmitted),
    worst: a.worst.map((v, i) => Math.max(v, b.worst[i])),
    admitted: add(a.admitted, b.admitted),
  };
}
