import { routingWeights } from '../sim/engine.js';
import { Random } from '../sim/random.js';
import type { Routing, TrafficKind } from '../sim/types.js';

/** A flood on top of the traffic from `atMs` on (onset traffic), at `load` × L per W. */
export interface FloodOnset {
  load: number;
  atMs: number;
  /** the whole flood to gateway 0 (the simulator's attack 'pick'); else spread evenly */
  pick: boolean;
}

export interface Arrival {
  /** ms since the start of the run */
  t: number;
  gateway: number;
}

/**
 * The simulator's traffic as a stream of (instant, gateway) in time order, from a seeded RNG:
 * steady and flood are Poisson arrivals at load × L per W, each routed to gateway i with the
 * routing's weight; page loads are bursts of 10 requests 100 ms apart at a tenth of that rate,
 * each request routed on its own (as in src/sim/engine/traffic.ts). Onset traffic adds a flood from
 * its instant on, drawn from a generator of its own, so the honest arrivals of a seed stay the same.
 */
export class Arrivals {
  private readonly rng: Random;
  private readonly cum: Float64Array;
  private readonly ratePerMs: number;
  private readonly pageload: boolean;
  private next: number;
  /** pending page-load requests, sorted by time */
  private readonly queue: Arrival[] = [];
  private readonly flood: { rng: Random; ratePerMs: number; pick: boolean; gateways: number } | null;
  private floodNext = Number.POSITIVE_INFINITY;

  constructor(
    traffic: TrafficKind,
    load: number,
    limit: number,
    windowMs: number,
    routing: Routing,
    gateways: number,
    seed: number,
    onset?: FloodOnset,
  ) {
    this.rng = new Random(seed);
    const w = routingWeights(routing, gateways);
    this.cum = new Float64Array(gateways);
    for (let i = 0, c = 0; i < gateways; i++) this.cum[i] = c += w[i];
    this.ratePerMs = (load * limit) / windowMs;
    this.pageload = traffic === 'pageload';
    // an empty key before an onset: no honest arrivals at all
    this.next =
      this.ratePerMs > 0
        ? this.rng.exponential(this.pageload ? this.ratePerMs / 10 : this.ratePerMs)
        : Number.POSITIVE_INFINITY;
    this.flood =
      onset === undefined
        ? null
        : {
            rng: new Random((seed ^ 0x3c6ef372) >>> 0),
            ratePerMs: (onset.load * limit) / windowMs,
            pick: onset.pick,
            gateways,
          };
    if (this.flood !== null && this.flood.ratePerMs > 0)
      this.floodNext = onset!.atMs + this.flood.rng.exponential(this.flood.ratePerMs);
  }

  /** the earliest page-load request queued (Infinity: none) */
  private nextQueued(): number {
    return this.queue.length === 0 ? Number.POSITIVE_INFINITY : this.queue[0].t;
  }

  private pick(): number {
    const u = this.rng.uniform();
    const k = this.cum.length;
    for (let i = 0; i < k - 1; i++) if (u < this.cum[i]) return i;
    return k - 1;
  }

  /** The next arrival, in time order. */
  take(): Arrival {
    const f = this.flood;
    if (
      f !== null &&
      this.floodNext <= this.next &&
      (!this.pageload || this.floodNext <= this.nextQueued())
    ) {
      const a = { t: this.floodNext, gateway: f.pick ? 0 : Math.floor(f.rng.uniform() * f.gateways) };
      this.floodNext += f.rng.exponential(f.ratePerMs);
      return a;
    }
    if (!this.pageload) {
      const a = { t: this.next, gateway: this.pick() };
      this.next += this.rng.exponential(this.ratePerMs);
      return a;
    }
    // a burst that starts before the earliest queued request adds its 10 requests first
    while (this.queue.length === 0 || this.next <= this.queue[0].t) {
      for (let i = 0; i < 10; i++) {
        const a = { t: this.next + i * 100, gateway: this.pick() };
        let j = this.queue.length;
        while (j > 0 && this.queue[j - 1].t > a.t) j--;
        this.queue.splice(j, 0, a);
      }
      this.next += this.rng.exponential(this.ratePerMs / 10);
    }
    return this.queue.shift()!;
  }
}
