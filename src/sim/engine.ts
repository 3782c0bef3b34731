import { DESIGNS } from '../designs/index.js';
import { ALLOW, type FleetParams, type KeyLimiter, NEED_STORE } from '../designs/key-limiter.js';
import { LeaseKey } from '../designs/leases.js';
import { resolveGatewayOptions } from '../gateway/options.js';
import type { SyncEntry, SyncReply, SyncRequest } from '../store/contract.js';
import { MemoryStore } from '../store/memory-store.js';
import { Random } from './random.js';
import type { RunMetrics, RunParams } from './types.js';

export interface EngineOptions {
  /**
   * Count the arrivals a gateway must reject anyway in one Poisson draw (default true). While a
   * gateway's decision cannot change before its next sync or its next known expiry, every arrival in
   * that span is rejected; how many arrive is one draw. Exact in distribution.
   */
  skip?: boolean;
  /** Record every request's decision in order (the per-arrival checks). Implies skip = false. */
  recordDecisions?: boolean;
  /**
   * Run every sync of every gateway through the store (default false: syncs that cannot change a
   * decision are skipped or fast-forwarded). The tests compare both, decision by decision.
   */
  everySync?: boolean;
}

export interface RunOutput extends RunMetrics {
  decisions?: Uint8Array;
}

const KEY = 'k';

/** Weights of each gateway for a request: even, or proportional to 1/i. */
export function routingWeights(routing: RunParams['routing'], k: number): Float64Array {
  const w = new Float64Array(k);
  let sum = 0;
  for (let i = 0; i < k; i++) sum += w[i] = routing === 'even' ? 1 : 1 / (i + 1);
  for (let i = 0; i < k; i++) w[i] /= sum;
  return w;
}

/** Page-load arrivals drawn ahead at most (a bound on the queue when a gateway gets few of them). */
const MAX_LOOKAHEAD = 400;

/** Pulsed traffic: the flood is on for PULSE_ON_MS every PULSE_EVERY_MS, the first pulse at PULSE_EVERY_MS. */
export const PULSE_ON_MS = 2_000;
export const PULSE_EVERY_MS = 120_000;

/**
 * A tournament tree over the gateways' next event times: O(log K) update, O(1) minimum.
 * Leaf K is the page-load stream.
 */
class EventTree {
  readonly size: number;
  /** Per node (leaves at size + i): the earliest time below it and its leaf (the left one on a tie). */
  private readonly time: Float64Array;
  private readonly win: Int32Array;

  constructor(leaves: number) {
    let size = 1;
    while (size < leaves) size *= 2;
    this.size = size;
    this.time = new Float64Array(2 * size).fill(Number.POSITIVE_INFINITY);
    this.win = new Int32Array(2 * size);
    for (let i = 0; i < size; i++) this.win[size + i] = i;
    for (let n = size - 1; n >= 1; n--) this.win[n] = this.win[2 * n];
  }

  set(leaf: number, t: number): void {
    const n = leaf + this.size;
    // the tree is a function of the leaves' times: the same time changes nothing
    if (this.time[n] === t) return;
    this.time[n] = t;
    this.up(n);
  }

  /**
   * set(leaf, min(a[leaf], b[leaf])). The time is not an argument: a double passed to a call the JIT
   * did not inline is boxed, a heap allocation per event.
   */
  setMin(leaf: number, a: Float64Array, b: Float64Array): void {
    const t = Math.min(a[leaf], b[leaf]);
    const n = leaf + this.size;
    if (this.time[n] === t) return;
    this.time[n] = t;
    this.up(n);
  }

  /** Replays the path from leaf node n (its time just set) to the root. */
  private up(n: number): void {
    const time = this.time;
    const win = this.win;
    // the new winner of each node on the path is the path's winner so far or the sibling's; the
    // time is read back from the array (the same double) so that the JIT keeps it unboxed
    let bestT = time[n];
    let best = win[n];
    while (n > 1) {
      const sib = n ^ 1;
      const st = time[sib];
      if (n & 1 ? !(bestT < st) : st < bestT) {
        bestT = st;
        best = win[sib];
      }
      n >>= 1;
      time[n] = bestT;
      win[n] = best;
    }
  }

  minLeaf(): number {
    return this.win[1];
  }

  minTime(): number {
    return this.time[1];
  }
}

/**
 * Instants in ascending order, equal ones in the order they came, each with a tag (the page-load
 * queue: arrival instants and their gateways). Taken from the front, added mostly at the back.
 */
class InstantQueue {
  private time = new Float64Array(16);
  private tag = new Int32Array(16);
  private head = 0;
  length = 0;

  /** The earliest instant (Infinity when empty). */
  first(): number {
    return this.length > 0 ? this.time[this.head] : Number.POSITIVE_INFINITY;
  }

  firstTag(): number {
    return this.tag[this.head];
  }

  shift(): void {
    this.head++;
    if (--this.length === 0) this.head = 0;
  }

  /** Adds t after every instant at or before it. */
  insert(t: number, tag: number): void {
    if (this.head + this.length === this.time.length) this.makeRoom();
    const time = this.time;
    const tags = this.tag;
    let j = this.head + this.length;
    while (j > this.head && time[j - 1] > t) {
      time[j] = time[j - 1];
      tags[j] = tags[j - 1];
      j--;
    }
    time[j] = t;
    tags[j] = tag;
    this.length++;
  }

  private makeRoom(): void {
    const from = this.head;
    const to = from + this.length;
    if (this.length < this.time.length / 2) {
      this.time.copyWithin(0, from, to);
      this.tag.copyWithin(0, from, to);
    } else {
      const time = new Float64Array(2 * this.time.length);
      const tag = new Int32Array(2 * this.time.length);
      time.set(this.time.subarray(from, to));
      tag.set(this.tag.subarray(from, to));
      this.time = time;
      this.tag = tag;
    }
    this.head = 0;
  }
}

/** One simulated run of one key on virtual time. The decisions are the library's own state machines. */
export function runSimulation(params: RunParams, opts: EngineOptions = {}): RunOutput {
  return simulate(params, opts, null);
}

/**
 * Whether a run's decisions cannot depend on Δ: a design that never syncs (central-log, split) with
 * syncs that take no time and never fail. Only its sync count, and the store load that follows from
 * it, change with Δ; see runAcrossSyncIntervals.
 */
export function decisionsIgnoreSync(p: RunParams): boolean {
  return (
    DESIGNS[p.design].syncs === 'never' &&
    !((p.storeDelayMs ?? 0) > 0 || (p.storeJitterMs ?? 0) > 0 || (p.syncLoss ?? 0) > 0)
  );
}

/**
 * The same run at several sync intervals, simulated once: for a run whose decisions ignore Δ
 * (decisionsIgnoreSync), every draw and decision is the same whatever Δ is (a gateway's sync phase is
 * one uniform draw scaled by Δ), so only `syncs` and `storeOpsPerSec` are recomputed, from the same
 * phase draws. The result for each Δ equals runSimulation's for that Δ exactly (tested).
 */
export function runAcrossSyncIntervals(params: RunParams, syncValues: readonly number[]): RunOutput[] {
  if (!decisionsIgnoreSync(params)) {
    throw new RangeError(
      `runAcrossSyncIntervals: the decisions of ${params.design} here depend on the sync interval`,
    );
  }
  if (syncValues.length === 0) return [];
  const probe: Probe = { phaseDraws: new Float64Array(params.gateways), roundTrips: 0 };
  const first = simulate({ ...params, syncS: syncValues[0] }, {}, probe);
  const end = params.minutes * 60_000;
  return syncValues.map((syncS, i) => {
    if (i === 0) return first;
    const D = syncS * 1000;
    const phase = probe.phaseDraws.map((u) => (params.alignedSyncs ? 0 : u * D));
    const syncs = scheduledSyncs(phase, D, end);
    return { ...first, syncs, storeOpsPerSec: end > 0 ? ((syncs + probe.roundTrips) * 1000) / end : 0 };
  });
}

/** What runAcrossSyncIntervals needs from a run beyond its metrics. */
interface Probe {
  /** Each gateway's sync-phase draw, in [0, 1) (0 with aligned syncs). */
  phaseDraws: Float64Array;
  roundTrips: number;
}

/** Every gateway syncs every Δ from its phase until the end, whether or not the simulator ran that sync. */
function scheduledSyncs(phase: Float64Array, D: number, end: number): number {
  let syncs = 0;
  for (let g = 0; g < phase.length; g++) if (phase[g] < end) syncs += Math.ceil((end - phase[g]) / D);
  return syncs;
}

function simulate(params: RunParams, opts: EngineOptions, probe: Probe | null): RunOutput {
  const record = opts.recordDecisions === true;
  const skip = !record && opts.skip !== false;
  const K = params.gateways;
  const W = params.windowS * 1000;
  const D = params.syncS * 1000;
  const L = params.limit;
  const end = params.minutes * 60_000;
  // the real-world caveats: a delayed reply, a lost one, a picked gateway
  const delayMs = params.storeDelayMs ?? 0;
  const jitterMs = params.storeJitterMs ?? 0;
  const loss = params.syncLoss ?? 0;
  const pick = params.attack === 'pick';
  /** Syncs that take time or can fail run every one of them, in order (no lazy or fast-forwarded syncs). */
  const realSync = delayMs > 0 || jitterMs > 0 || loss > 0;
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
    horizonMs: loss > 0 ? W : realSync ? Math.min(W, 4 * D + delayMs + jitterMs) : D,
  });
  const policy = fleet.policy;
  const everySync = opts.everySync === true;
  const traits = DESIGNS[params.design];
  // how syncs are scheduled without changing a decision (Design.syncs), or all run when asked to; under
  // 'every', the syncs of an idle lease gateway that would be granted exactly what it holds are applied
  // without the store (LeaseKey.fastForwardIdle)
  const kind = (everySync || realSync) && traits.syncs === 'lazy' ? 'every' : traits.syncs;
  const rng = new Random(params.seed);
  // the network's draws (delay jitter, loss) have their own stream, so the arrivals of a seed are the
  // same with and without them
  const net = new Random((params.seed ^ 0x5bd1e995) >>> 0);
  const store = new MemoryStore();

  // traffic: per-gateway Poisson streams (steady, flood) or page-load bursts; pulsed and onset
  // traffic add a flood stream per gateway (on/off) to a steady honest client
  const mixed = params.traffic === 'pulsed' || params.traffic === 'onset';
  const floodOnly = params.traffic === 'flood';
  const ratePerMs = (params.load * L) / W;
  const weights = routingWeights(params.routing, K);
  const cumWeights = new Float64Array(K);
  for (let i = 0, c = 0; i < K; i++) cumWeights[i] = c += weights[i];
  const pageload = params.traffic === 'pageload';
  const lambda = new Float64Array(K);
  for (let g = 0; g < K; g++) {
    if (pageload) lambda[g] = 0;
    else if (floodOnly && pick) lambda[g] = g === 0 ? ratePerMs : 0;
    else lambda[g] = ratePerMs * weights[g];
  }
  const burstRate = ratePerMs / 10;
  // the flood part of pulsed and onset traffic
  const floodRate = mixed ? ((params.floodLoad ?? 1000) * L) / W : 0;
  const floodLambda = new Float64Array(K);
  for (let g = 0; g < K; g++) floodLambda[g] = pick ? (g === 0 ? floodRate : 0) : floodRate / K;
  const onsetAt = params.traffic === 'onset' ? 2 * W : params.traffic === 'pulsed' ? PULSE_EVERY_MS : -1;
  const pulseOn = params.traffic === 'pulsed' ? PULSE_ON_MS : Number.POSITIVE_INFINITY;
  const nextFlood = new Float64Array(K).fill(Number.POSITIVE_INFINITY);
  /** The next flood arrival at g after t: the flood is on in [onsetAt + n·period, + pulseOn). Memoryless, so exact. */
  const drawFlood = (g: number, t: number): number => {
    const rate = floodLambda[g];
    if (!(rate > 0)) return Number.POSITIVE_INFINITY;
    let at = Math.max(t, onsetAt);
    for (;;) {
      if (pulseOn === Number.POSITIVE_INFINITY) return at + rng.exponential(rate);
      const n = Math.floor((at - onsetAt) / PULSE_EVERY_MS);
      const start = onsetAt + n * PULSE_EVERY_MS;
      if (at < start + pulseOn) {
        const x = at + rng.exponential(rate);
        if (x < start + pulseOn) return x;
      }
      at = start + PULSE_EVERY_MS;
    }
  };

  const lims: (KeyLimiter | null)[] = new Array(K).fill(null);
  const nextArr = new Float64Array(K).fill(Number.POSITIVE_INFINITY);
  // sync instants are phase + n·Δ, always computed from n so that skipping syncs changes no instant
  const nextSync = new Float64Array(K);
  const nextSyncIdx = new Float64Array(K);
  const phase = new Float64Array(K);
  const seq = new Int32Array(K);
  // leaves: one per gateway, then the page-load stream, then the store watch (parked lease gateways),
  // only those a run uses (a shallower tree); they keep their order, so equal times resolve the same
  const leaseDesign = traits.grants;
  // every request of a log design asks the store (Design.requestPath), the rejected ones too
  const logPath = traits.requestPath === 'log';
  const PAGELOAD = pageload ? K : -1;
  const WATCH = leaseDesign ? K + (pageload ? 1 : 0) : -1;
  const tree = new EventTree(K + (pageload ? 1 : 0) + (leaseDesign ? 1 : 0));

  for (let g = 0; g < K; g++) {
    const u = params.alignedSyncs ? 0 : rng.uniform();
    if (probe !== null) probe.phaseDraws[g] = u;
    phase[g] = params.alignedSyncs ? 0 : u * D;
    nextSync[g] = kind === 'never' ? Number.POSITIVE_INFINITY : phase[g];
    nextSyncIdx[g] = 0;
    if (!pageload && lambda[g] > 0) nextArr[g] = rng.exponential(lambda[g]);
    if (mixed) nextFlood[g] = drawFlood(g, 0);
  }
  // page loads: each burst is 10 requests 100 ms apart, each routed on its own
  const plQueue = new InstantQueue();
  // each gateway's own arrivals in the queue: its first is the first of the queue's with its tag
  const plMine = pageload ? Array.from({ length: K }, () => new InstantQueue()) : [];
  let nextBurst = pageload && burstRate > 0 ? rng.exponential(burstRate) : Number.POSITIVE_INFINITY;
  const pickGateway = (): number => {
    const u = rng.uniform();
    for (let i = 0; i < K - 1; i++) if (u < cumWeights[i]) return i;
    return K - 1;
  };
  const nextPageload = (): number => Math.min(nextBurst, plQueue.first());
  /** Draws the next burst: its 10 arrivals join the queue (bursts may overlap: kept sorted). */
  const drawBurst = () => {
    for (let i = 0; i < 10; i++) {
      const at = nextBurst + i * 100;
      const g = pickGateway();
      plQueue.insert(at, g);
      plMine[g].insert(at, g);
    }
    nextBurst += rng.exponential(burstRate);
  };
  // a sync's reply in flight (realSync): when it arrives, and what it carries
  const replyAt = new Float64Array(K).fill(Number.POSITIVE_INFINITY);
  // replies in flight and flood arrivals exist only with real syncs and mixed traffic (else Infinity)
  const extraEvents = realSync || mixed;
  const refresh = (g: number) => {
    if (extraEvents) tree.set(g, Math.min(nextArr[g], nextSync[g], replyAt[g], nextFlood[g]));
    else tree.setMin(g, nextArr, nextSync);
  };
  for (let g = 0; g < K; g++) refresh(g);
  if (pageload) tree.set(PAGELOAD, nextPageload());

  // metrics
  let requests = 0;
  let rejected = 0;
  let admitted = 0;
  let admittedAfterFirstWindow = 0;
  let roundTrips = 0;
  let returnedSum = 0;
  let leaseSyncs = 0;
  let waitMs = 0;
  let honestRequests = 0;
  let honestRejected = 0;
  let onsetWorst = 0;
  const onsetEnd = onsetAt >= 0 ? onsetAt + W : Number.NEGATIVE_INFINITY;
  const recent = new Float64Array(1 << 12);
  let recentBuf = recent;
  let rHead = 0;
  let rLen = 0;
  let worst = 0;
  let overLimit = 0;
  let fixedIdx = -1;
  let fixedCount = 0;
  const fixed = params.windowKind === 'fixed';
  const decisions: number[] | null = record ? [] : null;

  const noteAdmit = (t: number) => {
    admitted++;
    if (t >= W) admittedAfterFirstWindow++;
    // trailing W-long span ending at t
    let mask = recentBuf.length - 1;
    while (rLen > 0 && t - recentBuf[rHead] >= W) {
      rHead = (rHead + 1) & mask;
      rLen--;
    }
    if (rLen === recentBuf.length) {
      const grown = new Float64Array(recentBuf.length * 2);
      for (let i = 0; i < rLen; i++) grown[i] = recentBuf[(rHead + i) & mask];
      recentBuf = grown;
      rHead = 0;
      mask = grown.length - 1;
    }
    recentBuf[(rHead + rLen) & mask] = t;
    rLen++;
    if (rLen > worst) worst = rLen;
    if (t >= onsetAt && t < onsetEnd && rLen > onsetWorst) onsetWorst = rLen;
    if (fixed) {
      const idx = Math.floor(t / W);
      if (idx !== fixedIdx) {
        fixedIdx = idx;
        fixedCount = 0;
      }
      if (++fixedCount === L + 1) overLimit++;
    } else if (rLen > L) overLimit++;
  };

  const limiterOf = (g: number, t: number): KeyLimiter => {
    let lim = lims[g];
    if (lim === null) {
      lim = lims[g] = traits.create(fleet, t);
      readVersion[g] = -1;
    }
    return lim;
  };

  const roundTripMs = (): number => (jitterMs > 0 ? delayMs + jitterMs * net.uniform() : delayMs);

  /** One request at gateway g at time t; returns whether it was admitted. */
  const arrive = (g: number, t: number): boolean => {
    const lim = limiterOf(g, t);
    requests++;
    const v = lim.decide(t, 1);
    let ok: boolean;
    if (v === NEED_STORE) {
      roundTrips++;
      if (realSync) waitMs += roundTripMs();
      ok = logPath
        ? lim.onLogReply(store.logAdmit(KEY, policy, t, 1), t, 1)
        : lim.onAskReply(
            store.ask(gatewayIds[g], KEY, policy, fleet.leaseTtlMs, lim.askSize(1), t, seq[g]),
            t,
            1,
          );
    } else ok = v === ALLOW;
    if (ok) noteAdmit(t);
    else rejected++;
    if (decisions !== null) decisions.push(ok ? 1 : 0);
    return ok;
  };

  const request: SyncRequest = {
    gatewayId: '',
    seq: 0,
    policy,
    leaseTtlMs: fleet.leaseTtlMs,
    horizonMs: fleet.horizonMs,
    entries: [],
  };
  // Property names are internalized: the store's maps, keyed by these ids, then compare keys by
  // identity instead of by content (a built string is not internalized).
  const gatewayIds = Object.keys(Object.fromEntries(Array.from({ length: K }, (_, g) => [`g${g}`, 0])));
  // doSync applies each reply at once (no design keeps the reply object): one object serves them all
  const reply: SyncReply = { count: 0, expiries: [], horizon: 0, granted: 0, grantExpiresAt: 0 };

  /**
   * Unchanged reads (lazy designs, the flood's common case): a sync with nothing to push, while the
   * store is as the gateway's last sync left it and nothing in it expires before this sync's horizon,
   * is skipped. Why that changes nothing: let s_p be the gateway's last sync and s this one, with no
   * push by any gateway since s_p (storeVersion; a lazy design makes no other store call), the
   * store's count at s the same as its reply at s_p said (readCount: with nothing added, nothing was
   * dropped either, so the store holds what it held after s_p; asking drops what expired by s, as
   * the sync at s would first), and its oldest admit expiring at or after s + H (H the reply's
   * horizon). Then every admit in the store expires at or after s + H > s_p + H: both replies list
   * no expiry and carry the same count. The gateway pushed nothing since s_p (a read), so
   * its pending and in-flight logs are empty, and every own admit still counting is in the store
   * (pushed at or before s_p, unexpired then): the own-admit log the share designs (track-share,
   * adaptive) measure at a sync loses nothing in (s_p, s], and their share comes out of the same
   * numbers. What a synced design keeps from a reply beyond that (horizon, lastSyncAt) decides
   * nothing, and its cached decision inputs recompute to the same values. The store's side of the
   * sync (the gateway's seq, pruning nothing, a sweep that keeps the non-empty record) changes
   * nothing later syncs see. So the sync leaves the gateway as it is, and whether it goes idle is
   * the same question. The tests compare decisions with everySync, which runs every one.
   */
  let storeVersion = 0;
  /** Per gateway: storeVersion after its last sync (−1: its limiter has not synced), and the store's count then. */
  const readVersion = new Float64Array(K).fill(-1);
  const readCount = new Float64Array(K);
  const horizonMs = fleet.horizonMs;

  const doSync = (g: number, s: number) => {
    const lim = lims[g];
    if (lim !== null) {
      const unchanged =
        kind === 'lazy' &&
        readVersion[g] === storeVersion &&
        lim.unsyncedAdmits() === 0 &&
        store.countOf(KEY, policy, s) === readCount[g] &&
        store.headExpiry(KEY) >= s + horizonMs;
      const entry = unchanged ? null : lim.syncEntry(KEY, s);
      if (entry !== null) {
        request.gatewayId = gatewayIds[g];
        request.seq = ++seq[g];
        store.syncKey(request, entry, s, reply);
        if (leaseDesign) {
          returnedSum += (lim as LeaseKey).lastReturned;
          leaseSyncs++;
        }
        lim.applySync(reply, s);
        if (kind === 'lazy') {
          if (entry.admits.length > 0) storeVersion++;
          readVersion[g] = storeVersion;
          readCount[g] = reply.count;
        }
      }
      // the gateway drops a key's state once nothing of it is left
      if (lim.isIdle(s)) lims[g] = null;
    }
  };

  // Real-world syncs (realSync): a sync is taken at s and applied by the store at s (if it lands);
  // its reply reaches the gateway at s + delay. A lost sync (probability `loss`) landed at the store
  // or not, half and half; the gateway learns it failed at s + delay and, as the runtime does, keeps
  // the request whole and resends it (same seq, same entry) at its next sync instant: the store
  // applies a seq once, so the resend pushes nothing twice if the first landed. Once the resend is
  // answered, a fresh sync goes out at once. One sync in flight per gateway: a sync instant that
  // finds one in flight is skipped.
  const pendEntry: (SyncEntry | null)[] = new Array(K).fill(null);
  const pendReply: (SyncReply | null)[] = new Array(K).fill(null);
  /** 0: no reply pending; 1: a fresh sync's reply; 2: a resend's reply */
  const pendKind = new Uint8Array(K);
  const frozen = new Uint8Array(K);
  let busySkips = 0;
  /** fresh syncs sent right after an answered resend, beyond the one per Δ */
  let extraSyncs = 0;

  /** Sends g's entry to the store at s (unless lost before landing); its reply is due at s + delay. */
  const sendSync = (g: number, s: number, entry: SyncEntry, resend: boolean) => {
    request.gatewayId = gatewayIds[g];
    if (!resend) ++seq[g];
    request.seq = seq[g];
    const lost = loss > 0 && net.uniform() < loss;
    const landed = !lost || net.uniform() < 0.5;
    const reply = landed ? store.syncKey(request, entry, s) : null;
    const lim = lims[g];
    if (!lost && lim instanceof LeaseKey) {
      returnedSum += lim.lastReturned;
      leaseSyncs++;
    }
    pendEntry[g] = entry;
    pendReply[g] = lost ? null : reply;
    pendKind[g] = resend ? 2 : 1;
    replyAt[g] = s + roundTripMs();
  };

  const startRealSync = (g: number, s: number) => {
    if (pendKind[g] !== 0) {
      busySkips++;
      return;
    }
    const lim = lims[g];
    if (lim === null) return;
    if (frozen[g] === 1) {
      sendSync(g, s, pendEntry[g]!, true);
      return;
    }
    const entry = lim.syncEntry(KEY, s);
    if (entry !== null) sendSync(g, s, entry, false);
    else if (lim.isIdle(s)) lims[g] = null;
  };

  const onReply = (g: number, r: number) => {
    const kindOf = pendKind[g];
    const reply = pendReply[g];
    replyAt[g] = Number.POSITIVE_INFINITY;
    pendKind[g] = 0;
    pendReply[g] = null;
    const lim = lims[g]!;
    if (reply === null) {
      // lost: kept whole, resent at the next sync instant; its pushes stay in flight
      frozen[g] = 1;
      return;
    }
    frozen[g] = 0;
    pendEntry[g] = null;
    lim.applySync(reply, r);
    if (kindOf === 2) {
      // the resend was answered: the fresh sync goes out now
      const entry = lim.syncEntry(KEY, r);
      if (entry !== null) {
        extraSyncs++;
        sendSync(g, r, entry, false);
        return;
      }
    }
    if (lim.isIdle(r)) lims[g] = null;
  };

  const instant = (g: number, idx: number) => phase[g] + idx * D;
  /** The index of g's first sync instant at or after t. */
  const idxAtOrAfter = (g: number, t: number) => {
    if (t === Number.POSITIVE_INFINITY) return Number.POSITIVE_INFINITY;
    let i = Math.max(0, Math.ceil((t - phase[g]) / D));
    // guard the float division: the instant itself decides
    while (i > 0 && instant(g, i - 1) >= t) i--;
    while (instant(g, i) < t) i++;
    return i;
  };
  /** Each lease gateway's first sync index at or after the end (none of the others need it). */
  const endIdx = new Float64Array(K);
  if (leaseDesign) for (let g = 0; g < K; g++) endIdx[g] = idxAtOrAfter(g, end);
  const setNextSync = (g: number, idx: number) => {
    nextSyncIdx[g] = idx;
    nextSync[g] = idx === Number.POSITIVE_INFINITY ? idx : instant(g, idx);
  };
  /** An arrival at g makes its next sync instant needed again, whatever was skipped. */
  const needSyncAfter = (g: number, t: number) => {
    if (kind === 'never') return;
    const cur = nextSyncIdx[g];
    if (parkFrom[g] >= 0) {
      // the syncs a parked gateway skipped before this arrival happened: apply them first
      const need = idxAtOrAfter(g, t);
      unpark(g, need);
      if (need < cur) setNextSync(g, need);
      return;
    }
    // the common case, without the division: the next sync is already the first at or after t
    if (cur !== Number.POSITIVE_INFINITY && instant(g, cur) >= t && (cur === 0 || instant(g, cur - 1) < t))
      return;
    const need = idxAtOrAfter(g, t);
    if (need < cur) setNextSync(g, need);
  };

  /** The instants idleRun asks about: g = atG's sync instants from index atFrom on (one closure for every call). */
  let atG = 0;
  let atFrom = 0;
  const idleAt = (i: number) => instant(atG, atFrom + i);

  // Parked lease gateways: syncs parkFrom[g] … nextSyncIdx[g] − 1 were skipped, each answered with
  // parkHeld[g] slots; they are applied when the gateway's next sync runs.
  const parkFrom = new Float64Array(K).fill(-1);
  const parkHeld = new Float64Array(K);
  /** 1 when the park relies on the store staying full (asks above what it holds), 0 when it asks exactly that. */
  const parkFull = new Uint8Array(K);
  let parkedCount = 0;
  const unpark = (g: number, idx: number) => {
    const n = idx - parkFrom[g];
    const lim = lims[g] as LeaseKey;
    lim.applyIdle(n, instant(g, idx - 1), parkHeld[g]);
    returnedSum += parkHeld[g] * n;
    leaseSyncs += n;
    if (parkFull[g] === 1) parkedFull--;
    parkFrom[g] = -1;
    parkedCount--;
  };
  /**
   * Parked gateways that rely on the store staying full: when a slot frees at t (a release, or the
   * oldest admit expiring), the one whose next sync instant comes first runs that sync; if slots are
   * still free after it, the next one is woken then. Waking them all would be exact too, but each
   * would run a sync only to find the slot taken.
   */
  let parkedFull = 0;
  /**
   * The gateway the last wakeOne chose and that one's sync instant. Until that sync runs (it unparks
   * the gateway) or another gateway parks full, a later call (t only grows) chooses the same one for
   * the same instant, already scheduled: nothing to do. (Each parked gateway's candidate instant only
   * grows with t, and a parked gateway's next sync only comes earlier, by wakeOne.)
   */
  let woken = -1;
  let wokenAt = Number.NEGATIVE_INFINITY;
  const wakeOne = (t: number) => {
    if (woken >= 0 && t <= wokenAt && parkFrom[woken] >= 0 && parkFull[woken] === 1) return;
    let best = -1;
    let bestAt = Number.POSITIVE_INFINITY;
    let bestIdx = 0;
    for (let g = 0; g < K; g++) {
      if (parkFrom[g] < 0 || parkFull[g] === 0) continue;
      // max(idxAtOrAfter(g, t), parkFrom[g]), with the division only when the park began before t
      let idx = parkFrom[g];
      let at = instant(g, idx);
      if (at < t) {
        idx = idxAtOrAfter(g, t);
        at = instant(g, idx);
      }
      if (at < bestAt) {
        bestAt = at;
        best = g;
        bestIdx = idx;
      }
    }
    woken = best;
    wokenAt = bestAt;
    if (best < 0) return;
    const idx = bestIdx;
    if (idx < nextSyncIdx[best]) {
      setNextSync(best, idx);
      refresh(best);
    }
  };
  /**
   * After a store operation at t, or when the store's oldest admit expires: wake one if a slot is
   * free. freeAtT: the store's free slots at t when the caller has them (NaN: ask the store).
   */
  const watchStore = (t: number, freeAtT: number) => {
    if (parkedFull === 0) {
      tree.set(WATCH, Number.POSITIVE_INFINITY);
      return;
    }
    if ((Number.isNaN(freeAtT) ? store.freeSlots(KEY, t) : freeAtT) > 0) wakeOne(t);
    tree.set(WATCH, store.headExpiry(KEY));
  };

  /**
   * Next arrival at g can be no earlier than this. Page loads: bursts are drawn ahead (the burst
   * process does not depend on any decision, so drawing it early changes nothing) until one holds an
   * arrival for g, so that a gateway is not woken for every burst that goes elsewhere.
   */
  const arrivalBound = (g: number): number =>
    pageload ? pageloadBound(g) : mixed ? Math.min(nextArr[g], nextFlood[g]) : nextArr[g];
  const pageloadBound = (g: number): number => {
    for (;;) {
      const mine = plMine[g].first();
      // a burst not drawn yet starts at nextBurst or later
      if (mine <= nextBurst || nextBurst >= end || plQueue.length >= MAX_LOOKAHEAD) {
        return Math.min(mine, nextBurst);
      }
      drawBurst();
    }
  };

  for (;;) {
    const leaf = tree.minLeaf();
    const t = tree.minTime();
    if (!(t < end)) break;
    if (leaf === WATCH) {
      // the store's oldest admit expires now: a slot frees
      watchStore(t, Number.NaN);
      continue;
    }
    if (leaf === PAGELOAD) {
      // page-load stream
      if (plQueue.length > 0 && plQueue.first() <= nextBurst) {
        const g = plQueue.firstTag();
        plQueue.shift();
        plMine[g].shift();
        needSyncAfter(g, t);
        arrive(g, t);
        refresh(g);
      } else drawBurst();
      tree.set(PAGELOAD, nextPageload());
      continue;
    }
    const g = leaf;
    // replies in flight and flood arrivals exist only with real syncs and mixed traffic
    if (realSync && replyAt[g] <= nextSync[g] && replyAt[g] <= nextArr[g] && replyAt[g] <= nextFlood[g]) {
      onReply(g, replyAt[g]);
      refresh(g);
      continue;
    }
    if (realSync && nextSync[g] <= nextArr[g] && nextSync[g] <= nextFlood[g]) {
      const s = nextSync[g];
      startRealSync(g, s);
      const next = nextSyncIdx[g] + 1;
      setNextSync(g, lims[g] === null ? Math.max(next, idxAtOrAfter(g, arrivalBound(g))) : next);
      refresh(g);
      continue;
    }
    if (mixed && nextFlood[g] < nextArr[g] && nextFlood[g] < nextSync[g]) {
      // a flood arrival (pulsed, onset): every one decided on its own
      const t = nextFlood[g];
      needSyncAfter(g, t);
      arrive(g, t);
      nextFlood[g] = drawFlood(g, t);
      refresh(g);
      continue;
    }
    if (nextSync[g] <= nextArr[g]) {
      // a sync of gateway g
      const s = nextSync[g];
      const idx = nextSyncIdx[g];
      if (parkFrom[g] >= 0) unpark(g, idx);
      doSync(g, s);
      let next = idx + 1;
      const lim = lims[g];
      const bound = arrivalBound(g);
      // the store's free slots at s, if asked below (nothing changes them before the watch looks)
      let freeNow = Number.NaN;
      if (everySync || !(instant(g, next) < bound)) {
        // every sync instant runs; or the next arrival comes by instant `next`, and each rule below
        // would keep it (they move `next` later only up to the first instant at or after the arrival)
      } else if (lim === null) {
        // no state held: the first sync that matters is the one after the next arrival
        next = Math.max(next, idxAtOrAfter(g, bound));
      } else if (kind === 'lazy' && lim.unsyncedAdmits() === 0) {
        // Nothing to push: only the last sync before the next arrival matters, as long as no sync
        // in between would find the key idle and drop the state (not before the store's newest
        // admit expires; later pushes only add to it).
        // (idxAtOrAfter is monotone: the store's expiry bounds `last` only when it comes before the arrival)
        const latest = store.latestExpiry(KEY);
        const beforeArrival = idxAtOrAfter(g, bound) - 1;
        const last = latest >= bound ? beforeArrival : Math.min(beforeArrival, idxAtOrAfter(g, latest));
        if (last > next) next = last;
      } else if (kind === 'every' && leaseDesign && (lim as LeaseKey).unsyncedAdmits() === 0) {
        const lease = lim as LeaseKey;
        const before = Math.min(idxAtOrAfter(g, bound), endIdx[g]) - next;
        if (before > 0) {
          // With no free slot in the store until its oldest admit expires, an idle gateway's syncs
          // are answered with what it holds even when it asks for more: park it, lazily (a release
          // by another gateway or an earlier expiry wakes it; see wakeParked).
          freeNow = store.freeSlots(KEY, s);
          const full = freeNow <= 0;
          atG = g;
          atFrom = next;
          const n = lease.idleRun(idleAt, before, full);
          if (n > 0) {
            const held = lease.slots(s);
            if (held > 0) store.renewLease(KEY, gatewayIds[g], instant(g, next + n - 1) + fleet.leaseTtlMs);
            parkFrom[g] = next;
            parkHeld[g] = held;
            parkFull[g] = full ? 1 : 0;
            if (full) {
              parkedFull++;
              woken = -1;
            }
            parkedCount++;
            next += n;
          }
        }
      }
      setNextSync(g, next);
      refresh(g);
      if (kind === 'every' && parkedCount > 0) watchStore(s, freeNow);
      continue;
    }
    // an arrival at gateway g (steady or flood stream); needSyncAfter's no-op cases written out (a
    // design that never syncs, or the next sync already the first at or after t)
    const cur = nextSyncIdx[g];
    if (
      kind !== 'never' &&
      (parkFrom[g] >= 0 || !(nextSync[g] >= t && (cur === 0 || phase[g] + (cur - 1) * D < t)))
    )
      needSyncAfter(g, t);
    const ok = arrive(g, t);
    if (mixed) {
      honestRequests++;
      if (!ok) honestRejected++;
    }
    let from = t;
    if (!ok && skip && !mixed) {
      const lim = lims[g]!;
      let until = lim.nextChangeAt(t);
      // the next sync instant after t (lazy scheduling never skips past it once an arrival came)
      const ns = kind === 'never' ? Number.POSITIVE_INFINITY : nextSync[g];
      if (ns < until) until = ns;
      if (replyAt[g] < until) until = replyAt[g];
      if (until > end) until = end;
      if (until > t) {
        const n = rng.poisson(lambda[g] * (until - t));
        if (n > 0) {
          requests += n;
          rejected += n;
          // every central-log request asks the store, the rejected ones too
          if (logPath) roundTrips += n;
          lim.noteRejected(n, t + (until - t) * rng.uniform() ** (1 / n));
        }
        from = until;
      }
    }
    // rng.exponential(lambda[g]), written out (the same operations)
    nextArr[g] = from + -Math.log(rng.uniform()) / lambda[g];
    refresh(g);
  }

  // parked gateways' skipped syncs up to the end still count
  for (let g = 0; g < K; g++) {
    if (parkFrom[g] < 0) continue;
    const n = Math.min(nextSyncIdx[g], endIdx[g]) - parkFrom[g];
    if (n > 0) {
      returnedSum += parkHeld[g] * n;
      leaseSyncs += n;
    }
  }

  let syncs = scheduledSyncs(phase, D, end);
  if (probe !== null) probe.roundTrips = roundTrips;
  // real syncs: the ones a busy gateway skipped were not sent, and resends are extra
  if (realSync) syncs += extraSyncs - busySkips;

  const windowsAfterFirst = Math.max(end - W, 0) / W;
  const out: RunOutput = {
    admittedPerWindow: windowsAfterFirst > 0 ? admittedAfterFirstWindow / windowsAfterFirst / L : 0,
    worstWindow: worst / L,
    rejectedPct: requests > 0 ? (100 * rejected) / requests : 0,
    roundTripsPerRequest: requests > 0 ? roundTrips / requests : 0,
    syncs,
    requests,
    admitted,
    windowsOverLimit: overLimit,
    strandedPct: leaseSyncs > 0 ? (100 * (returnedSum / leaseSyncs) * K) / L : 0,
    latencyMs: requests > 0 ? waitMs / requests : 0,
    storeOpsPerSec: end > 0 ? ((syncs + roundTrips) * 1000) / end : 0,
    honestRejectedPct: mixed
      ? honestRequests > 0
        ? (100 * honestRejected) / honestRequests
        : 0
      : requests > 0
        ? (100 * rejected) / requests
        : 0,
    onsetWorst: onsetWorst / L,
  };
  if (decisions !== null) out.decisions = Uint8Array.from(decisions);
  return out;
}

export type { FleetParams };
