import type { DesignId } from '../config.js';
import type { SyncReply } from '../store/contract.js';
import { ALLOW, DENY, type FleetParams, type Verdict } from './key-limiter.js';
import { OwnLog } from './own-log.js';
import { SyncedKey } from './synced.js';

/**
 * The tuning, measured on the study's scorecard (K = 2…32, Δ = 1 s, floods 1.5×…1,000×, honest clients
 * at 80 %): see docs/architecture.md. Exported for experiments; the design reads it at construction.
 */
export const ADAPTIVE = {
  /**
   * The blind span, in sync intervals. An admit stays unseen by the other gateways for at most 2Δ; the
   * fleet's expected admits are held to the headroom over twice that, which damps the echo of a burst
   * admitted before the flood was noticed (it frees up all at once one window later).
   */
  blindSyncs: 4,
  /** …but at most W/6: with Δ near W, an honest client at 80 % has more arrivals over 4Δ than any headroom (Δ = 10 s, W = 60 s: B = 10 s, not 40 s). */
  blindMaxW: 1 / 6,
  /** Time constant of the arrival-rate estimate, in sync intervals: a flood is noticed within a few Δ. */
  rateSyncs: 6,
  /** The rate used is a lower confidence bound, (n − z·√n)/τ for n arrivals counted over τ: a few arrivals are not a flood. */
  z: 1.3,
  /**
   * Between two syncs a gateway admits at most this many times its share of the headroom it sees (at
   * least 1; 0: no cap). It is what holds a flood's onset, before the rate estimate has caught up: each
   * gateway takes about 4 × share of the headroom instead of all of it. 3 and below cost honest clients
   * at K = 32 more than 0.5 pp; 4 does not (measured).
   */
  capShares: 4,
};

/** What the rate estimate and the thinning are tuned by (ADAPTIVE's fields of the same names). */
export type RateTuning = Pick<typeof ADAPTIVE, 'blindSyncs' | 'blindMaxW' | 'rateSyncs' | 'z'>;

/**
 * adaptive: the shared counter, thinned while the key is contended.
 *
 * It decides as shared-counter does (the store's count at the last sync, aged out, plus its own admits
 * since), and that alone serves honest clients as the central log does. What lets a flood through the
 * shared counter is that every gateway sees the same freed slot at the same instant and each admits its
 * next arrival: the fleet admits about as many requests as arrive, over all gateways, while an admit is
 * not yet seen by the others (up to 2Δ: until the admitting gateway's next sync, then until each other
 * gateway's next sync). So each gateway estimates the fleet's arrivals over a blind span B = min(4Δ, W/6),
 *
 *   A = (own arrival rate) / share × B,
 *
 * from its own arrival rate (a decaying count, time constant 6Δ, taken as a lower confidence bound
 * n − 1.3·√n so that a few arrivals are not a flood) and its measured share of the key's admits (as
 * track-share measures it, over W, here clamped to [1/K, 1] so that a gateway with little of the
 * traffic under-estimates rather than blows up), and admits a request that finds headroom h (L minus
 * what it sees) with probability p = min(1, h / A). The fleet's expected admits over B are then about
 * h whatever the flood's rate: the headroom is shared out instead of being taken K times. An honest
 * client far from the limit, or with few arrivals per B, sees p = 1: exactly the shared counter. With
 * K = 1 (share 1) the design is exactly the central log: one gateway sees every admit at once.
 *
 * Until the rate estimate has caught up with a flood's onset (a few Δ), a cap holds each gateway to
 * 4 × share of the headroom it sees per sync interval (at least 1), so the fleet takes about 4 × the
 * headroom in that first interval instead of K times it.
 *
 * It needs nothing from the store beyond shared-counter's sync (push, read): the same store, Redis
 * scripts and runtime. The draws come from a small generator seeded by the key's creation time, so a
 * simulation is reproducible; the rate estimate and the draws do not depend on when syncs run, and the
 * share depends only on the state at a sync, so the simulator's lazy syncs stay exact.
 *
 * There is no hard bound: the over-admission is statistical (measured ≤ 1.05 × L at K ≤ 32, Δ = 1 s,
 * floods 1.5× to 1,000×, even or picked). What is guaranteed: never more admitted than shared-counter
 * would admit in the same state (it only ever turns a shared-counter admit into a rejection), and with
 * K = 1 exactly the central log.
 */
export class AdaptiveKey extends SyncedKey {
  readonly design: DesignId = 'adaptive';
  // every field a number from the start (a field made undefined, as a declared one is, holds its
  // doubles boxed: a new heap number at each write, adaptive-early's most garbage per sync)
  protected share = Number.NaN;
  private readonly own = new OwnLog();
  /** arrivals (admitted or not), as a count decaying with time constant tau, last updated at rateAt */
  private rateCount = 0;
  private rateAt = Number.NEGATIVE_INFINITY;
  private readonly tau: number;
  protected readonly blind: number;
  protected readonly z: number;
  private rng = 0;
  /** the last decide was a thinning rejection: nothing guarantees the next arrival is rejected too */
  private thinnedAt = Number.NaN;

  /** `tuning`: the rate estimate's and the blind span's (adaptive's own unless a variant says). */
  constructor(p: FleetParams, now: number, tuning: RateTuning = ADAPTIVE) {
    super(p);
    this.share = 1 / p.gateways;
    this.tau = tuning.rateSyncs * p.syncMs;
    this.blind = Math.min(tuning.blindSyncs * p.syncMs, p.policy.windowMs * tuning.blindMaxW);
    this.z = tuning.z;
    // splitmix32 of the creation instant: distinct streams for distinct gateways in practice
    let z = (Math.floor(now * 1024) ^ 0x9e3779b9) >>> 0;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    this.rng = (z ^ (z >>> 16)) >>> 0 || 1;
  }

  get measuredShare(): number {
    return this.share;
  }

  protected weight(): number {
    return 1;
  }

  /** Own arrivals per ms, decayed to `now`: a lower confidence bound, so a few arrivals are not a flood. */
  arrivalRate(now: number): number {
    if (this.rateCount === 0) return 0;
    // decide has just brought the count up to now: no decay to apply (the common case under a flood)
    const n =
      this.rateAt === now ? this.rateCount : this.rateCount * Math.exp((this.rateAt - now) / this.tau);
    const lo = n - this.z * Math.sqrt(n);
    return lo > 0 ? lo / this.tau : 0;
  }

  protected noteArrivals(n: number, now: number): void {
    const dt = now - this.rateAt;
    this.rateCount = (dt > 0 ? this.rateCount * Math.exp(-dt / this.tau) : this.rateCount) + n;
    if (dt > 0) this.rateAt = now;
  }

  protected uniform(): number {
    // xorshift32
    let x = this.rng;
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    this.rng = x >>> 0;
    return (this.rng + 0.5) * 2.3283064365386963e-10;
  }

  /** The probability of admitting a request that finds headroom h. */
  admitProbability(now: number, h: number): number {
    if (this.share >= 1) return 1;
    const fleet = this.fleetRate(now) * this.blind;
    return fleet <= h ? 1 : h / fleet;
  }

  /** The fleet's arrival rate on this key, per ms, as this gateway estimates it (share < 1). */
  protected fleetRate(now: number): number {
    // a share below 1/K (a gateway with little of the key's traffic) would blow a few arrivals up
    // into a flood: it counts as 1/K, which can only under-estimate the fleet's rate
    return this.arrivalRate(now) / Math.max(this.share, 1 / this.p.gateways);
  }

  override decide(now: number, cost: number): Verdict {
    this.asked = true;
    this.noteArrivals(cost, now);
    this.settle(now);
    const known = this.knownCached;
    const own = this.ownCached;
    const h = this.p.policy.limit - known - own;
    if (h < cost) return DENY;
    if (this.overCap(known, own, cost)) {
      this.thinnedAt = now;
      return DENY;
    }
    const p = this.admitProbability(now, h);
    if (p < 1 && this.uniform() >= p) {
      this.thinnedAt = now;
      return DENY;
    }
    this.recordAdmit(now, cost);
    this.own.insert(now, cost);
    return ALLOW;
  }

  /**
   * decide's rules without the draw: headroom for `cost` and, while the key is shared, the cap. At a
   * sync the share is measured anew; it counts as at least 1/K, so the cap used then is one decide
   * never goes below (the answer may come later than the first admit, never earlier). Whether the
   * draw admits is not known ahead: a thinned request is told the rules admit now.
   */
  protected override admits(k: number, o: number, cost: number, afterSync: boolean): boolean {
    const limit = this.p.policy.limit;
    if (limit - k - o < cost) return false;
    return o + cost <= this.cap(k, afterSync);
  }

  /** Whether decide's cap rejects `cost` more with `own` admits since the last sync. */
  protected overCap(known: number, own: number, cost: number): boolean {
    return own + cost > this.cap(known, false);
  }

  /**
   * The most own admits since the last sync, with `known` of the store's admits counting (Infinity: no
   * cap): 4 × share of the headroom seen, at least 1, while the key is shared. `afterSync`: the cap
   * right after a sync whose share is not known yet (at least 1/K, so never below the one decide uses).
   */
  protected cap(known: number, afterSync: boolean): number {
    if (!(ADAPTIVE.capShares > 0 && (afterSync ? this.p.gateways > 1 : this.share < 1)))
      return Number.POSITIVE_INFINITY;
    const share = afterSync ? 1 / this.p.gateways : Math.max(this.share, 1 / this.p.gateways);
    return Math.max(1, ADAPTIVE.capShares * share * (this.p.policy.limit - known));
  }

  protected override tookBack(at: number, cost: number): void {
    this.own.remove(at, cost);
  }

  override noteRejected(n: number, now: number): void {
    this.asked = true;
    this.noteArrivals(n, now);
  }

  override nextChangeAt(now: number): number {
    // a thinned request says nothing about the next one
    if (this.thinnedAt === now) return now;
    return super.nextChangeAt(now);
  }

  protected override beforeApply(reply: SyncReply, now: number): void {
    this.measureShare(reply.count, now);
  }

  /** beforeApply's part: the share measured at a sync whose reply counts `count`. */
  protected measureShare(count: number, now: number): void {
    const { windowMs, windowKind } = this.p.policy;
    // aged at K = 1 too: isIdle waits for the log to empty, and a log never aged kept every key held
    // (and its log growing by every admit) for good
    this.own.dropExpired(now, windowMs, windowKind);
    // one gateway sees every admit: its share is 1 whatever a late reply says
    if (this.p.gateways === 1) return;
    if (count > 0) {
      // admits made after the sync was taken (a late reply) are not in its count
      const own = this.own.size - this.pending.live;
      const floor = 1 / (4 * this.p.gateways);
      this.share = Math.min(1, Math.max(floor, own / count));
    }
  }

  /**
   * Reads on request: a key is also read while it is contended as this gateway sees it (the fleet's
   * arrivals over the blind span, as estimated, would take the headroom: the thinning is on). Under a
   * flood the window's count dips below L/2 as an echo's admits expire together; a gateway with no
   * request in that Δ skipped its read and decided its next request on a view up to 2Δ old, while the
   * others refilled the window (1.088 × L mean at K = 32, 30×, against 1.033 with every read:
   * test/regressions/adaptive-skips-reads-in-a-flood-dip.test.ts). A quiet key's rate bound is 0.
   */
  override readDue(now: number): boolean {
    if (super.readDue(now)) return true;
    if (this.share >= 1 || this.rateCount === 0) return false;
    // the rate as counted, not its lower bound: a gateway's count over τ is a few arrivals at K = 32
    const n = this.rateCount * Math.exp((this.rateAt - now) / this.tau);
    const fleet = (n / this.tau / Math.max(this.share, 1 / this.p.gateways)) * this.blind;
    return fleet > this.p.policy.limit - this.estimate(now);
  }

  /** Whether an own admit still counts at `now`: the key is not idle then (isIdle), whatever else. */
  ownsAt(now: number): boolean {
    return this.own.countsAt(now, this.p.policy.windowMs, this.p.policy.windowKind);
  }

  override isIdle(now: number): boolean {
    if (!super.isIdle(now)) return false;
    if (!this.onRequest) return this.own.size === 0;
    // aged here too: a key no longer read has no sync to age it (its share is measured from it there)
    this.own.dropExpired(now, this.p.policy.windowMs, this.p.policy.windowKind);
    return this.own.size === 0;
  }
}
