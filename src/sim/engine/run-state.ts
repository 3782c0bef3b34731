import { DESIGNS, type Design } from '../../designs/index.js';
import type { KeyLimiter } from '../../designs/key-limiter.js';
import { type LiveFleetParams, resolveGatewayOptions } from '../../gateway/options.js';
import type { SyncRequest } from '../../store/contract.js';
import { MemoryStore } from '../../store/memory-store.js';
import { Random } from '../random.js';
import type { RunParams } from '../types.js';
import type { LinkParams } from './lossy-link.js';
import { RunCounts } from './run-counts.js';
import { SyncClock } from './sync-clock.js';

/** How a run is driven (simulate's options, resolved). */
export interface RunOptions {
  /** arrivals a gateway must reject anyway are counted in one draw (EngineOptions.skip) */
  readonly skip: boolean;
  /** every decision is recorded (EngineOptions.recordDecisions) */
  readonly record: boolean;
  /** every sync runs through the store (EngineOptions.everySync) */
  readonly everySync: boolean;
}

/**
 * What the parts of one run share: its sizes and settings, and the state more than one part reads or
 * writes (each gateway's limiter, sync seq, next sync, next arrival and reply in flight; the store;
 * the counts; the random streams). Built once per run (newRunState) and handed to each part's
 * constructor, so a part names what it shares instead of taking it by position.
 */
export interface RunState extends RunOptions {
  readonly params: RunParams;
  /** K gateways, W the window, Δ the sync interval, L the limit, and the run's end (ms) */
  readonly K: number;
  readonly W: number;
  readonly D: number;
  readonly L: number;
  readonly end: number;
  readonly design: Design;
  /** the gateways' fleet parameters, as a gateway resolves them (one object for the fleet) */
  readonly fleet: LiveFleetParams;
  /**
   * How syncs are scheduled without changing a decision (Design.syncs), or 'every' when each must run:
   * when asked to, with real syncs, or for a design with early syncs (it reads the others' admit
   * rate from successive reads: each one counts).
   */
  readonly syncs: Design['syncs'];
  /** Syncs that take time or can fail (a delay, jitter or loss): every one runs, in order. */
  readonly realSync: boolean;
  readonly link: LinkParams;
  /** the store's one key */
  readonly key: string;
  readonly store: MemoryStore;
  readonly counts: RunCounts;
  /** arrivals and decisions draw from rng; the network (delay jitter, loss) from net */
  readonly rng: Random;
  readonly net: Random;
  /** each gateway's state for the key (null: none held) */
  readonly lims: (KeyLimiter | null)[];
  /** each gateway's last sync seq */
  readonly seq: Int32Array;
  /** each gateway's id (internalized strings: see newRunState) */
  readonly gatewayIds: readonly string[];
  /** the run's one sync request object: the gateway and seq are set per sync */
  readonly request: SyncRequest;
  /** each gateway's sync instants and its next sync */
  readonly clock: SyncClock;
  /** each gateway's next steady arrival, next flood arrival (mixed traffic) and reply in flight (real syncs); Infinity: none */
  readonly nextArr: Float64Array;
  readonly nextFlood: Float64Array;
  readonly replyAt: Float64Array;
}

const KEY = 'k';

export function newRunState(params: RunParams, opts: RunOptions): RunState {
  const K = params.gateways;
  const W = params.windowS * 1000;
  const D = params.syncS * 1000;
  const L = params.limit;
  // the real-world caveats: a delayed reply, a lost one
  const link: LinkParams = {
    delayMs: params.storeDelayMs ?? 0,
    jitterMs: params.storeJitterMs ?? 0,
    loss: params.syncLoss ?? 0,
  };
  const realSync = link.delayMs > 0 || link.jitterMs > 0 || link.loss > 0;
  const { fleet } = resolveGatewayOptions({
    id: 'sim',
    design: params.design,
    limit: L,
    windowMs: W,
    windowKind: params.windowKind,
    gateways: K,
    syncMs: D,
    // Instant syncs are never late, so every decision falls within Δ of the sync it was made on: a
    // horizon of Δ lists every expiry a decision can see (the production default is 4Δ). A reply
    // that takes time, or is lost, is used for longer: then the production default, plus the delay.
    // A lost reply can leave a gateway on an old one for several Δ: then the whole window.
    horizonMs: link.loss > 0 ? W : realSync ? Math.min(W, 4 * D + link.delayMs + link.jitterMs) : D,
    reads: params.reads,
  });
  const design = DESIGNS[params.design];
  // under 'every', the syncs of an idle lease gateway that would be granted exactly what it holds are
  // applied without the store (LeaseKey.fastForwardIdle)
  const syncs =
    (opts.everySync || realSync || design.earlySyncs !== null) && design.syncs === 'lazy'
      ? 'every'
      : design.syncs;
  return {
    ...opts,
    params,
    K,
    W,
    D,
    L,
    end: params.minutes * 60_000,
    design,
    fleet,
    syncs,
    realSync,
    link,
    key: KEY,
    store: new MemoryStore(),
    counts: new RunCounts(),
    rng: new Random(params.seed),
    // the network's draws have their own stream, so the arrivals of a seed are the same with and
    // without them
    net: new Random((params.seed ^ 0x5bd1e995) >>> 0),
    lims: new Array(K).fill(null),
    seq: new Int32Array(K),
    // Property names are internalized: the store's maps, keyed by these ids, then compare keys by
    // identity instead of by content (a built string is not internalized).
    gatewayIds: Object.keys(Object.fromEntries(Array.from({ length: K }, (_, g) => [`g${g}`, 0]))),
    request: {
      gatewayId: '',
      seq: 0,
      policy: fleet.policy,
      leaseTtlMs: fleet.leaseTtlMs,
      horizonMs: fleet.horizonMs,
      entries: [],
    },
    clock: new SyncClock(K, D),
    nextArr: new Float64Array(K).fill(Number.POSITIVE_INFINITY),
    nextFlood: new Float64Array(K).fill(Number.POSITIVE_INFINITY),
    replyAt: new Float64Array(K).fill(Number.POSITIVE_INFINITY),
  };
}
