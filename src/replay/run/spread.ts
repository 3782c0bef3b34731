/**
 * `--spread`: access logs stamp requests to the second, so a burst of 30 requests "at" 12:00:01 would
 * reach the designs in one instant, which no client sends. Spreading places arrivals that share a
 * timestamp over that timestamp's resolution (1 s for a whole-second stamp, else 1 ms), never past the
 * next distinct timestamp, keeping their order: `even` at i/n of the span, `random` at sorted seeded
 * uniform draws. `none` keeps the log's times (the exact comparison with a sliding log uses it).
 */

import { Random } from '../../sim/random.js';
import type { Arrival } from '../arrival.js';
import { type Emit, type Stage, staged } from './stage.js';

export const SPREADS = ['none', 'even', 'random'] as const;
export type Spread = (typeof SPREADS)[number];

/** The span arrivals stamped t may be spread over: the stamp's resolution. */
function resolutionMs(t: number): number {
  return t % 1000 === 0 ? 1000 : 1;
}

/** --spread as a stage; null for `none` (no stage at all). */
export function spreadStage(how: Spread, seed: number): Stage | null {
  return how === 'none' ? null : new SpreadStage(how, seed);
}

class SpreadStage implements Stage {
  private group: Arrival[] = [];
  private readonly rng: Random;

  constructor(
    private readonly how: Exclude<Spread, 'none'>,
    seed: number,
  ) {
    // its own stream: the same seed spreads the same way whatever else draws
    this.rng = new Random((seed ^ 0x3c6ef372) >>> 0);
  }

  push(a: Arrival, emit: Emit): void {
    const group = this.group;
    if (group.length > 0 && a.t !== group[0].t) {
      this.place(a.t, emit);
      this.group = [];
    }
    this.group.push(a);
  }

  end(emit: Emit): void {
    if (this.group.length > 0) this.place(Number.POSITIVE_INFINITY, emit);
    this.group = [];
  }

  /** Emits the group of one stamp spread over its span, never reaching `next` (the next stamp). */
  private place(next: number, emit: Emit): void {
    const group = this.group;
    const t0 = group[0].t;
    const n = group.length;
    const span = Math.min(resolutionMs(t0), next - t0);
    if (this.how === 'even') {
      for (let i = 0; i < n; i++) emit(i === 0 ? group[0] : { ...group[i], t: t0 + (i * span) / n });
      return;
    }
    const offsets = group.map(() => this.rng.uniform() * span).sort((x, y) => x - y);
    for (let i = 0; i < n; i++) emit({ ...group[i], t: t0 + offsets[i] });
  }
}

/** --spread over an async source (a stage; the source itself for `none`). */
export function spreadArrivals(
  source: AsyncIterable<Arrival>,
  how: Spread,
  seed: number,
): AsyncIterable<Arrival> {
  const stage = spreadStage(how, seed);
  return stage === null ? source : staged(source, [stage]);
}
