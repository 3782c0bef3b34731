/**
 * The replay engine: every arrival, in time order, goes to the central log and to each design's fleet
 * (ReplayFleet: the simulator's gateways and store), and its decisions are tallied per key. The central
 * log every design is measured against is the exact sliding log the tallies keep anyway (slot 0: admit
 * iff fewer than L admits in (t − W, t]); asked for as a design, central-log also runs through its
 * fleet like any other, and the tests hold the two equal. Streaming:
 * it holds the keys live within W (its own tallies, the gateways' states, the store's records), never
 * the arrivals; a key with no arrival for a whole window is retired to a summary.
 */
import type { DesignId } from '../../config.js';
import { holdSpares } from '../../window/run-log.js';
import type { Arrival, ArrivalSource, ReadStats } from '../arrival.js';
import { decideChecked } from './checked.js';
import { ArrivalChunk, FIELDS, FLOOD, LOGGED_429 } from './chunk.js';
import { ReplayFleet } from './fleet.js';
import { KeyPool, POOL_CAPACITY } from './key-pool.js';
import { type KeyStats, type KeySummary, summarize } from './key-stats.js';
import { Leaderboard } from './leaderboard.js';
import { LiveKeys } from './live-keys.js';
import type { DesignResult, ReplayResult, ReplaySettings, Timeline } from './result.js';
import { drainSource, type Stage } from './stage.js';
import { topKeys } from './top-keys.js';

/** Record per-key timelines for these keys (a second pass, once the worst keys are known). */
export interface TimelineRequest {
  keys: readonly string[];
  origin: number;
  bucketMs: number;
  buckets: number;
}

/** How the arrivals are decided (ReplayRun's third argument). */
export interface RunOptions {
  /**
   * Decide in key-grouped chunks of at most this many arrivals: the fleets that allow it
   * (ReplayFleet.keyGrouped) and the tallies key by key, the other fleets at each push, in time
   * order; absent or 0: everything in time order, each arrival at its push.
   */
  chunk?: number;
  /** Called after each arrival is decided, with its number in the stream and `decided` (tests). */
  onDecide?: (seq: number, decided: Uint8Array) => void;
  /** The most retired keys' objects kept for reuse (KeyPool; tests: 0, every key a fresh one). */
  pool?: number;
}

/**
 * The replay's chunk: a key comes back every few seconds on a busy log, so a chunk must span many
 * seconds to hold several of its arrivals: 131,072 lines is a minute of the bench log's 2,000 a
 * second. The engine's sweep, every W, flushes it too, so it spans less than W, and a fleet's keys
 * (its sweeps wait for the flush) follow the keys live within 2 W. Its arrays take 8 bytes a number
 * of an arrival's row (4 + the designs, the central log's included), twice (ArrivalChunk.gather), and
 * ~25 bytes more: ~120 bytes an arrival with one design, ~15 MB in all.
 */
export const REPLAY_CHUNK = 131_072;

const CENTRAL: DesignId = 'central-log';

export class ReplayRun {
  /** The reference central log first, then every design asked for, each once (central-log too). */
  readonly order: DesignId[];
  /** A fleet per design of `order`, from index 1 (index 0, the reference, has none). */
  private fleets: (ReplayFleet | null)[] = [];
  private readonly live = new LiveKeys();
  /** Retired keys' objects, reused for new keys. */
  private readonly pool: KeyPool;
  private readonly board: Leaderboard;
  private readonly W: number;
  private readonly L: number;
  private origin = Number.NaN;
  private last = Number.NaN;
  private nextSweep = Number.NaN;
  // totals per design (index into `order`)
  private readonly requests: Float64Array;
  private readonly admitted: Float64Array;
  private readonly honest: Float64Array;
  private readonly over: Float64Array;
  private readonly keysOver: Float64Array;
  private readonly worst: Float64Array;
  private readonly worstKey: string[];
  /** The arrival number that set worst[i]: of equal worst windows, the first in time names the key. */
  private readonly worstSeq: Float64Array;
  /** Key-grouped arrivals not yet decided (null: in time order). */
  private chunk: ArrivalChunk | null = null;
  /**
   * Per design in `order`: its fleet decides at the chunk's flush (1), or at the push, in time order
   * (0), or at the flush before the others, checked (2: src/replay/run/checked.ts).
   */
  private grouped = new Uint8Array(0);
  /** The grouped fleets that decide a chunk with its look-ahead (ReplayFleet.looksAhead). */
  private ahead: ReplayFleet[] = [];
  private arrivals = 0;
  private floods = 0;
  private keys = 0;
  private peakLive = 0;
  private logRejected = 0;
  private logRejectedCentralAdmits = 0;
  /** Non-flood arrivals the central log rejects. */
  private centralRejected = 0;
  private readonly timelines: Map<string, Timeline> | null;
  /** The last arrival's decision per design, in `order` (1 admitted): tests read it after each push. */
  readonly decided: Uint8Array;

  constructor(
    readonly settings: ReplaySettings,
    private readonly timeline: TimelineRequest | null = null,
    private readonly options: RunOptions = {},
  ) {
    const s = settings;
    if (!Number.isInteger(s.gateways) || s.gateways < 1)
      throw new RangeError(`gateways: must be an integer ≥ 1, got ${s.gateways}`);
    if (!Number.isInteger(s.limit) || s.limit < 1)
      throw new RangeError(`limit: must be an integer ≥ 1, got ${s.limit}`);
    if (!(s.windowMs > 0)) throw new RangeError(`windowMs: must be > 0, got ${s.windowMs}`);
    if (!(s.syncMs > 0)) throw new RangeError(`syncMs: must be > 0, got ${s.syncMs}`);
    this.order = [CENTRAL, ...new Set(s.designs)];
    this.W = s.windowMs;
    this.L = s.limit;
    const n = this.order.length;
    this.requests = new Float64Array(n);
    this.admitted = new Float64Array(n);
    this.honest = new Float64Array(n);
    this.over = new Float64Array(n);
    this.keysOver = new Float64Array(n);
    this.worst = new Float64Array(n);
    this.worstKey = new Array(n).fill('');
    this.worstSeq = new Float64Array(n);
    this.decided = new Uint8Array(n);
    this.pool = new KeyPool(n, options.pool ?? POOL_CAPACITY);
    this.board = new Leaderboard(Math.max(1000, 20 * s.top));
    this.timelines = timeline === null ? null : new Map();
    if (timeline !== null)
      for (const key of timeline.keys) {
        const zeros = () => new Array<number>(timeline.buckets).fill(0);
        this.timelines!.set(key, {
          key,
          origin: timeline.origin,
          bucketMs: timeline.bucketMs,
          requests: zeros(),
          designs: this.order.map((design) => ({ design, admitted: zeros(), rejected: zeros() })),
        });
      }
  }

  private start(t: number): void {
    this.origin = t;
    this.nextSweep = t + this.W;
    const s = this.settings;
    this.fleets = this.order.map((design, i) =>
      i === 0
        ? null
        : new ReplayFleet({
            design,
            gateways: s.gateways,
            limit: s.limit,
            windowMs: s.windowMs,
            syncMs: s.syncMs,
            seed: s.seed,
            origin: t,
            ...(s.reads === undefined ? {} : { reads: s.reads }),
          }),
    );
    const chunk = this.options.chunk ?? 0;
    if (chunk > 0) {
      this.chunk = new ArrivalChunk(chunk, this.order.length, s.gateways);
      this.grouped = Uint8Array.from(this.fleets, (f) => (f?.keyGrouped ? (f.checked ? 2 : 1) : 0));
      this.ahead = this.fleets.filter((f): f is ReplayFleet => f?.keyGrouped === true && f.looksAhead);
      for (const f of this.fleets) if (f?.keyGrouped) f.holdSweeps();
    }
  }

  /** One arrival; arrivals come in ascending t (ties in any order). */
  push(a: Arrival): void {
    const t = a.t;
    if (!Number.isFinite(t)) throw new RangeError(`arrival t: must be a finite time in ms, got ${t}`);
    if (t < this.last)
      throw new RangeError(`arrivals out of time order: t = ${t} after ${this.last} (key ${a.key})`);
    const g = a.gateway;
    if (!Number.isInteger(g) || g < 0 || g >= this.settings.gateways)
      throw new RangeError(
        `arrival gateway: must be an integer in [0, ${this.settings.gateways}) (--gateways), got ${g} (key ${a.key})`,
      );
    if (Number.isNaN(this.origin)) this.start(t);
    this.last = t;
    if (t >= this.nextSweep) {
      // the keys retired must have every arrival decided
      this.flush();
      this.sweep(t);
    }
    const seq = this.arrivals++;
    const flood = a.flood === true;
    if (flood) this.floods++;
    let st = this.live.get(a.key);
    if (st === undefined) st = this.enter(a.key, t);
    st.lastSeen = t;
    if (flood) st.floodRequests++;
    const flags = (flood ? FLOOD : 0) | (a.status === 429 ? LOGGED_429 : 0);
    const chunk = this.chunk;
    if (chunk === null) {
      this.decide(st, t, g, flags, seq, null, 0);
      return;
    }
    // the cross-key part in time order: each grouped fleet's clock; the others' whole decision
    const fleets = this.fleets;
    const grouped = this.grouped;
    const base = chunk.add(st, t, g, flags, seq);
    for (let i = 1; i < fleets.length; i++) {
      const f = fleets[i]!;
      chunk.data[base + i] = grouped[i] !== 0 ? f.clockTo(t) : f.arrive(st.key, g, t) ? 1 : 0;
    }
    if (chunk.full) this.flush();
  }

  /** Decides the chunk's arrivals, key by key, each key's in time order. */
  flush(): void {
    const c = this.chunk;
    if (c === null || c.size === 0) return;
    // the checked fleets first: each leaves its decisions where a time-ordered fleet's are
    for (let i = 1; i < this.fleets.length; i++)
      if (this.grouped[i] === 2) decideChecked(c, this.fleets[i]!, i);
    c.gather();
    const { keys, data, stride } = c;
    // no later chunk's request comes before this one's last
    const ahead = this.ahead;
    for (const f of ahead) f.lookAhead(this.last);
    for (let j = 0; j < c.keyCount; j++) {
      const st = keys[j]!;
      if (ahead.length > 0) {
        c.lookAhead(st);
        for (const f of ahead) f.expect(st.key, c.firstG, c.firstT, c.firstN);
      }
      for (let s = st.chunkHead; s !== -1; ) {
        const at = s * stride;
        const gf = data[at + 2];
        this.decide(st, data[at], gf >> 2, gf & 3, data[at + 1], data, at + FIELDS - 1);
        s = data[at + 3];
      }
    }
    for (const f of ahead) f.stopLookAhead();
    c.clear();
    // the sweeps that fell due in the chunk, now that every arrival before them is decided
    for (const f of this.fleets) f?.sweepHeld();
  }

  /**
   * One arrival decided by every design and tallied: in time order (`ends` null: each fleet's
   * `arrive`), or from a chunk: a grouped fleet's `decideAt` after the sync index its clock gave
   * (ends[base + i]; ends[base]: the key's next arrival on g, ArrivalChunk.lookAhead), another's
   * decision taken at the push (ends[base + i], 1 admitted).
   */
  private decide(
    st: KeyStats,
    t: number,
    g: number,
    flags: number,
    seq: number,
    ends: Float64Array | null,
    base: number,
  ): void {
    const flood = (flags & FLOOD) !== 0;
    const fleets = this.fleets;
    const W = this.W;
    const L = this.L;
    // the live key's own string, not the line's: the gateways' and stores' maps hold the first one
    // they were given, and a lookup with that same string matches on identity, without reading a
    // cold copy's characters (a line's key is a fresh string every time)
    const key = st.key;
    const tl = this.timelines === null ? undefined : this.timelines.get(key);
    const bucket = tl === undefined ? -1 : this.bucketOf(t);
    if (bucket >= 0) tl!.requests[bucket]++;
    const centralOk = st.designs[0].liveAt(t, W) < L;
    for (let i = 0; i < fleets.length; i++) {
      const ok =
        i === 0
          ? centralOk
          : ends === null
            ? fleets[i]!.arrive(key, g, t)
            : this.grouped[i] === 1
              ? fleets[i]!.decideAt(key, g, t, ends[base + i], ends[base])
              : ends[base + i] === 1;
      this.decided[i] = ok ? 1 : 0;
      const d = st.designs[i];
      d.requests++;
      this.requests[i]++;
      if (ok) {
        d.admitted++;
        this.admitted[i]++;
        const n = d.admit(t, W);
        if (n > d.worst) {
          d.worst = n;
          if (n > this.worst[i] || (n === this.worst[i] && seq < this.worstSeq[i])) {
            this.worst[i] = n;
            this.worstKey[i] = key;
            this.worstSeq[i] = seq;
          }
        }
        if (n > L) {
          if (d.overAdmitted === 0) this.keysOver[i]++;
          d.overAdmitted++;
          st.affected = true;
          this.over[i]++;
        }
      } else {
        d.rejected++;
        if (!flood && centralOk) {
          d.honestRejected++;
          st.affected = true;
          this.honest[i]++;
        }
      }
      if (bucket >= 0) {
        const row = tl!.designs[i];
        if (ok) row.admitted[bucket]++;
        else row.rejected[bucket]++;
      }
    }
    if (!flood && !centralOk) this.centralRejected++;
    if ((flags & LOGGED_429) !== 0 && !flood) {
      st.logRejected++;
      this.logRejected++;
      if (centralOk) this.logRejectedCentralAdmits++;
    }
    if (this.options.onDecide !== undefined) this.options.onDecide(seq, this.decided);
  }

  private bucketOf(t: number): number {
    const tl = this.timeline!;
    const b = Math.floor((t - tl.origin) / tl.bucketMs);
    return b >= 0 && b < tl.buckets ? b : -1;
  }

  private enter(key: string, t: number): KeyStats {
    const st = this.pool.take(key, t);
    st.prior = this.board.take(key);
    this.live.add(st);
    this.keys++;
    if (this.live.size > this.peakLive) this.peakLive = this.live.size;
    return st;
  }

  /** Retires the keys with no arrival for a whole window: their trailing windows are empty. */
  private sweep(t: number): void {
    const W = this.W;
    this.live.sweep(
      (st) => t - st.lastSeen >= W,
      (st) => {
        // a key no design treated differently, with no kept past, the board would drop: not summarized
        if (st.worthSummary) this.board.offer(summarize(st));
        this.pool.give(st);
      },
      // seen at or after its entry, a key entered within W of t is not done
      (entered) => t - entered < W,
    );
    this.nextSweep = t + this.W;
  }

  /** Keys live now (tests: memory follows these). */
  get liveKeys(): number {
    return this.live.size;
  }

  /** Keys held by every fleet's gateways and stores now (tests). */
  heldState(): { gatewayKeys: number; storeKeys: number } {
    let gatewayKeys = 0;
    let storeKeys = 0;
    for (const f of this.fleets) {
      if (f === null) continue;
      gatewayKeys += f.keysHeld;
      storeKeys += f.storeKeys;
    }
    return { gatewayKeys, storeKeys };
  }

  /** The figures, once the stream has ended. */
  finish(read: ReadStats | null = null): ReplayResult {
    this.flush();
    const spanS = this.arrivals > 0 ? (this.last - this.origin) / 1000 : 0;
    const nonFlood = this.arrivals - this.floods;
    const rows: DesignResult[] = this.order.map((design, i) => {
      // the reference is the central log's work: one store call per request
      const calls = i === 0 ? this.requests[0] : (this.fleets[i]?.storeCalls() ?? 0);
      const keySyncs = i === 0 ? 0 : (this.fleets[i]?.keySyncs() ?? 0);
      const onPath = i === 0 ? this.requests[0] : (this.fleets[i]?.requestPathCalls() ?? 0);
      return {
        design,
        requests: this.requests[i],
        admitted: this.admitted[i],
        rejected: this.requests[i] - this.admitted[i],
        honestRejected: this.honest[i],
        honestRejectedPct: nonFlood > 0 ? (100 * this.honest[i]) / nonFlood : 0,
        overAdmitted: this.over[i],
        keysOverLimit: this.keysOver[i],
        worstWindow: this.worst[i] / this.L,
        worstKey: this.worstKey[i],
        roundTripsPerRequest: this.requests[i] > 0 ? onPath / this.requests[i] : 0,
        storeCalls: calls,
        storeCallsPerSec: spanS > 0 ? calls / spanS : 0,
        keySyncs,
        keySyncsPerSec: spanS > 0 ? keySyncs / spanS : 0,
      };
    });
    // every key's whole history: the live ones, and the retired ones the board kept
    const all: KeySummary[] = [...this.board.values()];
    // a key no design treated differently, with no kept past, is in no list (topKeys keeps scores > 0)
    for (const st of this.live.values()) if (st.worthSummary) all.push(summarize(st));
    const top = this.settings.designs.map((design) =>
      topKeys(design, this.order.indexOf(design, 1), all, this.L, this.settings.top),
    );
    const central = rows[0];
    const out: ReplayResult = {
      settings: this.settings,
      from: this.arrivals > 0 ? this.origin : Number.NaN,
      to: this.arrivals > 0 ? this.last : Number.NaN,
      arrivals: this.arrivals,
      floodArrivals: this.floods,
      keys: this.keys,
      peakLiveKeys: this.peakLive,
      logRejected: this.logRejected,
      centralRejected: this.centralRejected,
      logRejectedCentralAdmits: this.logRejectedCentralAdmits,
      central,
      designs: this.settings.designs.map((d) => rows[this.order.indexOf(d, 1)]),
      top,
      rankingPruned: this.board.pruned,
      read,
    };
    if (this.timelines !== null) out.timelines = [...this.timelines.values()];
    return out;
  }
}

/**
 * Replays a whole source, through `stages` (an attack's overlay) first. Every whole replay runs here:
 * many quiet keys hand their admit logs back at once, kept for the next keys while it runs (holdSpares).
 */
export async function replay(
  source: ArrivalSource,
  settings: ReplaySettings,
  timeline: TimelineRequest | null = null,
  stages: readonly Stage[] = [],
): Promise<ReplayResult> {
  const release = holdSpares();
  try {
    const run = new ReplayRun(settings, timeline, { chunk: REPLAY_CHUNK });
    await drainSource(source, stages, (a) => run.push(a));
    return run.finish(source.stats());
  } finally {
    release();
  }
}
