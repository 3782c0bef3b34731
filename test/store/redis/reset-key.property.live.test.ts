/**
 * resetKey on Redis against MemoryStore (issue 36): random pushes by a few gateways (runs of several
 * instants, some after the store's now: a caller's clock ahead), central-log calls and resets. After
 * each step the key's count and listed expiries are compared:
 * - exact mode: equal to MemoryStore's, always (a reset keeps the runs after its now, rewritten);
 * - compact mode: never below MemoryStore's (a bucket holding an admit after the reset's now stays
 *   whole), and equal in fixed windows while nothing was pushed ahead of the store's now.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
    weight: 4,
    arbitrary: fc.record({
      op: fc.constant('push' as const),
      gw: fc.nat(2),
      dt: fc.integer({ min: 0, max: 300 }),
      ahead: fc.boolean(),
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
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant('reset' as const),
      gw: fc.nat(2),
      dt: fc.integer({ min: 0, max: 200 }),
    }),
  },
);

const caseArb = storeCase(step);

type Case = typeof caseArb extends fc.Arbitrary<infer T> ? T : never;

async function run(c: Case, redis: AnyStore, compact: boolean): Promise<void> {
  const pair = new StorePair(redis, c, 3 * c.windowMs);
  const { mem, policy } = pair;
  let pushedAhead = false;
  for (const s of c.steps) {
    pair.now += s.dt;
    const now = pair.now;
    if (s.op === 'push') {
      // ahead: the runs spread over [now - 30, now + 30] (a caller's clock ahead of the store's)
      const admits = await pair.push(s.gw, 'k', s.runs, s.ahead ? 30 : 0);
      if (admits.some((t) => t > now)) pushedAhead = true;
    } else if (s.op === 'call') await pair.call(s.gw, 'k');
    else {
      const r = { gatewayId: `g${s.gw}`, key: 'k', policy };
      const a = mem.resetKey(r, now);
      const b = await redis.resetKey!(r, now);
      expect(b.now).toBe(now);
      // (compact mode counted a bucket until its latest admit left: it may remove more)
      if (!compact) expect(b.removed).toBe(a.removed);
    }
    if (!compact) await pair.expectSame('k');
    else {
      const [ra, rb] = await pair.read('k');
      if (c.windowKind === 'fixed' && !pushedAhead) expect(rb.count).toBe(ra.count);
      else expect(rb.count).toBeGreaterThanOrEqual(ra.count);
    }
  }
}
describe('resetKey on Redis against MemoryStore', () => {
  it('exact mode: the same count and expiries after every step', async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(caseArb, async (c) => {
        await run(c, fx.store({ clock: 'caller', prefix: `rs${n++}:` }), false);
      }),
      seeded({ numRuns: 60 }),
    );
  });

  it('compact mode: never less, the same in fixed windows while nothing was pushed ahead', async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(caseArb, async (c) => {
        const store = fx.store({ clock: 'caller', mode: 'buckets', buckets: 10, prefix: `rk${n++}:` });
        await run(c, store, true);
      }),
      seeded({ numRuns: 60 }),
    );
  });
});
