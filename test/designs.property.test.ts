import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { DesignId, WindowKind } from '../src/config.js';
import { mergeEvents, runFleet, worstWindow } from './support/fleet-driver.js';

const kinds: WindowKind[] = ['sliding', 'fixed'];

/** Sorted request times in [0, end), integer ms so that ties happen. */
const times = (end: number, max: number) =>
  fc
    .array(fc.integer({ min: 0, max: end - 1 }), { minLength: 1, maxLength: max })
    .map((a) => a.sort((x, y) => x - y));

describe('with one gateway the synced designs decide exactly like the central log', () => {
  for (const design of ['shared-counter', 'assume-others', 'track-share', 'adaptive'] as DesignId[]) {
    for (const windowKind of kinds) {
      it(`${design}, ${windowKind} window`, () => {
        fc.assert(
          fc.property(
            fc.integer({ min: 1, max: 12 }),
            fc.integer({ min: 50, max: 1000 }),
            fc.double({ min: 0.05, max: 1, noNaN: true }),
            times(6000, 300),
            (limit, windowMs, syncFrac, ts) => {
              const syncMs = Math.max(1, Math.round(windowMs * syncFrac));
              const reqs = ts.map((t) => ({ t, gw: 0 }));
              const events = mergeEvents(reqs, 1, syncMs, [0], 6000);
              const base = { limit, windowMs, windowKind, gateways: 1, syncMs };
              const got = runFleet({ ...base, design }, events).decisions;
              const want = runFleet({ ...base, design: 'central-log' }, events).decisions;
              expect(got).toEqual(want);
            },
          ),
          { numRuns: 150, seed: 42 },
        );
      });
    }
  }
});

/** Random requests over K gateways with random routing and random sync phases. */
const fleetCase = fc.record({
  gateways: fc.integer({ min: 1, max: 8 }),
  limit: fc.integer({ min: 1, max: 20 }),
  windowMs: fc.integer({ min: 100, max: 1000 }),
  syncFrac: fc.double({ min: 0.02, max: 1, noNaN: true }),
  seedTimes: times(5000, 400),
  route: fc.array(fc.nat(), { minLength: 400, maxLength: 400 }),
  phases: fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 8, maxLength: 8 }),
  windowKind: fc.constantFrom<WindowKind>('sliding', 'fixed'),
});

type FleetCase = typeof fleetCase extends fc.Arbitrary<infer T> ? T : never;

function play(design: DesignId, c: FleetCase) {
  const syncMs = Math.max(1, Math.round(c.windowMs * c.syncFrac));
  const reqs = c.seedTimes.map((t, i) => ({ t, gw: c.route[i] % c.gateways }));
  const phases = c.phases.map((p) => Math.floor(p * syncMs));
  const events = mergeEvents(reqs, c.gateways, syncMs, phases, 5000);
  return runFleet(
    { design, limit: c.limit, windowMs: c.windowMs, windowKind: c.windowKind, gateways: c.gateways, syncMs },
    events,
  );
}

describe('exact designs never exceed L in any window', () => {
  for (const design of ['central-log', 'leases', 'leases-ask'] as DesignId[]) {
    it(`${design}: at most L admitted in any window across all gateways`, () => {
      fc.assert(
        fc.property(fleetCase, (c) => {
          const { admitted } = play(design, c);
          expect(worstWindow(admitted, c.windowMs, c.windowKind)).toBeLessThanOrEqual(c.limit);
        }),
        { numRuns: 200, seed: 7 },
      );
    });
  }

  it('split: at most K·ceil(L/K) in any window', () => {
    fc.assert(
      fc.property(fleetCase, (c) => {
        const { admitted } = play('split', c);
        expect(worstWindow(admitted, c.windowMs, c.windowKind)).toBeLessThanOrEqual(
          c.gateways * Math.ceil(c.limit / c.gateways),
        );
      }),
      { numRuns: 200, seed: 11 },
    );
  });
});
