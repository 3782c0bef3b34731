import type { DesignId } from '../config.js';
import type { SyncReply } from '../store/contract.js';
import { ADAPTIVE, AdaptiveKey } from './adaptive.js';
import type { FleetParams } from './key-limiter.js';

/** The tuning, measured with scripts/worst-window.ts (docs/worst-window.md); exported for experiments. */
export const ADAPTIVE_EARLY = {
  /**
   * Each gateway's part of the headroom it last saw, between two of its syncs: its share of it
   * (partShare) over partDiv, at least one request. 1 let the first round of parts at a fast flood's
   * onset on an empty key, taken on reads that did not yet count the others', reach 1.4 × L at K = 8;
   * 2 cost page-load clients at K = 2 +0.5 pp (more syncs, fresher and smaller headroom, more
   * thinning); 1.5 does neither. 1.2 with the unseen round below: 1.17–1.21 × L at K = 8, L = 100–300.
   */
  partDiv: 1.5,
  /**
   * adaptive's rate estimate with a memory of 2.5 Δ instead of six, and a stricter lower bound (z = 2
   * instead of 1.3): a fast flood is seen within a fraction of Δ, and once a pulse ends the thinning
   * stops within a few Δ instead of half a minute (adaptive rejects honest clients for ~30 s after
   * each 2-s pulse: 5.8 × central-log's at K = 8); z = 2 keeps page-load bursts from looking like one.
   * A memory of one Δ left a flood bringing a gateway fewer than ~4 requests per Δ unseen (n − 2√n ≤
   * 0: at K = 32 anything below ~75×): a 30× flood on a busy key held the window at 1.23 × L through
   * the flood, long after its onset. 2.5 Δ: 1.16 (K = 32, seeds 1–10), pulsed floods 1.29 / 1.28 ×
   * central-log's at K = 2 / 8 (one Δ: 0.99 / 0.85); 3 Δ: an empty key's 10× flood at K = 32 1.18.
   */
  rate: { ...ADAPTIVE, rateSyncs: 2.5, z: 2 },
  /**
   * The others' admit rate, read from the store's count at each read that finds it grown beyond own
   * pushes, decays with this time constant (in Δ), is taken as the lower bound n − zOthers·√n, and
   * stands for this many Δ of unseen admits in the thinning (the others' admits a gateway has not
   * seen). Without it, the first rounds of parts at K = 32 reach 1.33 × L (empty key, 1,000×).
   */
  othersSyncs: 1,
  zOthers: 1.3,
  othersBlindSyncs: 4,
  /**
   * A request is lone (own = 0 lets it through whatever the part) only if the gateway's previous
   * arrival on the key is at least τ = loneChance · W / (max(share, 1/K) · L) old: an honest client
   * within the limit brings a gateway at most share · L per W, so it sends a request that close behind
   * the one before at most this often. A pulse's second request at a gateway (19 ms behind the first
   * at K = 32, 1,000×) is then held to the part: without it the gateways that synced early still saw
   * headroom and each took a second lone one, 6–17 per pulse past the first round's K, and the honest
   * client paid 2.58 × central-log's rejections at K = 32 (the window stays over L until they age out).
   * 0.004: 1.79 ×, honest ≤ +0.25 pp; 0.005: 1.72 ×, ≤ +0.29 pp; 0.006: 1.68 ×, ≤ +0.36 pp (K = 32,
   * seeds 1–10; docs/worst-window.md).
   */
  loneChance: 0.005,
  /**
   * The share a part follows: adaptive's measured share (own admits / the store's count over W,
   * clamped to [1/(4K), 1]), smoothed with this memory in windows, 1/K for a new key. A part of
   * 1/(1.5 K) of the headroom for every gateway held a heavy gateway of uneven routing to far less
   * than its traffic: honest clients at L = 300, K = 32 paid +1.1 pp (steady) and +1.9 pp (page
   * loads) over central-log's. The raw share, measured at a flood's first reads (the first gateway
   * to sync sees only its own admits: share 1), let 2.3–2.8 × L through on an empty key; smoothed
   * over W it moves by about Δ/W per sync, so the first rounds share out what the honest traffic set.
   */
  partShareWindows: 1,
};

/**
 * adaptive-early: adaptive, with each gateway held to its part of the headroom between two of its
 * syncs, and a sync sent early, off the request path, as soon as that part is spent.
 *
 * Rule. With `known` the store's count at the gateway's last sync (aged out) and `own` its admits
 * since, a request is admitted as adaptive admits it (headroom L − known − own, then the thinning
 * draw), and only while own + cost ≤ part, part = (L − known − unseen) · share / 1.5 (share: the
 * gateway's part of the key's admits, smoothed over W, 1/K for a new key; unseen: in a round of early
 * syncs, the others' parts its read did not show yet, see unseenOfRound), or own = 0 (one request
 * since the last sync always may: an honest client's lone request is admitted as the central log
 * would, and a request may cost up to L) if it is lone: the gateway's previous arrival on the key
 * is at least τ = 0.005 · W / (max(share, 1/K) · L) old (ADAPTIVE_EARLY.loneChance; 96 ms at K = 32,
 * L = 100 per minute). Once own reaches the part with headroom left, the key wants an early sync
 * (wantsEarlySync): the gateway sends one at once, off the request path, if its early-sync bucket
 * holds a token (Design.earlySyncs). While that sync is out its admits still count in `own`, so the
 * gateway admits nothing past its part. The thinning is
 * adaptive's, with a memory of 2.5 Δ (ADAPTIVE_EARLY.rate), and its fleet rate is at least the
 * others' admit rate read from the store's count, plus its own.
 *
 * Why it holds the worst window: what takes a window past L is admits no other gateway has seen.
 * adaptive lets each gateway take 4 × its share of the headroom per Δ before anyone notices; here a
 * gateway takes its share of the headroom it last saw over 1.5, then looks again, and each round of
 * early syncs shows the others' admits, which both shrinks the headroom the next round shares out and
 * starts the thinning. Where it stops holding: the "at least one" — K gateways that each see headroom and each
 * admit one request nobody has seen — lets up to K − h past L at a flood's onset on a key with h < K
 * free slots; a local decision cannot tell a flood's first request at a gateway from an honest one.
 * Its second one it can, if it comes within τ: then it is held to the part like any other.
 * (docs/worst-window.md has the figures.)
 *
 * The others' rate depends on successive reads (the time since the last one that found growth), so
 * a read with nothing to push is not free to skip: the simulator runs every sync of this design
 * (Design.earlySyncs), where it may skip adaptive's.
 */
export class AdaptiveEarlyKey extends AdaptiveKey {
  override readonly design: DesignId = 'adaptive-early';
  /**
   * The others' admit rate (per ms), as read at othersAt: the count's growth beyond own pushes since
   * the read before (othersRef, the last one that found growth; NaN before the first read).
   */
  private othersRate = 0;
  private othersAt = Number.NaN;
  private othersRef = Number.NaN;
  /** the latest arrival on the key at this gateway, and the time from the one before to it */
  private lastArrival = Number.NaN;
  private gapBefore = Number.POSITIVE_INFINITY;
  /** The share the part follows (ADAPTIVE_EARLY.partShareWindows), as of the sync at partShareAt. */
  // a number from the start, not undefined (AdaptiveKey.share: a boxed double per write otherwise)
  private partShare = Number.NaN;
  private partShareAt = Number.NaN;
  /**
   * The others' admits of a round of parts this gateway has not seen yet: set at a sync that pushed
   * a spent part less than Δ after the sync before (a round), held until the next sync.
   */
  private unseen = 0;
  /** The last full read's horizon (SyncReply.horizon): its view lists every admit leaving before it. */
  private readHorizon = Number.NEGATIVE_INFINITY;

  constructor(p: FleetParams, now: number) {
    super(p, now, ADAPTIVE_EARLY.rate);
    this.partShare = 1 / p.gateways;
  }

  /**
   * The part: own admits since the last sync may reach it, and one request always may (own = 0).
   * (L − known − unseen) · partShare / partDiv.
   */
  protected override cap(known: number, _afterSync: boolean): number {
    if (this.p.gateways <= 1) return Number.POSITIVE_INFINITY;
    return ((this.p.policy.limit - known - this.unseen) * this.partShare) / ADAPTIVE_EARLY.partDiv;
  }

  protected override overCap(known: number, own: number, cost: number): boolean {
    // one request since the last sync, whatever its cost (the headroom checked), then the part
    return own > 0 && own + cost > this.cap(known, false);
  }

  protected override admits(k: number, o: number, cost: number, _afterSync: boolean): boolean {
    return this.p.policy.limit - k - o >= cost && !this.overCap(k, o, cost);
  }

  /**
   * 0 for a request that is not lone although own = 0 (see loneChance) and that only the lone rule
   * would let past the part. It is the draw that refuses it, not the rules (admits, retryAt): whether
   * the next request comes that close is not known ahead, and a refused draw tells the simulator the
   * next arrival may be decided otherwise.
   */
  override admitProbability(now: number, h: number): number {
    if (
      now === this.lastArrival &&
      this.ownCached === 0 &&
      this.cap(this.knownCached, false) < 1 &&
      this.gapBefore < this.loneGapMs()
    )
      return 0;
    return super.admitProbability(now, h);
  }

  /** τ of loneChance, in ms. */
  private loneGapMs(): number {
    const { windowMs, limit } = this.p.policy;
    return (ADAPTIVE_EARLY.loneChance * windowMs) / (Math.max(this.share, 1 / this.p.gateways) * limit);
  }

  protected override noteArrivals(n: number, now: number): void {
    if (n > 0) {
      // a clock that went back counts as no gap
      this.gapBefore = Number.isNaN(this.lastArrival)
        ? Number.POSITIVE_INFINITY
        : Math.max(0, now - this.lastArrival);
      this.lastArrival = now;
    }
    super.noteArrivals(n, now);
  }

  /** Whether a sync now would let this key admit again: its part is spent and headroom is left. */
  wantsEarlySync(now: number): boolean {
    if (this.p.gateways <= 1) return false;
    this.settle(now);
    const known = this.knownCached;
    const own = this.ownCached;
    return this.p.policy.limit - known - own >= 1 && this.overCap(known, own, 1);
  }

  /**
   * Whether no decision here up to `until` can want an early sync (wantsEarlySync) while own admits
   * since a sync stay ≤ ownMax and every read counts ≤ countMax: the replay's checked chunks skip
   * saving such a key (src/replay/run/key-checkpoints.ts, `quiet`; `from`: the chunk's first instant).
   * Wanting one needs own ≥ 1, known + own ≤ L − 1 and own + 1 > part = (L − known − unseen) ·
   * partShare / partDiv. Until the next read known ≤ `count` (it only ages down from the read's
   * count), after it ≤ countMax; partShare is bounded below by partShareLow. So with unseen as it is,
   * part ≥ (L − knownMax − unseen) · shareLow / partDiv, and own + 1 ≤ ownMax + 1 is not above it if
   * that bound is at least ownMax + 1. Nor does unseen rise: a round (unseenOfRound) needs a spent
   * part at a sync, pushed + 1 > part, its pushed ≤ own ≤ ownMax; an idle read sets it to 0. A limiter
   * dropped and made again by then is a new key's (unseen 0), within the same bounds. (NaN: false.)
   */
  quietWhile(ownMax: number, countMax: number, from: number, until: number): boolean {
    const at = Number.isNaN(this.partShareAt) ? Number.NEGATIVE_INFINITY : Math.min(this.partShareAt, from);
    const low = partShareLow(this.p, Math.min(this.partShare, 1 / this.p.gateways), at, until);
    return quietBound(this.p, Math.max(this.count, countMax), this.unseen, low, ownMax);
  }

  protected override fleetRate(now: number): number {
    const base = super.fleetRate(now);
    if (!(this.othersRate > 0)) return base;
    const { othersSyncs, othersBlindSyncs } = ADAPTIVE_EARLY;
    const others = this.othersRate * Math.exp((this.othersAt - now) / (othersSyncs * this.p.syncMs));
    // the thinning multiplies by the blind span: the others' rate stands for othersBlindSyncs Δ
    const scaled = (others * othersBlindSyncs * this.p.syncMs) / this.blind;
    return Math.max(base, scaled + this.arrivalRate(now));
  }

  protected override beforeApply(reply: SyncReply, now: number): void {
    // kept here, not in the synced key's Retry-After part, which the replay's keys never make
    this.readHorizon = reply.horizon;
    if (this.p.gateways > 1) {
      const pushed = this.pushedLive();
      // what the count grew by beyond own pushes: the others' admits since the last read (at least;
      // admits that aged out unlisted hide some)
      const others = reply.count - this.known(now) - pushed;
      this.unseen = this.unseenOfRound(pushed, others, now);
      if (Number.isNaN(this.othersRef)) this.othersRef = now;
      else {
        // the others' rate: their admits since the last read that found growth
        if (others > 0 && now > this.othersRef) {
          const lo = others - ADAPTIVE_EARLY.zOthers * Math.sqrt(others);
          this.othersRate = lo > 0 ? lo / (now - this.othersRef) : 0;
          this.othersAt = now;
          this.othersRef = now;
        }
      }
    }
    super.beforeApply(reply, now);
    if (this.p.gateways > 1) this.followShare(now);
  }

  /**
   * A sync that pushes nothing and whose read shows no admit this gateway's reads have not: none
   * reached the store since its last read, and none does before its next sync (the caller knows;
   * the replay's idle reads, src/replay/run/read-steps.ts). `count`: the store's count now. Its
   * read finds the count no higher than the view held (others ≤ 0: no round, the others' rate as
   * it is), so it changes the share, the part's share and the bookkeeping only, done here; the
   * view it would write the next sync writes. False, nothing changed, where a full sync must run.
   */
  idleSync(now: number, count: number): boolean {
    if (this.p.gateways <= 1 || !(count > 0) || Number.isNaN(this.othersRef)) return false;
    if (!this.idleSyncStart(now)) return false;
    // beforeApply with pushed = 0: unseenOfRound is 0, `others` ≤ 0 changes no rate
    this.unseen = 0;
    this.measureShare(count, now);
    this.followShare(now);
    this.idleSyncEnd(now);
    return true;
  }

  /**
   * Whether the view the last full read wrote lists every admit of its count that leaves before `t`
   * (its horizon is later): until t it ages as a newer read's would, with nothing pushed since (the
   * replay's idle reads, src/replay/run/read-steps.ts).
   */
  listsBefore(t: number): boolean {
    return t < this.readHorizon;
  }

  /**
   * A round: this sync pushes a spent part (own + 1 > part) less than Δ after the sync before (or it
   * is the key's first). At a fast flood's onset every gateway spends its part within the same few
   * ms and syncs early; each read counts only the parts of the gateways that synced before it, so
   * the first to read see nearly all the headroom and the next round of parts, taken on those reads,
   * took the window to 1.10–1.12 × L at K = 8 and 32, L = 100–1,000 (1,000×, empty key). In a round
   * this gateway assumes the others spent a part like its own, and holds back what of it the read did
   * not show: (K − 1) · pushed − others. A part is spent within Δ by a flood, or by an honest burst
   * at a gateway whose part is small; the next sync clears it. K = 8, empty key: 1.05 × L.
   */
  private unseenOfRound(pushed: number, others: number, now: number): number {
    const spent = pushed >= 1 && pushed + 1 > this.cap(this.known(now), false);
    const soon = !(now - this.lastSyncAt >= this.p.syncMs);
    return spent && soon ? Math.max(0, (this.p.gateways - 1) * pushed - Math.max(0, others)) : 0;
  }

  /** Moves the part's share toward the share adaptive measured at this sync (partShareWindows). */
  private followShare(now: number): void {
    if (!Number.isNaN(this.partShareAt) && now > this.partShareAt) {
      const memory = ADAPTIVE_EARLY.partShareWindows * this.p.policy.windowMs;
      this.partShare += (this.share - this.partShare) * (1 - expOf((this.partShareAt - now) / memory));
    }
    this.partShareAt = now;
  }
}

/**
 * followShare's last e^x, and x: a gateway's syncs are Δ apart, so its moves (every sync, idle
 * reads included) nearly all take the same x, one exp between them (the same bits: Math.exp is a
 * function of x alone). In a typed array: a double kept in a module variable is boxed at each write.
 */
const lastExp = new Float64Array([Number.NaN, Number.NaN]);

function expOf(x: number): number {
  if (x !== lastExp[0]) {
    lastExp[0] = x;
    lastExp[1] = Math.exp(x);
  }
  return lastExp[1];
}

/**
 * A lower bound of a part's share up to `until`, for a share of `share` (or a new key's, 1/K, at most)
 * last moved at `at` (−∞: not known). followShare moves it toward a share clamped to ≥ floor =
 * 1/(4K) (measureShare) by 1 − e^(−dt/M) (M = partShareWindows · W): its distance above the floor
 * shrinks by e^(−dt/M) at most per move, so by e^(−(until − at)/M) at most in all; one below the
 * floor only rises. With a margin (× 0.999) for rounding.
 */
export function partShareLow(p: FleetParams, share: number, at: number, until: number): number {
  const floor = 1 / (4 * p.gateways);
  if (!(share > floor)) return share * 0.999;
  const memory = ADAPTIVE_EARLY.partShareWindows * p.policy.windowMs;
  const decay = until > at ? Math.exp((at - until) / memory) : 1;
  return (floor + (share - floor) * decay) * 0.999;
}

/**
 * AdaptiveEarlyKey.quietWhile's bound: no decision wants an early sync while own ≤ ownMax, known ≤
 * count and the part's share ≥ shareLow, from unseen admits `unseen` on (none rises: see there).
 */
export function quietBound(
  p: FleetParams,
  count: number,
  unseen: number,
  shareLow: number,
  ownMax: number,
): boolean {
  const K = p.gateways;
  if (K <= 1) return true;
  const part = ((p.policy.limit - count - unseen) * shareLow) / ADAPTIVE_EARLY.partDiv;
  return part >= ownMax + 1;
}
