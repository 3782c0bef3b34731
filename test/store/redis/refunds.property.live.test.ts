/**
 * refundAdmits on Redis against MemoryStore (issue 36): random pushes by a few gateways (runs of
 * several instants, several admits at one instant: packed members, one-run members, central-log
 * calls), and random refunds of what they pushed, some resent, some of admits aged out, some of
 * instants no one pushed at. After each step the key's count and listed expiries are compared:
 * - exact mode: equal to MemoryStore's, always;
 * - compact mode, fixed windows (a bucket never straddles a window): the count is MemoryStore's;
 *   sliding windows: never below it (a bucket counts until its latest admit's expiry).
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Refund } from '../../../src/store/contract.js';
import { seeded } from '../../support/fc-seed.js';
import { type SingleFixture, singleServer } from '../../support/redis-fixtures.js';
import type { AnyStore } from '../../support/store-contract.js';
import { pushRuns, StorePair, storeCase } from '../../support/store-pair.js';

let fx: SingleFixture;
beforeAll(async () => {
  fx = await singleServer();
});
afterAll(async () => {
  await fx?.close();
});

const step = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      op: fc.constant('push' as const),
      gw: fc.nat(2),
      dt: fc.integer({ min: 0, max: 400 }),
      runs: pushRuns,
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constant('call' as const),
      gw: fc.nat(2),
      dt: fc.integer({ min: 0, max: 100 }),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      op: fc.constant('refund' as const),
      gw: fc.nat(2),
      dt: fc.integer({ min: 0, max: 200 }),
      /** which earlier admit instant (index into those pushed), or a made-up one */
      pick: fc.nat(),
      made: fc.boolean(),
      cost: fc.integer({ min: 1, max: 3 }),
      resend: fc.boolean(),
    }),
  },
);

const caseArb = storeCase(step);

type Case = typeof caseArb extends fc.Arbitrary<infer T> ? T : never;

async function run(c: Case, redis: AnyStore, compact: boolean): Promise<void> {
  const pair = new StorePair(redis, c, 2 * c.windowMs);
  const { mem, policy } = pair;
  const refundSeqs = [0, 0, 0];
  const instants: number[] = [];
  for (const s of c.steps) {
    pair.now += s.dt;
    const now = pair.now;
    if (s.op === 'push') instants.push(...(await pair.push(s.gw, 'k', s.runs)));
    else if (s.op === 'call') {
      await pair.call(s.gw, 'k');
      instants.push(now);
    } else {
      const at =
        s.made || instants.length === 0
          ? now - (s.pick % c.windowMs) - 0.5
          : instants[s.pick % instants.length];
      const r: Refund = { key: 'k', seq: ++refundSeqs[s.gw], at, cost: s.cost };
      const a = mem.refundAdmits(`g${s.gw}`, policy, [r], now);
      // compact mode cannot tell the instants of a bucket apart: it is sent only refunds of admits
      // that count, each of its cost, as a gateway sends them (see docs/decisions/0012-refunds.md)
      const sent = compact ? { ...r, cost: a } : r;
      const b = !compact || a > 0 ? await redis.refundAdmits!(`g${s.gw}`, policy, [sent], now) : 0;
      expect(b).toBe(a);
      if (s.resend) {
        expect(mem.refundAdmits(`g${s.gw}`, policy, [r], now)).toBe(0);
        if (!compact || a > 0) expect(await redis.refundAdmits!(`g${s.gw}`, policy, [sent], now)).toBe(0);
      }
    }
    if (!compact) await pair.expectSame('k');
    else {
      const [ra, rb] = await pair.read('k');
      if (c.windowKind === 'fixed') expect(rb.count).toBe(ra.count);
      else expect(rb.count).toBeGreaterThanOrEqual(ra.count);
    }
  }
}
describe('refundAdmits on Redis against MemoryStore', () => {
  it('exact mode: the same count and expiries after every step', async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(caseArb, async (c) => {
        await run(c, fx.store({ clock: 'caller', prefix: `rf${n++}:` }), false);
      }),
      seeded({ numRuns: 60 }),
    );
  });

  it('compact mode: the same count in fixed windows, never less in sliding ones', async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(caseArb, async (c) => {
        const store = fx.store({ clock: 'caller', mode: 'buckets', buckets: 10, prefix: `rc${n++}:` });
        await run(c, store, true);
      }),
      seeded({ numRuns: 60 }),
    );
  });
});
