/** Arrivals for replay tests: a source from an array, and seeded random sequences. */
import type { Arrival, ArrivalSource, ReadStats } from '../../src/replay/arrival.js';
import { Random } from '../../src/sim/random.js';

export function emptyStats(arrivals = 0): ReadStats {
  return { files: [], lines: arrivals, arrivals, malformed: 0, firstMalformed: [], reordered: 0, late: 0 };
}

/** An ArrivalSource over an array (ascending t). */
export function arraySource(list: readonly Arrival[]): ArrivalSource {
  return {
    arrivals: (async function* () {
      yield* list;
    })(),
    stats: () => emptyStats(list.length),
  };
}

/** n arrivals of `keys` keys over K gateways, Poisson at `perSec`, from t0. */
export function randomArrivals(
  seed: number,
  n: number,
  opts: { keys: number; gateways: number; perSec: number; t0?: number; floodEvery?: number },
): Arrival[] {
  const rng = new Random(seed);
  const out: Arrival[] = [];
  let t = opts.t0 ?? 0;
  for (let i = 0; i < n; i++) {
    t += Math.round(rng.exponential(opts.perSec / 1000));
    const a: Arrival = {
      t,
      key: `k${Math.floor(rng.uniform() * opts.keys)}`,
      gateway: Math.floor(rng.uniform() * opts.gateways),
    };
    if (opts.floodEvery !== undefined && i % opts.floodEvery === 0) a.flood = true;
    out.push(a);
  }
  return out;
}
