/**
 * `--spread`: access logs stamp requests to the second, so a burst of 30 requests "at" 12:00:01 would
 * reach the designs in one instant, which no client sends. Spreading places arrivals that share a
 * timestamp over that timestamp's resolution (1 s for a whole-second stamp, else 1 ms), never past the
 * next distinct timestamp, keeping their order: `even` at i/n of the span, `random` at sorted seeded
 * uniform draws. `none` keeps the log's times (the exact comparison with a sliding log uses it).
 */

import { Random } from '../../sim/random.js';
import type { Arrival } from '../arrival.js';

export const SPREADS = ['none', 'even', 'random'] as const;
export type Spread = (typeof SPREADS)[number];

/** The span arrivals stamped t may be spread over: the stamp's resolution. */
function resolutionMs(t: number): number {
  return t % 1000 === 0 ? 1000 : 1;
}

export function spreadArrivals(
  source: AsyncIterable<Arrival>,
  how: Spread,
  seed: number,
): AsyncIterable<Arrival> {
  // no layer at all when nothing is spread: each async generator layer costs every arrival a promise
  return how === 'none' ? source : spread(source, how, seed);
}

async function* spread(source: AsyncIterable<Arrival>, how: Spread, seed: number): AsyncGenerator<Arrival> {
  // its own stream: the same seed spreads the same way whatever else draws
  const rng = new Random((seed ^ 0x3c6ef372) >>> 0);
  let group: Arrival[] = [];
  const place = (next: number): Arrival[] => {
    const t0 = group[0].t;
    const n = group.length;
    if (n === 1 && how === 'even') return group;
    const span = Math.min(resolutionMs(t0), next - t0);
    const offsets =
      how === 'even'
        ? group.map((_, i) => (i * span) / n)
        : group.map(() => rng.uniform() * span).sort((a, b) => a - b);
    return group.map((a, i) => ({ ...a, t: t0 + offsets[i] }));
  };
  for await (const a of source) {
    if (group.length > 0 && a.t !== group[0].t) {
      yield* place(a.t);
      group = [];
    }
    group.push(a);
  }
  if (group.length > 0) yield* place(Number.POSITIVE_INFINITY);
}
