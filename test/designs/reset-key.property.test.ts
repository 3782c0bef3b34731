/**
 * resetKey (issue 36) over every design, on a fleet of 1–4 AsyncGateways sharing one MemoryStore,
 * with a clock the test moves (each gateway syncs every Δ at its own phase; syncs due at an instant
 * run before the requests at it: test/support/phased-fleet.ts). Random requests of cost 1–2 on two keys, and random resets of a key
 * on one gateway (awaited, with the round it runs).
 *
 * Checked against the central log of the fleet's admits, each struck from the moment it is reset: the
 * resetting gateway's own admits it had not pushed, at once; every admit the store had been pushed
 * (at or before its now), when the reset lands. Admits another gateway had not pushed yet are not
 * struck: they count once pushed (docs/decisions/0014-reset-key.md). The store sees its pushes
 * through a MemoryStore whose sync and resetKey are watched.
 * 1. Exact designs (central-log, leases, leases-ask): at every admit, the admits of its key still
 *    counting and not reset before it number at most L (split: K·ceil(L/K)).
 * 2. After every step, the store's count of each key is the sum of the admits pushed, still counting
 *    and not reset: right after a reset, 0 plus what was pushed since (split keeps no store).
 * 3. resetKey resolves true; at the end, after every gateway syncs, nothing waits.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ResetKeyReply, ResetKeyRequest, SyncRequest, SyncResult } from '../../src/store/contract.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import { seeded } from '../support/fc-seed.js';
import { atScale, fleetFields, PhasedFleet, stepCost, stepDt } from '../support/phased-fleet.js';

/** The steps of a case, their costs drawn from `cost`. */
const steps = (cost: fc.Arbitrary<number>, minLength = 1) =>
  fc.array(
    fc.record({
      dt: stepDt,
      g: fc.nat(31),
      key: fc.nat(1),
      cost,
      reset: fc.oneof(
        { weight: 6, arbitrary: fc.constant(false) },
        { weight: 1, arbitrary: fc.constant(true) },
      ),
    }),
    { minLength, maxLength: Math.max(120, 2 * minLength) },
  );

const caseArb = fc.record({ ...fleetFields, steps: steps(stepCost) });

type Case = typeof caseArb extends fc.Arbitrary<infer T> ? T : never;

/** A MemoryStore telling the test what each sync pushed and what each reset struck. */
class WatchedStore extends MemoryStore {
  fleet: PhasedFleet | undefined;

  override sync(req: SyncRequest, now: number): SyncResult {
    this.fleet?.pushedBy(req);
    return super.sync(req, now);
  }

  override resetKey(req: ResetKeyRequest, now: number): ResetKeyReply {
    // every admit the store had been pushed, at or before its now, is struck when the reset lands
    for (const a of this.fleet?.admits ?? [])
      if (a.key === req.key && a.pushed && a.at <= now && a.struckAt === Number.POSITIVE_INFINITY)
        a.struckAt = now;
    return super.resetKey(req, now);
  }
}

describe('resetKey, every design, a fleet on one MemoryStore', () => {
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
  const keys = ['k0', 'k1'];
  for (const s of c.steps) {
    await fleet.advance(s.dt);
    const g = s.g % c.gateways;
    const key = `k${s.key}`;
    if (s.reset) {
      // the resetting gateway's own admits not pushed are forgotten at once
      for (const a of fleet.admits)
        if (a.g === g && a.key === key && !a.pushed && !fleet.struck(a)) a.struckAt = fleet.now;
      expect(await gws[g].resetKey(key)).toBe(true);
      // the round the reset ran in, to its end
      await gws[g].syncNow();
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
