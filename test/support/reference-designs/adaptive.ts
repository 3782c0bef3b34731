/**
 * A frozen copy of src/designs/adaptive.ts as it was before the decision-cost work (commit 2cebc56): the
 * uncached, array-based reference that test/designs/cached.property.test.ts checks the optimised
 * classes against, call by call. Keep it as it is: it is the specification, not production code.
 */

import { ADAPTIVE } from '../../../src/designs/adaptive.js';
import { ALLOW, DENY, type FleetParams, type Verdict } from '../../../src/designs/key-limiter.js';
import type { SyncReply } from '../../../src/store/contract.js';
import { TimeLog } from '../../../src/window/time-log.js';
import { SyncedKey } from './synced.js';

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
  readonly design = 'adaptive' as const;
  private share: number;
  private readonly own = new TimeLog(2);
  /** arrivals (admitted or not), as a count decaying with time constant tau, last updated at rateAt */
  private rateCount = 0;
  private rateAt = Number.NEGATIVE_INFINITY;
  private readonly tau: number;
  private readonly blind: number;
  private readonly z: number;
  private rng: number;
  /** the last decide was a thinning rejection: nothing guarantees the next arrival is rejected too */
  private thinnedAt = Number.NaN;

  constructor(p: FleetParams, now: number) {
    super(p);
    this.share = 1 / p.gateways;
    this.tau = ADAPTIVE.rateSyncs * p.syncMs;
    this.blind = Math.min(ADAPTIVE.blindSyncs * p.syncMs, p.policy.windowMs * ADAPTIVE.blindMaxW);
    this.z = ADAPTIVE.z;
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
    const n = this.rateCount * Math.exp((this.rateAt - now) / this.tau);
    const lo = n - this.z * Math.sqrt(n);
    return lo > 0 ? lo / this.tau : 0;
  }

  private noteArrivals(n: number, now: number): void {
    const dt = now - this.rateAt;
    this.rateCount = (dt > 0 ? this.rateCount * Math.exp(-dt / this.tau) : this.rateCount) + n;
    if (dt > 0) this.rateAt = now;
  }

  private uniform(): number {
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
    // a share below 1/K (a gateway with little of the key's traffic) would blow a few arrivals up
    // into a flood: it counts as 1/K, which can only under-estimate the fleet's rate
    const share = Math.max(this.share, 1 / this.p.gateways);
    const fleet = (this.arrivalRate(now) / share) * this.blind;
    return fleet <= h ? 1 : h / fleet;
  }

  override decide(now: number, cost: number): Verdict {
    this.asked = true;
    this.noteArrivals(cost, now);
    const known = this.known(now);
    const own = this.ownSinceSync(now);
    const h = this.p.policy.limit - known - own;
    if (h < cost) return DENY;
    if (ADAPTIVE.capShares > 0 && this.share < 1) {
      const share = Math.max(this.share, 1 / this.p.gateways);
      const cap = Math.max(1, ADAPTIVE.capShares * share * (this.p.policy.limit - known));
      if (own + cost > cap) {
        this.thinnedAt = now;
        return DENY;
      }
    }
    const p = this.admitProbability(now, h);
    if (p < 1 && this.uniform() >= p) {
      this.thinnedAt = now;
      return DENY;
    }
    const pend = this.pending;
    for (let i = 0; i < cost; i++) {
      pend.push(now);
      this.own.insert(now);
    }
    return ALLOW;
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
    const { windowMs, windowKind } = this.p.policy;
    // aged at K = 1 too (test/regressions/adaptive-k1-own-log-never-aged.test.ts)
    this.own.dropExpired(now, windowMs, windowKind);
    // one gateway sees every admit: its share is 1 whatever a late reply says
    if (this.p.gateways === 1) return;
    if (reply.count > 0) {
      // admits made after the sync was taken (a late reply) are not in its count
      const own = this.own.size - (this.pending.length - this.pendingIdx);
      const floor = 1 / (4 * this.p.gateways);
      this.share = Math.min(1, Math.max(floor, own / reply.count));
    }
  }

  override isIdle(now: number): boolean {
    if (!super.isIdle(now)) return false;
    if (!this.on) return this.own.size === 0;
    this.own.dropExpired(now, this.p.policy.windowMs, this.p.policy.windowKind);
    return this.own.size === 0;
  }
}
