import type { Random } from '../random.js';
import type { RunParams } from '../types.js';
import { InstantQueue } from './instant-queue.js';
import type { RunState } from './run-state.js';

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

/** Onset traffic: the flood comes on after this many windows of the honest client alone. */
export const ONSET_AFTER_WINDOWS = 2;

/** Pulsed traffic: the flood is on for PULSE_ON_MS every PULSE_EVERY_MS, the first pulse at PULSE_EVERY_MS. */
export const PULSE_ON_MS = 2_000;
export const PULSE_EVERY_MS = 120_000;

/**
 * A run's arrivals: per-gateway Poisson streams (steady, flood) or page-load bursts; pulsed and onset
 * traffic add a flood stream per gateway (on/off) to a steady honest client. Every draw comes from
 * the run's generator, in the order the loop asks for them.
 */
export class Traffic {
  readonly pageload: boolean;
  /** pulsed or onset: a steady honest stream plus a flood stream per gateway */
  readonly mixed: boolean;
  /** Each gateway's steady (or flood-only) rate per ms; 0 with page loads. */
  readonly lambda: Float64Array;
  /** Each gateway's next steady arrival (RunState.nextArr). The loop draws the next one itself. */
  private readonly nextArr: Float64Array;
  /** Each gateway's next flood arrival (RunState.nextFlood). */
  private readonly nextFlood: Float64Array;
  /** When the flood first comes on (onset, pulsed), −1 without one. */
  readonly onsetAt: number;
  private readonly K: number;
  private readonly end: number;
  private readonly rng: Random;
  private readonly floodLambda: Float64Array;
  private readonly pulseOn: number;
  private readonly cumWeights: Float64Array;
  private readonly burstRate: number;
  /** page loads: every drawn arrival not yet taken, and each gateway's own (its first is its next) */
  readonly plQueue = new InstantQueue();
  private readonly plMine: InstantQueue[];
  /** the start of the next burst not drawn yet */
  private nextBurst = Number.POSITIVE_INFINITY;

  constructor(run: RunState) {
    const { params, K, L, W } = run;
    const pick = params.attack === 'pick';
    this.K = K;
    this.end = run.end;
    this.rng = run.rng;
    this.nextArr = run.nextArr;
    this.nextFlood = run.nextFlood;
    this.mixed = params.traffic === 'pulsed' || params.traffic === 'onset';
    this.pageload = params.traffic === 'pageload';
    const floodOnly = params.traffic === 'flood';
    const ratePerMs = (params.load * L) / W;
    const weights = routingWeights(params.routing, K);
    this.cumWeights = new Float64Array(K);
    for (let i = 0, c = 0; i < K; i++) this.cumWeights[i] = c += weights[i];
    this.lambda = new Float64Array(K);
    for (let g = 0; g < K; g++) {
      if (this.pageload) this.lambda[g] = 0;
      else if (floodOnly && pick) this.lambda[g] = g === 0 ? ratePerMs : 0;
      else this.lambda[g] = ratePerMs * weights[g];
    }
    this.burstRate = ratePerMs / 10;
    const floodRate = this.mixed ? ((params.floodLoad ?? 1000) * L) / W : 0;
    this.floodLambda = new Float64Array(K);
    for (let g = 0; g < K; g++) this.floodLambda[g] = pick ? (g === 0 ? floodRate : 0) : floodRate / K;
    this.onsetAt =
      params.traffic === 'onset'
        ? ONSET_AFTER_WINDOWS * W
        : params.traffic === 'pulsed'
          ? PULSE_EVERY_MS
          : -1;
    this.pulseOn = params.traffic === 'pulsed' ? PULSE_ON_MS : Number.POSITIVE_INFINITY;
    this.plMine = this.pageload ? Array.from({ length: K }, () => new InstantQueue()) : [];
  }

  /** g's first arrivals (the loop calls this right after g's sync-phase draw). */
  startGateway(g: number): void {
    if (!this.pageload && this.lambda[g] > 0) this.nextArr[g] = this.rng.exponential(this.lambda[g]);
    if (this.mixed) this.nextFlood[g] = this.drawFlood(g, 0);
  }

  /** The first burst's start (after every gateway's first draws). */
  startBursts(): void {
    if (this.pageload && this.burstRate > 0) this.nextBurst = this.rng.exponential(this.burstRate);
  }

  /** The next flood arrival at g after t: the flood is on in [onsetAt + n·period, + pulseOn). Memoryless, so exact. */
  drawFlood(g: number, t: number): number {
    const rate = this.floodLambda[g];
    if (!(rate > 0)) return Number.POSITIVE_INFINITY;
    const onsetAt = this.onsetAt;
    const pulseOn = this.pulseOn;
    let at = Math.max(t, onsetAt);
    for (;;) {
      if (pulseOn === Number.POSITIVE_INFINITY) return at + this.rng.exponential(rate);
      const n = Math.floor((at - onsetAt) / PULSE_EVERY_MS);
      const start = onsetAt + n * PULSE_EVERY_MS;
      if (at < start + pulseOn) {
        const x = at + this.rng.exponential(rate);
        if (x < start + pulseOn) return x;
      }
      at = start + PULSE_EVERY_MS;
    }
  }

  /**
   * Next arrival at g can be no earlier than this. Page loads: bursts are drawn ahead (the burst
   * process does not depend on any decision, so drawing it early changes nothing) until one holds an
   * arrival for g, so that a gateway is not woken for every burst that goes elsewhere.
   */
  arrivalBound(g: number): number {
    if (this.pageload) return this.pageloadBound(g);
    return this.mixed ? Math.min(this.nextArr[g], this.nextFlood[g]) : this.nextArr[g];
  }

  private pageloadBound(g: number): number {
    for (;;) {
      const mine = this.plMine[g].first();
      // a burst not drawn yet starts at nextBurst or later
      if (mine <= this.nextBurst || this.nextBurst >= this.end || this.plQueue.length >= MAX_LOOKAHEAD) {
        return Math.min(mine, this.nextBurst);
      }
      this.drawBurst();
    }
  }

  /** The page-load stream's next event: its next queued arrival or the next burst to draw. */
  nextPageload(): number {
    return Math.min(this.nextBurst, this.plQueue.first());
  }

  /**
   * The page-load stream's event at nextPageload(): takes its next arrival and returns its gateway,
   * or, when the next burst comes first, draws it and returns −1.
   */
  takePageload(): number {
    const q = this.plQueue;
    if (q.length > 0 && q.first() <= this.nextBurst) {
      const g = q.firstTag();
      q.shift();
      this.plMine[g].shift();
      return g;
    }
    this.drawBurst();
    return -1;
  }

  /** Draws the next burst: its 10 arrivals, 100 ms apart and each routed on its own, join the queue (bursts may overlap: kept sorted). */
  private drawBurst(): void {
    for (let i = 0; i < 10; i++) {
      const at = this.nextBurst + i * 100;
      const g = this.pickGateway();
      this.plQueue.insert(at, g);
      this.plMine[g].insert(at, g);
    }
    this.nextBurst += this.rng.exponential(this.burstRate);
  }

  private pickGateway(): number {
    const u = this.rng.uniform();
    const K = this.K;
    for (let i = 0; i < K - 1; i++) if (u < this.cumWeights[i]) return i;
    return K - 1;
  }
}
