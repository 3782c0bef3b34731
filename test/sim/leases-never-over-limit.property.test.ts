/**
 * Issue 17, "Must show": the lease designs never admit more than L in any window, whatever the
 * store's delay, jitter and sync loss. fast-check draws K, Δ, W, L, the flood's load, the delay, the
 * jitter, the loss, the window kind, the routing, aligned syncs and the seed; each run's own count of
 * its admits must stay within L: no aligned window (fixed) or W-long span (sliding) over L.
 *
 * A run that never reaches L checks nothing, so the generator is biased towards runs that do: the
 * load is a flood (1.2× to 30× L per W), runs last 6–14 windows, and Δ is at most W/4. At least
 * REACH of the cases must fill some window to exactly L; the test asserts that too.
 *
 * Two domains:
 * - every sync answered, in less than 2Δ (delay ≤ Δ, jitter < delay): the admits a grant paid for
 *   reach the store by the next sync, before the grant can lapse (lease TTL ≥ 3Δ). Holds today.
 * - any delay (up to 2.5Δ, jitter up to as much again) and sync loss (5–60 %). This failed for both
 *   designs before issue 17's fixes (main at deca3c8). leases: consecutive lost syncs (or a round trip
 *   past 2Δ) kept a gateway's admits from the store past its grant's lapse, and the store granted
 *   those slots again (item 3; e.g. K = 15, Δ = 3 s, L = 12, W = 30 s fixed, aligned, load 30,
 *   seed 6, delay 60 ms, loss 0.3: 20 in a window). leases-ask, besides: a resent sync handed back
 *   grants from asks answered after the failed attempt (item 2). A lapsed grant now stays counted
 *   for a window, and a sync hands back only grants tagged below its seq.
 *   Lapsed grants held a window longer also strand slots, so fewer lossy runs fill a window: this
 *   domain's floods start at 2× L.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { runSimulation } from '../../src/sim/engine.js';
import type { RunParams } from '../../src/sim/types.js';
import { seeded } from '../support/fc-seed.js';

/** The share of cases that must reach L for the property to count. */
const REACH = 0.55;
const RUNS = 80;
const DESIGNS = ['leases', 'leases-ask'] as const;

interface Domain {
  /** store delay, as multiples of Δ */
  delays: number[];
  /** jitter, as multiples of the delay */
  jitters: number[];
  losses: number[];
  loads: number[];
  /**
   * The share of cases that must reach L. Seeds vary between runs (test/support/fc-seed.ts), so it
   * is set below the shares measured over FC_SEED=1…10 and 17 (see the domains): more than 4
   * standard deviations of an 80-case share (about 5 %) below their mean.
   */
  reach: number;
}

const ANSWERED: Domain = {
  delays: [0, 0, 0.02, 0.2, 1],
  jitters: [0, 0.1, 0.99],
  losses: [0],
  loads: [1.2, 1.5, 2, 5, 10, 30],
  // measured, FC_SEED=1…10 and 17: leases 58–66, leases-ask 74–79 of 80
  reach: REACH,
};
const ANY: Domain = {
  delays: [0, 0.02, 0.2, 1, 2.5],
  jitters: [0, 0.1, 1],
  losses: [0.05, 0.3, 0.6],
  loads: [2, 5, 10, 30],
  // measured, FC_SEED=1…10 and 17: leases 38–55, leases-ask 62–75 of 80 (plain leases asks by its
  // mean and lost syncs strand a lapsed grant's slots for a window, so a run fills a window less
  // often; with seed 17 fixed the floor was 0.5, which FC_SEED=6 misses: 38 of 80)
  reach: 0.35,
};

const runs = (d: Domain) =>
  fc
    .record({
      gateways: fc.integer({ min: 1, max: 16 }),
      windowS: fc.constantFrom(2, 5, 10, 30, 60),
      /** Δ as a share of W */
      syncFrac: fc.constantFrom(0.01, 0.02, 0.05, 0.1, 0.25),
      limit: fc.integer({ min: 5, max: 200 }),
      load: fc.constantFrom(...d.loads),
      delayFrac: fc.constantFrom(...d.delays),
      jitterFrac: fc.constantFrom(...d.jitters),
      syncLoss: fc.constantFrom(...d.losses),
      windowKind: fc.constantFrom('sliding' as const, 'fixed' as const),
      routing: fc.constantFrom('even' as const, 'uneven' as const),
      alignedSyncs: fc.boolean(),
      windows: fc.integer({ min: 6, max: 14 }),
      seed: fc.integer({ min: 1, max: 1_000_000 }),
    })
    .map((c): Omit<RunParams, 'design'> => {
      const syncS = c.windowS * c.syncFrac;
      const p: Omit<RunParams, 'design'> = {
        gateways: c.gateways,
        syncS,
        limit: c.limit,
        windowS: c.windowS,
        windowKind: c.windowKind,
        alignedSyncs: c.alignedSyncs,
        traffic: 'flood',
        load: c.load,
        routing: c.routing,
        minutes: (c.windows * c.windowS) / 60,
        seed: c.seed,
      };
      // the real-world fields only when set, as the CLI does (a plain run is the study's run)
      const delayMs = Math.round(c.delayFrac * syncS * 1000);
      if (delayMs > 0) p.storeDelayMs = delayMs;
      const jitterMs = Math.floor(c.jitterFrac * delayMs);
      if (jitterMs > 0) p.storeJitterMs = jitterMs;
      if (c.syncLoss > 0) p.syncLoss = c.syncLoss;
      return p;
    });

/** Admits in the worst window, and the windows over L (the simulator's own count of its admits). */
function overL(design: RunParams['design'], p: Omit<RunParams, 'design'>) {
  const m = runSimulation({ ...p, design });
  // worstWindow: the most admits in any W-long span, / L (an integer count: exactly 1 at L)
  const worst = Math.round(m.worstWindow * p.limit);
  // a fixed window's W-long span across a boundary may hold up to 2L; its windows over L are counted
  const cap = p.windowKind === 'sliding' ? p.limit : 2 * p.limit;
  return { worst, reached: worst >= p.limit, over: m.windowsOverLimit, beyondCap: Math.max(0, worst - cap) };
}

function check(design: RunParams['design'], d: Domain): void {
  let reached = 0;
  let cases = 0;
  fc.assert(
    fc.property(runs(d), (p) => {
      const r = overL(design, p);
      cases++;
      if (r.reached) reached++;
      expect({ over: r.over, beyondCap: r.beyondCap }, `worst ${r.worst}, L ${p.limit}`).toEqual({
        over: 0,
        beyondCap: 0,
      });
    }),
    seeded({ numRuns: RUNS, endOnFailure: true }),
  );
  console.log(`${design}: ${reached} of ${cases} cases reach L`);
  expect(reached / cases).toBeGreaterThanOrEqual(d.reach);
}

describe('the lease designs never admit more than L in any window (simulator, property)', () => {
  for (const design of DESIGNS) {
    it(`${design}: every sync answered within 2Δ, any delay and jitter there`, () => check(design, ANSWERED));
  }
  for (const design of DESIGNS) {
    it(`${design}: any store delay, jitter and sync loss`, () => check(design, ANY));
  }

  // The issue's own case: K = 8, Δ = 1 s, load 1.5, delay 20 ms, 30 % of syncs lost. leases-ask went
  // over L (5–13 admits over L per seed, worst window 1.02–1.05 L, on main at deca3c8); leases did not.
  for (const design of DESIGNS) {
    it(`${design}: K = 8, Δ = 1 s, load 1.5, delay 20 ms, sync loss 30 %, seeds 1–3`, () => {
      for (const seed of [1, 2, 3]) {
        const p = {
          gateways: 8,
          syncS: 1,
          limit: 100,
          windowS: 60,
          windowKind: 'sliding',
          alignedSyncs: false,
          traffic: 'flood',
          load: 1.5,
          routing: 'even',
          minutes: 20,
          seed,
          storeDelayMs: 20,
          syncLoss: 0.3,
        } as const;
        const r = overL(design, p);
        // (leases strands slots on gateways that hold what they asked for: it stays a little under L)
        expect({ seed, worst: r.worst, over: r.over }).toEqual({
          seed,
          worst: Math.min(r.worst, 100),
          over: 0,
        });
      }
    });
  }
});
