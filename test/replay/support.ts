/** Arrivals for replay tests: a source from an array, and seeded random sequences. */
import fc from 'fast-check';
import { expect } from 'vitest';
import type { DesignId } from '../../src/config.js';
import type { Arrival, ArrivalSource, ReadStats } from '../../src/replay/arrival.js';
import { ReplayRun } from '../../src/replay/run/engine.js';
import { ReplayFleet } from '../../src/replay/run/fleet.js';
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

/**
 * A property case's step: the gap before it (ms), its key's number, its gateway, then the case's
 * own flags (a flood, a logged 429, the chunk ends after it…).
 */
export type Step = [dt: number, key: number, gateway: number, ...flags: boolean[]];

/** True one time in n. */
export const oneIn = (n: number): fc.Arbitrary<boolean> =>
  fc.integer({ min: 0, max: n - 1 }).map((x) => x === 0);

/** A case's steps: each a gap, one of `keys` keys, a gateway, and one draw of each flag. */
export function stepsOf(
  gap: fc.Arbitrary<number>,
  keys: number,
  gateway: fc.Arbitrary<number>,
  flags: fc.Arbitrary<boolean>[],
  constraints: fc.ArrayConstraints,
): fc.Arbitrary<Step[]> {
  return fc.array(
    fc.tuple(gap, fc.integer({ min: 0, max: keys - 1 }), gateway, ...flags) as fc.Arbitrary<Step>,
    constraints,
  );
}

/**
 * A case's arrivals, from t = 1000, key k named `key${k}`; with `marked`, the first two flags are a
 * flood and a logged 429.
 */
export function stepArrivals(steps: readonly Step[], marked = false): Arrival[] {
  let t = 1000;
  return steps.map(([dt, k, g, flood, is429]) => {
    t += dt;
    const a: Arrival = { t, key: `key${k}`, gateway: g };
    if (marked && flood === true) a.flood = true;
    if (marked && is429 === true) a.status = 429;
    return a;
  });
}

/** A fleet's shape and a case's steps, for `expectChunkedAsWalk`. */
export interface ChunkedCase {
  design: DesignId;
  K: number;
  limit: number;
  windowMs: number;
  syncMs: number;
  chunk: number;
  steps: readonly Step[];
}

/**
 * The case replayed in chunks of `c.chunk` decides every request as the walk itself does (ReplayFleet
 * `walk: true`: every sync a store call, in time order), with the same key-syncs and store calls.
 */
export function expectChunkedAsWalk(c: ChunkedCase, seed: number): void {
  const list = stepArrivals(c.steps);
  const spec = { design: c.design, gateways: c.K, limit: c.limit, windowMs: c.windowMs, syncMs: c.syncMs };
  const walk = new ReplayFleet({ ...spec, seed, origin: list[0].t, walk: true });
  const want = list.map((a) => (walk.arrive(a.key, a.gateway, a.t) ? 1 : 0));
  const got: number[] = [];
  const r = new ReplayRun({ ...spec, designs: [c.design], seed, top: 3 }, null, {
    chunk: c.chunk,
    onDecide: (seq, d) => {
      got[seq] = d[1];
    },
  });
  for (const a of list) r.push(a);
  const d = r.finish().designs[0];
  expect(got).toEqual(want);
  expect(d.keySyncs).toBe(walk.keySyncs());
  expect(d.storeCalls).toBe(walk.storeCalls());
}
