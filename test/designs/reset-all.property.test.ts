/**
 * resetAll (issue 36: express-rate-limit's resetAll) over every design, on a fleet of 1–4
 * AsyncGateways sharing one MemoryStore, with a clock the test moves, as
 * test/designs/reset-key.property.test.ts does for resetKey. Random requests of cost 1–2 on three
 * keys, random resets of one key and random resets of every key on one gateway (awaited, with the
 * round they run). The store resets in chunks of one key, so a reset of every key takes a call per key.
 *
 * Checked against the central log of the fleet's admits, each struck from the moment it is reset:
 * the resetting gateway's own admits it had not pushed, at once; every admit the store had been
 * pushed, at or before the reset's instant, when the store resets its key (a key's reset through
 * resetKey's path: the store's now; through the scan: the instant resetAll was called). Admits
 * another gateway had not pushed yet count once pushed (docs/decisions/0015-reset-all.md).
 * 1. Exact designs (central-log, leases, leases-ask): at every admit, the admits of its key still
 *    counting and not reset before it number at most L (split: K·ceil(L/K)).
 * 2. After every step, the store's count of each key is the sum of the admits pushed, still counting
 *    and not reset.
 * 3. resetAll and resetKey resolve true; once resetAll has, every admit the store counted when it
 *    was called is reset. At the end, after every gateway syncs, nothing waits.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Policy } from '../../src/config.js';
import type { ResetScanReply, ResetScanRequest, SyncRequest, SyncResult } from '../../src/store/contract.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import { seeded } from '../support/fc-seed.js';
import { atScale, fleetFields, PhasedFleet, stepCost, stepDt } from '../support/phased-fleet.js';

/** The steps of a case, their costs drawn from `cost`. */
const steps = (cost: fc.Arbitrary<number>, minLength = 1) =>
  fc.array(
    fc.record({
      dt: stepDt,
      g: fc.nat(31),
      key: fc.nat(2),
      cost,
      reset: fc.oneof(
        { weight: 8, arbitrary: fc.constant('none' as const) },
        { weight: 1, arbitrary: fc.constant('key' as const) },
        { weight: 2, arbitrary: fc.constant('all' as const) },
      ),
    }),
    { minLength, maxLength: Math.max(120, 2 * minLength) },
  );

const caseArb = fc.record({ ...fleetFields, steps: steps(stepCost) });

type Case = typeof caseArb extends fc.Arbitrary<infer T> ? T : never;

/** A MemoryStore telling the test what each sync pushed and each key's reset struck. */
class WatchedStore extends MemoryStore {
  fleet: PhasedFleet | undefined;

  override sync(req: SyncRequest, now: number): SyncResult {
    this.fleet?.pushedBy(req);
    return super.sync(req, now);
  }

  protected override resetThrough(key: string, policy: Policy, at: number, now: number): number {
    // every admit pushed at or before the reset's instant is struck when the store resets its key
    for (const a of this.fleet?.admits ?? [])
      if (a.key === key && a.pushed && a.at <= at && a.struckAt === Number.POSITIVE_INFINITY)
        a.struckAt = this.fleet!.now;
    return super.resetThrough(key, policy, at, now);
  }

  override resetScan(req: ResetScanRequest, now: number): ResetScanReply {
    // a key a call: the scan goes in as many chunks as keys
    return super.resetScan({ ...req, count: 1 }, now);
  }
}

describe('resetAll, every design, a fleet on one MemoryStore', () => {
  it('never more than L not reset in a window (exact designs); the store counts exactly what was pushed and not reset', async () => {
    await fc.assert(fc.asyncProperty(caseArb, runCase), seeded({ numRuns: 300 }));
  });

  it('the same at scale: K 8–32, L 100 and 1,000', async () => {
    await fc.assert(fc.asyncProperty(atScale(steps), runCase), seeded({ numRuns: 20 }));
  });
});

async function runCase(c: Case): Promise<void> {
  const store = new WatchedStore();
  const fleet = new PhasedFleet(c, store);
  store.fleet = fleet;
  const { gws } = fleet;
  const keys = ['k0', 'k1', 'k2'];
  for (const s of c.steps) {
    await fleet.advance(s.dt);
    const g = s.g % c.gateways;
    const key = `k${s.key}`;
    if (s.reset !== 'none') {
      // the resetting gateway's own admits not pushed are forgotten at once
      for (const a of fleet.admits)
        if (a.g === g && (s.reset === 'all' || a.key === key) && !a.pushed && !fleet.struck(a))
          a.struckAt = fleet.now;
      // every admit the store counts when resetAll is called: each must be reset once it resolves
      const counted = fleet.admits.filter(
        (a) => a.pushed && fleet.counting(a, fleet.now) && !fleet.struck(a),
      );
      expect(await (s.reset === 'all' ? gws[g].resetAll() : gws[g].resetKey(key))).toBe(true);
      // the round the reset ran in, to its end
      await gws[g].syncNow();
      if (s.reset === 'all') for (const a of counted) expect(fleet.struck(a)).toBe(true);
      fleet.expectStore(store, keys);
      continue;
    }
    const d = await gws[g].admit(key, s.cost);
    if (!d.allowed) continue;
    fleet.record(g, key, d, s.cost);
    fleet.expectStore(store, keys);
  }
  await fleet.settle();
  fleet.expectStore(store, keys);
  for (const gw of gws) expect(gw.resetStats.pending).toBe(0);
}
