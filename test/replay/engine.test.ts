import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DESIGN_IDS, type DesignId } from '../../src/config.js';
import { DESIGNS } from '../../src/designs/index.js';
import type { Arrival } from '../../src/replay/arrival.js';
import { ReplayRun, replay } from '../../src/replay/run/engine.js';
import type { ReplaySettings } from '../../src/replay/run/result.js';
import { runManyKeys } from '../../src/sim/many-keys.js';
import { arraySource, randomArrivals } from './support.js';

const settings = (over: Partial<ReplaySettings> = {}): ReplaySettings => ({
  designs: ['central-log'],
  gateways: 1,
  limit: 5,
  windowMs: 10_000,
  syncMs: 1000,
  seed: 1,
  top: 5,
  ...over,
});

/** An exact sliding log written apart from the engine: admit iff fewer than L admits in (t − W, t]. */
function slidingLog(arrivals: readonly Arrival[], L: number, W: number): number[] {
  const logs = new Map<string, number[]>();
  return arrivals.map((a) => {
    const log = logs.get(a.key) ?? [];
    logs.set(a.key, log);
    const live = log.filter((x) => a.t - x < W).length;
    if (live >= L) return 0;
    log.push(a.t);
    return 1;
  });
}

/** Each design's decision on each arrival, in `designs` order: the fleets', never the reference's. */
function decisions(list: readonly Arrival[], s: ReplaySettings): number[][] {
  const run = new ReplayRun(s);
  const out: number[][] = s.designs.map(() => []);
  for (const a of list) {
    run.push(a);
    for (const [i, d] of s.designs.entries()) out[i].push(run.decided[run.order.indexOf(d, 1)]);
  }
  return out;
}

const arrivalList = fc
  .record({
    seed: fc.integer({ min: 1, max: 1_000_000 }),
    n: fc.integer({ min: 1, max: 400 }),
    keys: fc.integer({ min: 1, max: 4 }),
    perSec: fc.constantFrom(0.5, 2, 10, 50),
  })
  .map(({ seed, n, keys, perSec }) => randomArrivals(seed, n, { keys, gateways: 1, perSec, t0: 5000 }));

describe('replay engine: exact where it claims to be', () => {
  it('central-log on one gateway equals an exact sliding log computed apart', () => {
    fc.assert(
      fc.property(
        arrivalList,
        fc.integer({ min: 1, max: 8 }),
        fc.constantFrom(1000, 10_000),
        (list, L, W) => {
          const [got] = decisions(list, settings({ limit: L, windowMs: W }));
          expect(got).toEqual(slidingLog(list, L, W));
        },
      ),
      { seed: 33, numRuns: 60 },
    );
  });

  it('the reference central log (the tallies’ sliding log) decides as central-log’s fleet does, at any K', () => {
    const list = randomArrivals(5, 5000, { keys: 5, gateways: 4, perSec: 20 });
    const run = new ReplayRun(settings({ gateways: 4 }));
    expect(run.order).toEqual(['central-log', 'central-log']);
    let rejected = 0;
    for (const a of list) {
      run.push(a);
      expect(run.decided[1]).toBe(run.decided[0]);
      rejected += 1 - run.decided[0];
    }
    expect(rejected).toBeGreaterThan(100);
  });

  // lease designs are left out: they admit nothing until a sync has granted slots
  it('with one gateway, every design without grants decides request for request like the central log', () => {
    const designs = DESIGN_IDS.filter((d) => d !== 'central-log' && !DESIGNS[d].grants);
    expect(designs).toHaveLength(6);
    fc.assert(
      fc.property(
        arrivalList,
        fc.integer({ min: 1, max: 8 }),
        fc.constantFrom(250, 1000, 3000),
        (list, L, D) => {
          const s = settings({ designs: ['central-log', ...designs], limit: L, syncMs: D });
          const [central, ...rest] = decisions(list, s);
          for (const [i, got] of rest.entries())
            expect({ design: designs[i], got }).toEqual({ design: designs[i], got: central });
        },
      ),
      { seed: 34, numRuns: 40 },
    );
  });
});

describe('replay engine: the simulator’s decisions', () => {
  // the many-keys simulation drives the same gateways over scripted arrivals: same arrivals, same seed,
  // the same admits, for every design at K > 1
  /** Bursts of 300 arrivals at 40/s, each after a quiet 30 s (longer than W: every key goes idle). */
  const withGaps = (seed: number) => {
    const list = randomArrivals(seed, 3000, { keys: 6, gateways: 4, perSec: 40, t0: 0 });
    return list.map((a, i) => ({ ...a, t: a.t + Math.floor(i / 300) * 30_000 }));
  };

  it.each(DESIGN_IDS as readonly DesignId[])('%s at K = 4 admits what runManyKeys admits', async (design) => {
    for (const [seed, gaps] of [
      [1, false],
      [2, false],
      [3, true],
      [4, true],
    ] as const) {
      const list = gaps
        ? withGaps(seed)
        : randomArrivals(seed, 3000, { keys: 6, gateways: 4, perSec: 40, t0: 0 });
      list[0].t = 0; // the simulator's syncs start at 0, the replay's at the first arrival
      const r = await replay(arraySource(list), settings({ designs: [design], gateways: 4, seed }));
      const keyOf = (k: string) => Number(k.slice(1));
      const sim = runManyKeys(
        {
          design,
          gateways: 4,
          syncS: 1,
          limit: 5,
          windowS: 10,
          windowKind: 'sliding',
          alignedSyncs: false,
          traffic: 'steady',
          load: 0,
          routing: 'even',
          minutes: 10,
          seed,
          keys: 6,
          floodKeys: 0,
        },
        { script: list.map((a) => ({ t: a.t, key: keyOf(a.key), gateway: a.gateway })) },
      );
      expect(r.designs[0].requests).toBe(sim.requests);
      expect(r.designs[0].admitted).toBe(sim.admitted);
    }
  });
});
