// The replay engine's key-grouped chunks (ReplayRun with `chunk`, src/replay/run/chunk.ts) against
// time order: on random streams (1–6 keys, sometimes up to 60; K = 1–4, and up to 32; both reads
// modes; every design; gaps from none to beyond W; floods and logged 429s; chunks of random size,
// flushed at random too), the same decision on every arrival and the same whole ReplayResult
// (figures, worst keys, top keys, timelines).
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { DESIGN_IDS, type DesignId } from '../../src/config.js';
import { DESIGNS } from '../../src/designs/index.js';
import type { Arrival } from '../../src/replay/arrival.js';
import { ReplayRun, type TimelineRequest } from '../../src/replay/run/engine.js';
import { ReplayFleet } from '../../src/replay/run/fleet.js';
import type { ReplayResult, ReplaySettings } from '../../src/replay/run/result.js';
import { FC_SEED, seeded } from '../support/fc-seed.js';
import { expectChunkedAsWalk, oneIn, type Step, stepArrivals, stepsOf } from './support.js';

/**
 * The designs whose fleets decide a chunk key by key (ReplayFleet.keyGrouped: split's keys,
 * NeverSyncKeys; adaptive-early's at K > 1 checked: undone and decided in time order where a decision
 * wanted an early sync); central-log decides at the push.
 */
const GROUPED = DESIGN_IDS.filter((id) => DESIGNS[id].requestPath !== 'log');

interface Case {
  designs: DesignId[];
  K: number;
  limit: number;
  windowMs: number;
  syncMs: number;
  reads: 'every-sync' | 'on-request';
  seed: number;
  chunk: number;
  /** [gap ms before, key, gateway, flood, logged 429, flush after] */
  steps: Step[];
}

// gaps from none (requests at one instant) to beyond a window (keys go idle, retire and come back)
const gap = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: 0, max: 400 }) },
  { weight: 2, arbitrary: fc.constant(0) },
  { weight: 2, arbitrary: fc.integer({ min: 400, max: 3000 }) },
  { weight: 1, arbitrary: fc.integer({ min: 3000, max: 25_000 }) },
);

const designs = fc.oneof(
  { weight: 4, arbitrary: fc.subarray(GROUPED, { minLength: 1, maxLength: 3 }) },
  { weight: 1, arbitrary: fc.subarray([...DESIGN_IDS], { minLength: 1, maxLength: 3 }) },
  // central-log (decided at the push) beside grouped fleets
  {
    weight: 1,
    arbitrary: fc
      .subarray(GROUPED, { minLength: 1, maxLength: 2 })
      .map((ds): DesignId[] => ['central-log', ...ds]),
  },
);

const caseOf = (Ks: fc.Arbitrary<number>, pick: fc.Arbitrary<DesignId[]>): fc.Arbitrary<Case> =>
  fc
    .record({
      designs: pick,
      K: Ks,
      limit: fc.integer({ min: 2, max: 12 }),
      windowMs: fc.constantFrom(2000, 5000, 10_000),
      syncMs: fc.constantFrom(250, 700, 1000),
      reads: fc.constantFrom('every-sync' as const, 'on-request' as const),
      seed: fc.integer({ min: 1, max: 1000 }),
      keys: fc.oneof(
        { weight: 4, arbitrary: fc.integer({ min: 1, max: 6 }) },
        fc.integer({ min: 7, max: 60 }),
      ),
      chunk: fc.oneof(fc.integer({ min: 1, max: 8 }), fc.integer({ min: 9, max: 400 })),
    })
    .chain((c) =>
      stepsOf(gap, c.keys, fc.integer({ min: 0, max: c.K - 1 }), [oneIn(5), fc.boolean(), oneIn(20)], {
        minLength: 1,
        maxLength: 300,
      }).map((steps) => ({ ...c, steps })),
    );

const aCase = caseOf(fc.integer({ min: 1, max: 4 }), designs);

function arrivals(c: Case): Arrival[] {
  return stepArrivals(c.steps, true);
}

/** Each arrival's decisions (by its number in the stream), then the whole result. */
function run(
  c: Case,
  list: readonly Arrival[],
  grouped: boolean,
): { decided: number[][]; result: ReplayResult } {
  const settings: ReplaySettings = {
    designs: c.designs,
    gateways: c.K,
    limit: c.limit,
    windowMs: c.windowMs,
    syncMs: c.syncMs,
    seed: c.seed,
    top: 3,
    reads: c.reads,
  };
  const last = list[list.length - 1].t;
  const timeline: TimelineRequest = {
    keys: ['key0', 'key1'],
    origin: 1000,
    bucketMs: 500,
    buckets: Math.ceil((last - 999) / 500),
  };
  const decided: number[][] = [];
  const r = new ReplayRun(settings, timeline, {
    ...(grouped ? { chunk: c.chunk } : {}),
    onDecide: (seq, d) => {
      decided[seq] = [...d];
    },
  });
  for (const [i, a] of list.entries()) {
    r.push(a);
    if (grouped && c.steps[i][5]) r.flush();
  }
  return { decided, result: r.finish() };
}

// fixed unless FC_SEED asks for another (a failure names it)
const SEED = process.env.FC_SEED ? FC_SEED : 3302;

describe('replay engine: key-grouped chunks decide and count as time order', () => {
  it('random streams, every design, K = 1–4, both reads modes, random chunk boundaries', () => {
    let mixed = 0;
    // adaptive-early's checked chunks at K > 1: those that stood, those undone (an early sync wanted)
    const stood = vi.spyOn(ReplayFleet.prototype, 'endCheck');
    const undone = vi.spyOn(ReplayFleet.prototype, 'rollback');
    try {
      fc.assert(
        fc.property(aCase, (c) => {
          const list = arrivals(c);
          const time = run(c, list, false);
          const grouped = run(c, list, true);
          expect(grouped.decided).toEqual(time.decided);
          expect(grouped.result).toEqual(time.result);
          if (c.designs.some((d) => GROUPED.includes(d)) && c.designs.some((d) => !GROUPED.includes(d)))
            mixed++;
        }),
        { ...seeded({ numRuns: 1000 }), seed: SEED },
      );
      // some cases mix grouped fleets with central-log, decided at the push (195 at seed 3302; seeds 1, 2: 178, 210)
      expect(mixed).toBeGreaterThan(100);
      // and adaptive-early's checked chunks, both ways (150 stood, 349 undone at seed 3302)
      expect(stood.mock.calls.length).toBeGreaterThan(75);
      expect(undone.mock.calls.length).toBeGreaterThan(175);
    } finally {
      stood.mockRestore();
      undone.mockRestore();
    }
  }, 120_000);

  it('K up to 32: keys held at many gateways at once, their syncs merged in the fleet order', () => {
    fc.assert(
      fc.property(
        caseOf(fc.constantFrom(8, 16, 32), fc.subarray(GROUPED, { minLength: 1, maxLength: 2 })),
        (c) => {
          const list = arrivals(c);
          const time = run(c, list, false);
          const grouped = run(c, list, true);
          expect(grouped.decided).toEqual(time.decided);
          expect(grouped.result).toEqual(time.result);
        },
      ),
      { ...seeded({ numRuns: 200 }), seed: SEED },
    );
  }, 120_000);
});

/**
 * The look-ahead (KeySyncs.lookAhead): a lazy design's chunk is decided knowing each request's
 * gateway's next on the key, so a gateway's syncs are skipped up to its own next request, not the
 * key's next on any gateway. A few keys spread at random over many gateways, back within Δ to a few
 * Δ (each gateway holds a key long between its own requests there), chunks long enough to hold many
 * of a key's requests and short enough that a gateway's next often lies in a later chunk.
 */
const LAZY = DESIGN_IDS.filter((id) => DESIGNS[id].syncs === 'lazy' && DESIGNS[id].earlySyncs === null);

const spreadGap = fc.oneof(
  { weight: 2, arbitrary: fc.constant(0) },
  { weight: 6, arbitrary: fc.integer({ min: 0, max: 1500 }) },
  { weight: 1, arbitrary: fc.integer({ min: 1500, max: 12_000 }) },
);

const spreadCase: fc.Arbitrary<Case> = fc
  .record({
    designs: fc.subarray(LAZY, { minLength: 1, maxLength: 2 }),
    K: fc.constantFrom(4, 8, 16, 32),
    limit: fc.integer({ min: 2, max: 30 }),
    windowMs: fc.constantFrom(2000, 5000, 10_000),
    syncMs: fc.constantFrom(250, 700, 1000),
    reads: fc.constantFrom('every-sync' as const, 'on-request' as const),
    seed: fc.integer({ min: 1, max: 1000 }),
    keys: fc.integer({ min: 1, max: 3 }),
    chunk: fc.oneof(fc.integer({ min: 2, max: 30 }), fc.integer({ min: 31, max: 400 })),
  })
  .chain((c) =>
    stepsOf(spreadGap, c.keys, fc.integer({ min: 0, max: c.K - 1 }), [oneIn(10), fc.boolean(), oneIn(30)], {
      minLength: 20,
      maxLength: 300,
    }).map((steps) => ({ ...c, steps })),
  );

describe('replay engine: the look-ahead of a key spread over many gateways', () => {
  it('lazy designs, K = 4–32, requests at random gateways: decided and counted as time order', () => {
    fc.assert(
      fc.property(spreadCase, (c) => {
        const list = arrivals(c);
        const time = run(c, list, false);
        const grouped = run(c, list, true);
        expect(grouped.decided).toEqual(time.decided);
        expect(grouped.result).toEqual(time.result);
      }),
      { ...seeded({ numRuns: 400 }), seed: SEED },
    );
  }, 180_000);
});

/**
 * The lease designs on the key-grouped path against the walk itself (ReplayFleet `walk: true`, in time
 * order): tight limits, so grants run out and leases-ask asks the store, and chunks that span many of a
 * key's syncs. A store call that sweeps the store mid-chunk (leases-ask's ask through `ask`, not
 * `askKey`) prunes a key whose earlier requests are still to be decided: the cases above, at limits up
 * to 12, did not catch that; these do.
 */
// denser than `gap`: keys come back within W, so the grants run out
const leaseGap = fc.oneof(
  { weight: 3, arbitrary: fc.constant(0) },
  { weight: 6, arbitrary: fc.integer({ min: 0, max: 600 }) },
  { weight: 1, arbitrary: fc.integer({ min: 600, max: 4000 }) },
);

const leaseCase = fc
  .record({
    design: fc.constantFrom('leases' as const, 'leases-ask' as const),
    K: fc.integer({ min: 1, max: 3 }),
    limit: fc.integer({ min: 2, max: 4 }),
    windowMs: fc.constantFrom(2000, 5000),
    syncMs: fc.constantFrom(250, 700, 1000),
    keys: fc.integer({ min: 2, max: 6 }),
    chunk: fc.integer({ min: 50, max: 1000 }),
  })
  .chain((c) =>
    fc
      // long enough to reach the store's sweep (fast-check's bias keeps arrays short otherwise)
      .array(
        fc.tuple(leaseGap, fc.integer({ min: 0, max: c.keys - 1 }), fc.integer({ min: 0, max: c.K - 1 })),
        {
          minLength: 30,
          maxLength: 150,
        },
      )
      .map((steps) => ({ ...c, steps })),
  );

describe('replay engine: the lease designs key-grouped decide and count as the walk', () => {
  it('random streams, tight limits, long chunks', () => {
    fc.assert(
      fc.property(leaseCase, (c) => {
        expectChunkedAsWalk(c, 7);
      }),
      { ...seeded({ numRuns: 500 }), seed: SEED },
    );
  }, 120_000);
});
