/**
 * The designs against their guarantees on random traffic through the in-process fleet (MemoryStore).
 *
 * A case that never fills a window to L checks nothing about the limit, so the traffic is biased
 * towards saturating it: a few floods (0.5–20 × L per W, most of them 2–20 ×, each 1–8 windows long,
 * on all gateways or on one), a sprinkle of background requests, up to 8 gateways, syncs mostly at
 * most W/4 apart. Each test counts the cases that reach its bound, prints the share, and asserts a
 * floor on it (REACH below: measured over seeds 1–10, min–max beside each).
 *
 * Seeds vary between runs of the suite (test/support/fc-seed.ts); a failure prints its seed and
 *   FC_SEED=N npx vitest run test/designs/fleet-bounds.property.test.ts
 * replays it.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { DesignId, WindowKind } from '../../src/config.js';
import { seeded } from '../support/fc-seed.js';
import { mergeEvents, runFleet, worstWindow } from '../support/fleet-driver.js';

const END = 5000;
/** At most this many flood requests per case: a case stays cheap (ms), whatever L and W. */
const MAX_FLOOD_REQUESTS = 600;
const RUNS = 300;

/**
 * The share of cases that must reach the bound. Measured as the tests run (300 cases, one gateway
 * 150), FC_SEED=1…10, min–max: central-log 95–99 %, leases 82–87 %, leases-ask 94–98 %, split (its
 * bound K·ceil(L/K)) 74–82 %; one gateway, cases where the central log rejects: 93–99 %. (The old
 * generator, uniform times: central-log 10–19 %, leases 3–8.5 % with a quarter of cases admitting
 * nothing, leases-ask 10–18 %, split 2–5.5 %; one gateway 9–16 %.) Each floor sits at least 7
 * standard deviations of its share below the measured mean, so it holds for any seed.
 */
const REACH: Record<string, number> = {
  'central-log': 0.85,
  leases: 0.7,
  'leases-ask': 0.85,
  split: 0.6,
  oneGateway: 0.8,
};

/** A stretch of traffic: `load` × L requests per W for `windows` windows from `at`, on one gateway or all. */
const flood = fc.record({
  at: fc.integer({ min: 0, max: END - 1 }),
  windows: fc.double({ min: 1, max: 8, noNaN: true }),
  load: fc.oneof(
    { weight: 1, arbitrary: fc.double({ min: 0.5, max: 2, noNaN: true }) },
    { weight: 3, arbitrary: fc.double({ min: 2, max: 20, noNaN: true }) },
  ),
  one: fc.constantFrom(false, false, false, true),
});

const traffic = {
  floods: fc.array(flood, { minLength: 1, maxLength: 4 }),
  /** each flood request's offset within its gap, in thousandths (so that ties and bunching happen) */
  jitter: fc.array(fc.integer({ min: 0, max: 1000 }), { minLength: 64, maxLength: 64 }),
  background: fc.array(fc.integer({ min: 0, max: END - 1 }), { maxLength: 60 }),
  route: fc.array(fc.nat(), { minLength: 64, maxLength: 64 }),
  windowKind: fc.constantFrom<WindowKind>('sliding', 'fixed'),
};

/** Random floods over K gateways with random routing and random sync phases. */
const fleetCase = fc.record({
  gateways: fc.integer({ min: 1, max: 8 }),
  limit: fc.integer({ min: 1, max: 20 }),
  windowMs: fc.integer({ min: 100, max: 1000 }),
  syncFrac: fc.oneof(
    { weight: 3, arbitrary: fc.double({ min: 0.02, max: 0.25, noNaN: true }) },
    { weight: 1, arbitrary: fc.double({ min: 0.02, max: 1, noNaN: true }) },
  ),
  phases: fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 8, maxLength: 8 }),
  ...traffic,
});

type FleetCase = typeof fleetCase extends fc.Arbitrary<infer T> ? T : never;
type Traffic = Pick<FleetCase, keyof typeof traffic | 'gateways' | 'limit' | 'windowMs'>;

/** The requests of a case, sorted by time (integer ms, so that ties happen). */
function requests(c: Traffic): { t: number; gw: number }[] {
  const reqs = c.background.map((t, i) => ({ t, gw: c.route[i % 64] % c.gateways }));
  const budget = Math.floor(MAX_FLOOD_REQUESTS / c.floods.length);
  let j = 0;
  for (const f of c.floods) {
    const perMs = (f.load * c.limit) / c.windowMs;
    const n = Math.min(budget, Math.max(1, Math.round(perMs * f.windows * c.windowMs)));
    const gw = c.route[j % 64] % c.gateways;
    for (let i = 0; i < n; i++, j++) {
      const t = Math.floor(f.at + (i + c.jitter[j % 64] / 1000) / perMs);
      if (t >= END) break;
      reqs.push({ t, gw: f.one ? gw : c.route[j % 64] % c.gateways });
    }
  }
  return reqs.sort((a, b) => a.t - b.t);
}

/** Counts the cases that reach the bound; prints and checks the share once the run is done. */
function coverage(name: string, floor: number) {
  let cases = 0;
  let reached = 0;
  return {
    count(reach: boolean) {
      cases++;
      if (reach) reached++;
    },
    check() {
      console.log(`${name}: ${reached} of ${cases} cases reach L (${Math.round((100 * reached) / cases)} %)`);
      expect(reached / cases, `${name}: share of cases that reach the bound`).toBeGreaterThanOrEqual(floor);
    },
  };
}

describe('with one gateway the synced designs decide exactly like the central log', () => {
  const oneGatewayCase = fc.record({
    limit: fc.integer({ min: 1, max: 12 }),
    windowMs: fc.integer({ min: 50, max: 1000 }),
    syncFrac: fc.double({ min: 0.05, max: 1, noNaN: true }),
    ...traffic,
  });
  for (const design of ['shared-counter', 'assume-others', 'track-share', 'adaptive'] as DesignId[]) {
    for (const windowKind of ['sliding', 'fixed'] as WindowKind[]) {
      it(`${design}, ${windowKind} window`, () => {
        // the designs differ from the central log only at L: count the cases where it rejects
        const cov = coverage(`${design}, ${windowKind}, one gateway`, REACH.oneGateway);
        fc.assert(
          fc.property(oneGatewayCase, (c) => {
            const syncMs = Math.max(1, Math.round(c.windowMs * c.syncFrac));
            const events = mergeEvents(requests({ ...c, gateways: 1 }), 1, syncMs, [0], END);
            const base = { limit: c.limit, windowMs: c.windowMs, windowKind, gateways: 1, syncMs };
            const got = runFleet({ ...base, design }, events).decisions;
            const want = runFleet({ ...base, design: 'central-log' }, events).decisions;
            cov.count(want.includes(false));
            expect(got).toEqual(want);
          }),
          seeded({ numRuns: 150 }),
        );
        cov.check();
      });
    }
  }
});

function play(design: DesignId, c: FleetCase) {
  const syncMs = Math.max(1, Math.round(c.windowMs * c.syncFrac));
  const phases = c.phases.map((p) => Math.floor(p * syncMs));
  const events = mergeEvents(requests(c), c.gateways, syncMs, phases, END);
  return runFleet(
    { design, limit: c.limit, windowMs: c.windowMs, windowKind: c.windowKind, gateways: c.gateways, syncMs },
    events,
  );
}

describe('exact designs never exceed L in any window', () => {
  for (const design of ['central-log', 'leases', 'leases-ask'] as DesignId[]) {
    it(`${design}: at most L admitted in any window across all gateways`, () => {
      const cov = coverage(design, REACH[design]);
      fc.assert(
        fc.property(fleetCase, (c) => {
          const worst = worstWindow(play(design, c).admitted, c.windowMs, c.windowKind);
          cov.count(worst >= c.limit);
          expect(worst).toBeLessThanOrEqual(c.limit);
        }),
        seeded({ numRuns: RUNS }),
      );
      cov.check();
    });
  }

  it('split: at most K·ceil(L/K) in any window', () => {
    const cov = coverage('split (bound K·ceil(L/K))', REACH.split);
    fc.assert(
      fc.property(fleetCase, (c) => {
        const bound = c.gateways * Math.ceil(c.limit / c.gateways);
        const worst = worstWindow(play('split', c).admitted, c.windowMs, c.windowKind);
        cov.count(worst >= bound);
        expect(worst).toBeLessThanOrEqual(bound);
      }),
      seeded({ numRuns: RUNS }),
    );
    cov.check();
  });
});
