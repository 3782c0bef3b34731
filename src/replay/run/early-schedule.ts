/**
 * The early syncs (Design.earlySyncs, adaptive-early) of the replay's per-key syncs (KeySyncs): each
 * gateway's token bucket, taken in time order as `Gateway.allow` takes it, and the early syncs sent
 * so far, each recorded as it happens (its gateway, its instant, the fleet's sync index then) so that
 * every key the gateway held then catches up through it later, in its place among the regular syncs.
 * Whether one is sent depends on the decision before it, and a key's later request must see an early
 * sync another key's request started: a fleet that records them decides its chunks checked
 * (src/replay/run/checked.ts), sending early syncs only in time order.
 */
import { EarlySyncBucket } from '../../designs/early-syncs.js';
import type { Design } from '../../designs/index.js';

export class EarlySchedule {
  private readonly buckets: EarlySyncBucket[];
  /** Per early sync kept (from number `base` on): its gateway, instant and sync index (see `indexOf`). */
  private readonly gs: number[] = [];
  private readonly ats: number[] = [];
  private readonly idxs: number[] = [];
  /** The number of the first early sync kept (the ones before it every key has passed). */
  private base = 0;

  constructor(spec: NonNullable<Design['earlySyncs']>, K: number, syncMs: number) {
    this.buckets = Array.from({ length: K }, () => new EarlySyncBucket(spec.burst, spec.perSync, syncMs));
  }

  /** Early syncs sent so far; the next one's number. */
  get end(): number {
    return this.base + this.gs.length;
  }

  /**
   * A key on gateway g wants an early sync at t, after the regular syncs below sync index `idx`:
   * sent (recorded) if g's bucket has a token.
   */
  take(g: number, t: number, idx: number): boolean {
    if (!this.buckets[g].take(t)) return false;
    this.gs.push(g);
    this.ats.push(t);
    this.idxs.push(idx);
    return true;
  }

  /** The gateway of early sync e. */
  gatewayOf(e: number): number {
    return this.gs[e - this.base];
  }

  /** The instant of early sync e. */
  atOf(e: number): number {
    return this.ats[e - this.base];
  }

  /**
   * The fleet's sync index when early sync e was sent: it comes after every regular sync below it
   * and before every other (a regular sync at a request's instant runs before the request).
   */
  indexOf(e: number): number {
    return this.idxs[e - this.base];
  }

  /** The first early sync after regular sync index `end`'s place (from early sync `from` on). */
  firstAfter(end: number, from: number): number {
    let e = Math.max(from, this.base);
    const stop = this.end;
    while (e < stop && this.indexOf(e) <= end) e++;
    return e;
  }

  /** Forgets the early syncs before number e (every key has run them). */
  forgetBefore(e: number): void {
    const n = e - this.base;
    if (n <= 0) return;
    this.gs.splice(0, n);
    this.ats.splice(0, n);
    this.idxs.splice(0, n);
    this.base = e;
  }
}
