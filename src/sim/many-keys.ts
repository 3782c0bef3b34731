/**
 * Many keys: a key population on K gateways, on virtual time. Unlike the single-key engine, this drives
 * the library's own `Gateway` (one per simulated gateway, holding a state machine per key) over one
 * `MemoryStore`, so what it measures — store calls, keys carried per sync, keys held per gateway — is
 * what the library does, not a model of it. It is simpler and slower than the engine: every request
 * goes through `Gateway.admit`, every sync through `Gateway.sync`.
 *
 * Traffic: the honest client of key r (1-based popularity rank) arrives at load / r^S × L per W (Zipf
 * popularity; the hottest key at `load`, so no honest key is over its limit while load ≤ 1), steady
 * Poisson or page loads (bursts of 10 requests 100 ms apart), each request routed as the single-key
 * engine routes (even, or gateway i ∝ 1/i). On top, each of `floodKeys` keys (the most popular, or
 * drawn at random) gets a flood of `floodLoad` × L per W, spread over the gateways or sent to one
 * (`attack`). The sum of independent Poisson streams is one Poisson stream whose arrivals pick their
 * key by rate, so the whole population costs one clock per kind of traffic, not one per key.
 */
import type { DesignId } from '../config.js';
import { Gateway } from '../gateway/gateway.js';
import type {
  AskReply,
  AskRequest,
  LogAdmitReply,
  LogAdmitRequest,
  Store,
  SyncEntry,
  SyncReply,
  SyncRequest,
  SyncResult,
} from '../store/contract.js';
import type { InProcessSync } from '../store/in-process.js';
import { MemoryStore } from '../store/memory-store.js';
import { PassThroughStore } from '../store/pass-through.js';
import type { CoversEvery } from '../util/covers-every.js';
import { MinHeap } from '../util/min-heap.js';
import { routingWeights, runSimulation } from './engine.js';
import { KEY_BYTES } from './key-bytes.js';
import { gatewayPicker, keyPicker, SyncCostMeter } from './many-keys-parts.js';
import { Random } from './random.js';
import { METRIC_KEYS, VERSION } from './run.js';
import { type SeedsResult, seedMeans } from './seed-means.js';
import type { FloodPick, KeyCostMetrics, RunMetrics, RunParams } from './types.js';

/** The many-keys parameters' defaults (a run with `keys` > 1 and these fields absent). */
export const MANY_KEYS_DEFAULTS = {
  popularity: 1,
  floodKeys: 1,
  floodPick: 'hot',
  floodLoad: 100,
} as const satisfies Partial<RunParams>;

export const MANY_KEY_METRICS = [
  'syncKeysPerSec',
  'keyOpsPerSec',
  'keysPerSync',
  'keysPerSyncMax',
  'keysPerGateway',
  'keysPerGatewayMax',
  'bytesPerGateway',
  'storeKeys',
  'storeKeysMax',
  'unfloodedRejectedPct',
] as const satisfies readonly (keyof KeyCostMetrics)[];

// a metric added to KeyCostMetrics without a place in the list fails the type-check here
export const MANY_KEY_METRICS_COVER_EVERY_FIELD: CoversEvery<
  KeyCostMetrics,
  (typeof MANY_KEY_METRICS)[number]
> = true;

export type ManyKeysMetrics = RunMetrics & KeyCostMetrics;

/** One scripted request (tests): at t ms, key of rank index `key` (0-based), at gateway `gateway`. */
export interface ScriptedArrival {
  t: number;
  key: number;
  gateway: number;
  /** counts as flood, not honest (default false) */
  flood?: boolean;
}

export interface ManyKeysOptions {
  /** Replaces the generated traffic with these requests (ascending t). */
  script?: readonly ScriptedArrival[];
}

/** Zipf popularity weights of ranks 1..n, normalized to sum 1: rank r ∝ 1/r^s, most popular first. */
export function zipfWeights(n: number, s: number): Float64Array {
  const w = new Float64Array(n);
  let sum = 0;
  for (let r = 0; r < n; r++) sum += w[r] = (r + 1) ** -s;
  for (let r = 0; r < n; r++) w[r] /= sum;
  return w;
}

/** Σ 1/r^s for r = 1..n: the honest traffic of n keys in units of the hottest key's. */
export function zipfTotal(n: number, s: number): number {
  let sum = 0;
  for (let r = n; r >= 1; r--) sum += r ** -s; // smallest first: fewer rounding errors
  return sum;
}

/** The flooded keys' indexes (0-based ranks), ascending. */
export function floodedKeys(n: number, m: number, pick: FloodPick, seed: number): number[] {
  if (m > n) throw new RangeError(`floodKeys: must not exceed keys (${n}), got ${m}`);
  if (pick === 'hot') return Array.from({ length: m }, (_, i) => i);
  // its own stream: the same seed floods the same keys whatever the traffic
  const rng = new Random((seed ^ 0x2545f491) >>> 0);
  const chosen = new Set<number>();
  while (chosen.size < m) chosen.add(Math.min(n - 1, Math.floor(rng.uniform() * n)));
  return [...chosen].sort((a, b) => a - b);
}

/** Passes every call to the memory store and counts its calls by kind (syncs, logAdmits, asks), as the simulation reports them (replay counts the same). */
export class CountingStore extends PassThroughStore<MemoryStore> implements Store, InProcessSync {
  syncCalls = 0;
  logAdmits = 0;
  asks = 0;
  get keyCount(): number {
    return this.inner.keyCount;
  }
  override logAdmit(req: LogAdmitRequest, now: number): LogAdmitReply {
    this.logAdmits++;
    return this.inner.logAdmit(req, now);
  }
  override sync(req: SyncRequest, now: number): SyncResult {
    this.syncCalls++;
    return this.inner.sync(req, now);
  }
  override ask(req: AskRequest, now: number): AskReply {
    this.asks++;
    return this.inner.ask(req, now);
  }
  /** InProcessSync, the memory store's: a sync taken entry by entry is one sync call, counted here. */
  openSync(req: SyncRequest, now: number): boolean {
    if (!this.inner.openSync(req, now)) return false;
    this.syncCalls++;
    return true;
  }
  syncNext(req: SyncRequest, entry: SyncEntry, now: number, out: SyncReply): SyncReply {
    return this.inner.syncNext(req, entry, now, out);
  }
}

/** Per-key admits: after the first window (admitted per window) and in the trailing W (worst window, over L). */
class KeyTally {
  private readonly after: Float64Array;
  private readonly worst: Int32Array;
  private readonly logs: (number[] | undefined)[];
  private readonly heads: Int32Array;
  private readonly fixedIdx: Float64Array;
  private readonly fixedCount: Int32Array;
  overLimit = 0;

  constructor(
    n: number,
    private readonly W: number,
    private readonly L: number,
    private readonly fixed: boolean,
  ) {
    this.after = new Float64Array(n);
    this.worst = new Int32Array(n);
    this.logs = new Array(n);
    this.heads = new Int32Array(n);
    this.fixedIdx = new Float64Array(n).fill(-1);
    this.fixedCount = new Int32Array(n);
  }

  admit(k: number, t: number): void {
    const W = this.W;
    if (t >= W) this.after[k]++;
    let log = this.logs[k];
    if (log === undefined) log = this.logs[k] = [];
    let h = this.heads[k];
    while (h < log.length && t - log[h] >= W) h++;
    if (h > 64 && h * 2 > log.length) {
      log.splice(0, h);
      h = 0;
    }
    this.heads[k] = h;
    log.push(t);
    const live = log.length - h;
    if (live > this.worst[k]) this.worst[k] = live;
    if (this.fixed) {
      const idx = Math.floor(t / W);
      if (idx !== this.fixedIdx[k]) {
        this.fixedIdx[k] = idx;
        this.fixedCount[k] = 0;
      }
      if (++this.fixedCount[k] === this.L + 1) this.overLimit++;
    } else if (live > this.L) this.overLimit++;
  }

  /** Admits after the first window summed over `keys`, and the worst window among them. */
  over(keys: readonly number[]): { afterSum: number; worst: number } {
    let afterSum = 0;
    let worst = 0;
    for (const k of keys) {
      afterSum += this.after[k];
      worst = Math.max(worst, this.worst[k]);
    }
    return { afterSum, worst };
  }
}

/** One run (one seed) of N keys on K library gateways over one memory store. */
export function runManyKeys(params: RunParams, opts: ManyKeysOptions = {}): ManyKeysMetrics {
  const { N, S, M, floodLoad, pick } = populationOf(params);
  const K = params.gateways;
  const W = params.windowS * 1000;
  const L = params.limit;
  const end = params.minutes * 60_000;
  const design: DesignId = params.design;
  const memory = new MemoryStore();
  const store = new CountingStore(memory);
  const gws = gatewaysOf(params, store);
  const names = Array.from({ length: N }, (_, r) => `k${r}`);
  const rng = new Random(params.seed);

  const pickKey = keyPicker(rng, N, S);
  const pickGateway = gatewayPicker(rng, routingWeights(params.routing, K));
  const flooded = floodedKeys(N, M, pick, params.seed);
  const isFlooded = new Uint8Array(N);
  for (const k of flooded) isFlooded[k] = 1;
  const pickGatewayForFlood = (): number =>
    params.attack === 'pick' ? 0 : Math.min(K - 1, Math.floor(rng.uniform() * K));

  // clocks (ms): honest steady arrivals, honest page-load bursts and their queued requests, the flood
  const script = opts.script;
  const honestRate = (params.load * L * zipfTotal(N, S)) / W;
  const pageload = params.traffic === 'pageload';
  const floodRate = M > 0 ? (M * floodLoad * L) / W : 0;
  const INF = Number.POSITIVE_INFINITY;
  let nextHonest = script === undefined && !pageload && honestRate > 0 ? rng.exponential(honestRate) : INF;
  let nextBurst = script === undefined && pageload && honestRate > 0 ? rng.exponential(honestRate / 10) : INF;
  let nextFlood = script === undefined && floodRate > 0 ? rng.exponential(floodRate) : INF;
  const queued = new MinHeap<number>(); // page-load requests: key × K + gateway
  let scriptAt = 0;

  const { order, syncAt } = syncSchedule(params, rng);
  let syncIdx = 0;

  const tally = new KeyTally(N, W, L, params.windowKind === 'fixed');
  const out = new Outcomes();
  const arrive = (k: number, g: number, t: number, honest: boolean) => {
    const ok = gws[g].admit(names[k], t).allowed;
    if (ok) tally.admit(k, t);
    out.count(ok, honest, isFlooded[k] === 0);
  };

  // cost, over the steady state: syncs at s >= from (the first window fills the key set)
  const from = end > W ? W : 0;
  const cost = new SyncCostMeter();

  for (;;) {
    const s = syncAt(syncIdx);
    const nextScripted = script !== undefined && scriptAt < script.length ? script[scriptAt].t : INF;
    const nextQueued = queued.peekTime();
    const t = Math.min(s, nextHonest, nextBurst, nextQueued, nextFlood, nextScripted);
    if (!(t < end)) break;
    if (s === t) {
      const g = order[syncIdx % K];
      syncIdx++;
      const gw = gws[g];
      const before = gw.keyCount;
      const stats = gw.sync(s);
      if (s >= from) cost.sample(before, stats.keys, store);
    } else if (nextScripted === t) {
      const a = script![scriptAt++];
      arrive(a.key, a.gateway, t, a.flood !== true);
    } else if (nextQueued === t) {
      const code = queued.pop()!;
      arrive(Math.floor(code / K), code % K, t, true);
    } else if (nextHonest === t) {
      arrive(pickKey(), pickGateway(), t, true);
      nextHonest = t + rng.exponential(honestRate);
    } else if (nextBurst === t) {
      const k = pickKey();
      for (let i = 0; i < 10; i++) queued.push(t + i * 100, k * K + pickGateway());
      nextBurst = t + rng.exponential(honestRate / 10);
    } else {
      const k = flooded[M === 1 ? 0 : Math.min(M - 1, Math.floor(rng.uniform() * M))];
      arrive(k, pickGatewayForFlood(), t, false);
      nextFlood = t + rng.exponential(floodRate);
    }
  }

  // the keys watched for over-admission: the flooded ones, or the hottest when nothing is flooded
  const watched = M > 0 ? flooded : [0];
  const windowsAfterFirst = Math.max(end - W, 0) / W;
  const { afterSum, worst } = tally.over(watched);
  // early syncs (Design.earlySyncs) are store work too: their keys count with the regular syncs' (all
  // of the run's: they come with floods, which run from the start)
  for (const gw of gws) cost.entries.sum += gw.earlySyncKeys;
  const pathCalls = store.logAdmits + store.asks;
  const steadyS = (end - from) / 1000;
  const keysPerGateway = cost.mean(cost.held);
  // the fields in MANY_KEYS_METRIC_KEYS' order (a result's JSON lists them so)
  return {
    admittedPerWindow: windowsAfterFirst > 0 ? afterSum / watched.length / windowsAfterFirst / L : 0,
    worstWindow: worst / L,
    rejectedPct: out.requests > 0 ? (100 * out.rejected) / out.requests : 0,
    roundTripsPerRequest: out.requests > 0 ? pathCalls / out.requests : 0,
    syncs: store.syncCalls,
    requests: out.requests,
    admitted: out.admitted,
    windowsOverLimit: tally.overLimit,
    strandedPct: 0,
    latencyMs: 0,
    storeOpsPerSec: end > 0 ? ((store.syncCalls + pathCalls) * 1000) / end : 0,
    honestRejectedPct: out.honestRequests > 0 ? (100 * out.honestRejected) / out.honestRequests : 0,
    onsetWorst: 0,
    syncKeysPerSec: steadyS > 0 ? cost.entries.sum / steadyS : 0,
    keyOpsPerSec: steadyS > 0 ? (cost.entries.sum + cost.pathCallsSince(pathCalls)) / steadyS : 0,
    keysPerSync: cost.mean(cost.entries),
    keysPerSyncMax: cost.entries.max,
    keysPerGateway,
    keysPerGatewayMax: cost.held.max,
    bytesPerGateway: keysPerGateway * KEY_BYTES[design],
    storeKeys: cost.mean(cost.storeKeys),
    storeKeysMax: cost.storeKeys.max,
    unfloodedRejectedPct: out.calmRequests > 0 ? (100 * out.calmRejected) / out.calmRequests : 0,
  };
}

/**
 * The syncs: gateway g at phase[g] + n·Δ (phases drawn now, one per gateway); sorted by phase, they
 * come round-robin: sync i is gateway order[i % K]'s, at syncAt(i).
 */
function syncSchedule(params: RunParams, rng: Random): { order: number[]; syncAt: (i: number) => number } {
  const K = params.gateways;
  const D = params.syncS * 1000;
  const phase = Array.from({ length: K }, () => (params.alignedSyncs ? 0 : rng.uniform() * D));
  const order = Array.from({ length: K }, (_, g) => g).sort((a, b) => phase[a] - phase[b] || a - b);
  return { order, syncAt: (i: number) => phase[order[i % K]] + Math.floor(i / K) * D };
}

/** K library gateways of the run's design over one store. */
function gatewaysOf(params: RunParams, store: Store): Gateway[] {
  const K = params.gateways;
  return Array.from(
    { length: K },
    (_, g) =>
      new Gateway(
        {
          id: `g${g}`,
          design: params.design,
          limit: params.limit,
          windowMs: params.windowS * 1000,
          windowKind: params.windowKind,
          gateways: K,
          syncMs: params.syncS * 1000,
          reads: params.reads,
        },
        store,
      ),
  );
}

/** The run's requests by outcome: all, honest ones, and honest ones on keys no flood hits (calm). */
class Outcomes {
  requests = 0;
  rejected = 0;
  admitted = 0;
  honestRequests = 0;
  honestRejected = 0;
  calmRequests = 0;
  calmRejected = 0;

  count(ok: boolean, honest: boolean, calm: boolean): void {
    this.requests++;
    if (ok) this.admitted++;
    else this.rejected++;
    if (!honest) return;
    this.honestRequests++;
    if (!ok) this.honestRejected++;
    if (calm) {
      this.calmRequests++;
      if (!ok) this.calmRejected++;
    }
  }
}

/** The run's population parameters, defaulted and checked (a bad one throws naming it). */
function populationOf(params: RunParams): {
  N: number;
  S: number;
  M: number;
  floodLoad: number;
  pick: FloodPick;
} {
  const N = params.keys ?? 1;
  const S = params.popularity ?? MANY_KEYS_DEFAULTS.popularity;
  const M = params.floodKeys ?? MANY_KEYS_DEFAULTS.floodKeys;
  const floodLoad = params.floodLoad ?? MANY_KEYS_DEFAULTS.floodLoad;
  const pick: FloodPick = params.floodPick ?? MANY_KEYS_DEFAULTS.floodPick;
  if (!Number.isInteger(N) || N < 1) throw new RangeError(`keys: must be an integer ≥ 1, got ${N}`);
  if (!(S >= 0) || !Number.isFinite(S)) throw new RangeError(`popularity: must be ≥ 0, got ${S}`);
  if (!Number.isInteger(M) || M < 0) throw new RangeError(`floodKeys: must be an integer ≥ 0, got ${M}`);
  if (params.traffic !== 'steady' && params.traffic !== 'pageload') {
    throw new RangeError(`traffic: many keys take steady or pageload honest traffic, got ${params.traffic}`);
  }
  if ((params.storeDelayMs ?? 0) > 0 || (params.storeJitterMs ?? 0) > 0 || (params.syncLoss ?? 0) > 0) {
    throw new RangeError('storeDelayMs, storeJitterMs, syncLoss: not simulated with many keys');
  }
  return { N, S, M, floodLoad, pick };
}

/** Every metric a many-keys run reports: the single-key engine's, then its own. */
export const MANY_KEYS_METRIC_KEYS = [...METRIC_KEYS, ...MANY_KEY_METRICS] as const;

export type ManyKeysSeedsResult = SeedsResult<ManyKeysMetrics>;

/** runSeeds for many keys: the mean over seeds of every metric, with each seed's value kept. */
export function runManyKeysSeeds(params: Omit<RunParams, 'seed'>, seeds: number[]): ManyKeysSeedsResult {
  const runs = seeds.map((seed) => runManyKeys({ ...params, seed }));
  return { params, seeds, ...seedMeans(runs, MANY_KEYS_METRIC_KEYS), version: VERSION };
}

/** A study run's parameters go to the many-keys simulation when they hold more than one key. */
export function isManyKeys(p: Pick<RunParams, 'keys'>): boolean {
  return p.keys !== undefined && p.keys > 1;
}

/** One study run: many keys when it holds more than one, else the single-key engine. */
export function simulateRun(p: RunParams): RunMetrics | ManyKeysMetrics {
  return isManyKeys(p) ? runManyKeys(p) : runSimulation(p);
}
