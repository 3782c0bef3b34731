/**
 * The fast engine against the plain reference engine (test/support/reference-engine.ts), request by
 * request, on random small settings: every design, K 1–6, Δ, W, L, both window kinds, aligned syncs,
 * every traffic kind, both routings, a picked flood, and the store's delay, jitter and sync loss.
 *
 * The fast engine runs twice: with every sync run (everySync) and with its shortcuts on (lazy reads,
 * skipped and fast-forwarded syncs, parked lease gateways); recordDecisions turns the skip of forced
 * rejections off in both. The reference draws the same randomness in the same order (see its header),
 * so each run's decisions must be the same list, admit for admit.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DESIGN_IDS } from '../../src/config.js';
import { DESIGNS } from '../../src/designs/index.js';
import { runSimulation } from '../../src/sim/engine.js';
import type { RunParams } from '../../src/sim/types.js';
import { seeded } from '../support/fc-seed.js';
import { referenceDecisions } from '../support/reference-engine.js';

const RUNS = 150;

/** A small setting; its expected request count is kept under MAX_REQUESTS so a case runs in milliseconds. */
const MAX_REQUESTS = 40_000;

const setting: fc.Arbitrary<RunParams> = fc
  .record({
    design: fc.constantFrom(...DESIGN_IDS),
    gateways: fc.integer({ min: 1, max: 6 }),
    windowS: fc.constantFrom(1, 2, 5, 10, 30),
    /** Δ as a share of W */
    syncShare: fc.constantFrom(0.01, 0.05, 0.1, 0.3, 1),
    limit: fc.integer({ min: 1, max: 30 }),
    windowKind: fc.constantFrom('sliding' as const, 'fixed' as const),
    alignedSyncs: fc.boolean(),
    traffic: fc.constantFrom(
      'steady' as const,
      'pageload' as const,
      'flood' as const,
      'pulsed' as const,
      'onset' as const,
    ),
    load: fc.constantFrom(0.3, 0.8, 1.2, 3, 20),
    routing: fc.constantFrom('even' as const, 'uneven' as const),
    minutes: fc.constantFrom(1, 2.1, 3),
    seed: fc.integer({ min: 0, max: 2 ** 31 - 1 }),
    attack: fc.constantFrom('even' as const, 'pick' as const),
    floodLoad: fc.constantFrom(5, 20),
    // the network: instant most of the time, else a delay (ms), jitter, loss
    net: fc.oneof(
      { weight: 3, arbitrary: fc.constant({}) },
      {
        weight: 2,
        arbitrary: fc.record({
          storeDelayMs: fc.constantFrom(0, 1, 20, 300),
          storeJitterMs: fc.constantFrom(0, 15, 400),
          syncLoss: fc.constantFrom(0, 0.1, 0.5),
        }),
      },
    ),
  })
  .map(({ syncShare, net, ...p }) => ({ ...p, ...net, syncS: Math.max(0.001, p.windowS * syncShare) }))
  .filter((p) => {
    const minutesInWindows = (p.minutes * 60) / p.windowS;
    const honest = p.load * p.limit * minutesInWindows;
    const flood =
      p.traffic === 'pulsed' || p.traffic === 'onset' ? p.floodLoad * p.limit * minutesInWindows : 0;
    return honest + flood < MAX_REQUESTS;
  });

describe('the fast engine decides request by request as the plain reference engine', () => {
  it('on random small settings, with every sync and with its shortcuts (fast-check)', () => {
    let compared = 0;
    let admits = 0;
    let cases = 0;
    let withNet = 0;
    // lease designs with aligned syncs: where parking must keep the order of syncs at one instant
    let leaseAligned = 0;
    const byTraffic = new Map<string, number>();
    const byDesign = new Map<string, number>();
    fc.assert(
      fc.property(setting, (p) => {
        const want = referenceDecisions(p);
        const every = runSimulation(p, { skip: false, everySync: true, recordDecisions: true }).decisions!;
        const fast = runSimulation(p, { recordDecisions: true }).decisions!;
        expect(every.length, 'every sync: decision count').toBe(want.length);
        expect(Buffer.from(every).equals(Buffer.from(want)), 'every sync: decisions').toBe(true);
        expect(fast.length, 'shortcuts: decision count').toBe(want.length);
        expect(Buffer.from(fast).equals(Buffer.from(want)), 'shortcuts: decisions').toBe(true);
        cases++;
        if (DESIGNS[p.design].grants && p.alignedSyncs) leaseAligned++;
        compared += want.length;
        for (const d of want) admits += d;
        if ((p.storeDelayMs ?? 0) > 0 || (p.storeJitterMs ?? 0) > 0 || (p.syncLoss ?? 0) > 0) withNet++;
        byTraffic.set(p.traffic, (byTraffic.get(p.traffic) ?? 0) + 1);
        byDesign.set(p.design, (byDesign.get(p.design) ?? 0) + want.length);
      }),
      seeded({ numRuns: RUNS }),
    );
    const share = compared > 0 ? (100 * admits) / compared : 0;
    console.log(
      `${cases} runs, ${compared} decisions compared (×2: every sync, shortcuts): ${share.toFixed(1)} % admits, ` +
        `${(100 - share).toFixed(1)} % rejects; ${withNet} runs with delay/jitter/loss; ` +
        `${leaseAligned} lease runs with aligned syncs; ` +
        `runs by traffic: ${[...byTraffic].map(([k, n]) => `${k} ${n}`).join(', ')}; ` +
        `decisions by design: ${[...byDesign].map(([k, n]) => `${k} ${n}`).join(', ')}`,
    );
    // a comparison of nothing checks nothing: both outcomes must be well represented
    expect(compared).toBeGreaterThan(10_000);
    expect(share).toBeGreaterThan(5);
    expect(share).toBeLessThan(95);
  });
});
