/**
 * Refunds (issue 36) over every design, on a fleet of AsyncGateways sharing one MemoryStore, with a
 * clock the test moves (each gateway syncs every Δ at its own phase; syncs due at an instant run
 * before the requests at it: test/support/phased-fleet.ts). Random requests of cost 1–2 on a few
 * keys; some admits are refunded, right away or a few events later (some after they left the
 * window), some twice.
 *
 * Checked against the central log of the fleet's admits, each admit struck from the moment of its
 * refund:
 * 1. Exact designs (central-log, leases, leases-ask): at every admit, the admits of its key still
 *    counting and not refunded before it number at most L (split: K·ceil(L/K)).
 * 2. `refund` says true exactly when the admit still counts at the refund (a first refund of an
 *    allowed decision), false for a second refund of the same decision.
 * 3. Once every gateway has synced twice more at the end, the store's count of each key is the sum
 *    of the costs of the admits still counting and never refunded: a refund freed exactly its admit's
 *    slots, one that came too late (or twice) freed none (split keeps no store: its own logs instead).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Decision } from '../../src/gateway/decision.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import { seeded } from '../support/fc-seed.js';
import {
  atScale,
  type FleetAdmit,
  fleetFields,
  PhasedFleet,
  stepCost,
  stepDt,
} from '../support/phased-fleet.js';

/** The steps of a case, their costs drawn from `cost`. */
const steps = (cost: fc.Arbitrary<number>, minLength = 1) =>
  fc.array(
    fc.record({
      dt: stepDt,
      g: fc.nat(31),
      key: fc.nat(1),
      cost,
      refundAfter: fc.oneof(
        { weight: 2, arbitrary: fc.constant(-1) },
        { weight: 2, arbitrary: fc.constant(0) },
        { weight: 2, arbitrary: fc.integer({ min: 1, max: 30 }) },
      ),
      twice: fc.boolean(),
    }),
    { minLength, maxLength: Math.max(120, 2 * minLength) },
  );

const caseArb = fc.record({ ...fleetFields, steps: steps(stepCost) });

type Case = typeof caseArb extends fc.Arbitrary<infer T> ? T : never;

interface Refund {
  step: number;
  d: Decision;
  g: number;
  key: string;
  cost: number;
  admit: FleetAdmit;
  twice: boolean;
}

describe('refunds, every design, a fleet on one MemoryStore', () => {
  it('never more than L unrefunded in a window (exact designs), refund says what it took, the store ends exact', async () => {
    await fc.assert(fc.asyncProperty(caseArb, runCase), seeded({ numRuns: 300 }));
  });

  it('the same at scale: K 8–32, L 100 and 1,000', async () => {
    await fc.assert(fc.asyncProperty(atScale(steps), runCase), seeded({ numRuns: 20 }));
  });
});

async function runCase(c: Case): Promise<void> {
  const store = new MemoryStore();
  const fleet = new PhasedFleet(c, store);
  const { gws } = fleet;
  const due: Refund[] = [];
  const refund = (r: Refund) => {
    const live = fleet.counting(r.admit, fleet.now);
    const took = gws[r.g].refund(r.key, r.d, r.cost);
    expect(took).toBe(live);
    if (took) r.admit.struckAt = fleet.now;
    if (r.twice) expect(gws[r.g].refund(r.key, r.d, r.cost)).toBe(false);
  };
  for (let i = 0; i < c.steps.length; i++) {
    const s = c.steps[i];
    await fleet.advance(s.dt);
    for (const r of due.filter((x) => x.step === i)) refund(r);
    const g = s.g % c.gateways;
    const key = `k${s.key}`;
    const d = await gws[g].admit(key, s.cost);
    if (!d.allowed) continue;
    const admit = fleet.record(g, key, d, s.cost);
    const r = { step: i, d, g, key, cost: s.cost, admit, twice: s.twice };
    if (s.refundAfter === 0) refund(r);
    else if (s.refundAfter > 0) due.push({ ...r, step: i + s.refundAfter });
  }
  // every gateway syncs twice more, at one instant: the refunds waiting on a sync go, then land
  await fleet.settle();
  // every admit is pushed by now: the store counts each one counting and never refunded
  fleet.expectStore(store, ['k0', 'k1'], false);
  for (const gw of gws) expect(gw.refundStats.pending).toBe(0);
}
