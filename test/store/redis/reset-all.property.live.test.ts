/**
 * resetScan (resetAll) on Redis against MemoryStore (issue 36): random pushes by a few gateways on a
 * few keys (runs of several instants, some after the store's now: a caller's clock ahead),
 * central-log calls, and resets of every key through an instant a little before the store's now (the
 * instant resetAll was called; admits since must stay), scanned in small chunks. After each step
 * every key's count and listed expiries are compared:
 * - exact mode: equal to MemoryStore's, always (a reset keeps the runs after its instant, rewritten);
 * - compact mode: never below MemoryStore's (a bucket holding an admit after the instant stays whole).
 * On one redis-server and on the local 3-master Cluster.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ResetScanReply } from '../../../src/store/contract.js';
import { seeded } from '../../support/fc-seed.js';
import {
  type ClusterFixture,
  localCluster,
  type SingleFixture,
  singleServer,
} from '../../support/redis-fixtures.js';
import type { AnyStore } from '../../support/store-contract.js';
import { pushRuns, StorePair, storeCase } from '../../support/store-pair.js';

let fx: SingleFixture;
let cx: ClusterFixture;
beforeAll(async () => {
  [fx, cx] = await Promise.all([singleServer(), localCluster()]);
}, 60_000);
afterAll(async () => {
  await Promise.all([fx?.close(), cx?.close()]);
});

const KEYS = ['k', 'a*b', 'j}m[x]:y', 'ü'.repeat(120)];

const step = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      op: fc.constant('push' as const),
      gw: fc.nat(2),
      key: fc.nat(KEYS.length - 1),
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
      key: fc.nat(KEYS.length - 1),
      dt: fc.integer({ min: 0, max: 100 }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant('reset' as const),
      gw: fc.nat(2),
      dt: fc.integer({ min: 0, max: 200 }),
      lag: fc.integer({ min: 0, max: 80 }),
      count: fc.integer({ min: 1, max: 3 }),
    }),
  },
);

const caseArb = storeCase(step);

type Case = typeof caseArb extends fc.Arbitrary<infer T> ? T : never;

async function run(c: Case, redis: AnyStore, compact: boolean): Promise<void> {
  const pair = new StorePair(redis, c, 3 * c.windowMs);
  const { mem, policy } = pair;
  for (const s of c.steps) {
    pair.now += s.dt;
    const now = pair.now;
    // ahead: the runs spread over [now - 30, now + 30] (a caller's clock ahead of the store's)
    if (s.op === 'push') await pair.push(s.gw, KEYS[s.key], s.runs, s.ahead ? 30 : 0);
    else if (s.op === 'call') await pair.call(s.gw, KEYS[s.key]);
    else {
      // the reset was asked for `lag` ms before it reaches the store
      const at = now - s.lag;
      const removed = [0, 0];
      for (const [i, st] of [mem, redis].entries()) {
        let cursor: string | null = '';
        while (cursor !== null) {
          const r: ResetScanReply = await Promise.resolve(
            st.resetScan!({ gatewayId: `g${s.gw}`, policy, at, cursor, count: s.count }, now),
          );
          removed[i] += r.removed;
          cursor = r.cursor;
        }
      }
      // (compact mode counted a bucket until its latest admit left: it may remove more or less)
      if (!compact) expect(removed[1]).toBe(removed[0]);
    }
    for (const key of KEYS) {
      if (!compact) await pair.expectSame(key);
      else {
        const [ra, rb] = await pair.read(key);
        expect(rb.count, key).toBeGreaterThanOrEqual(ra.count);
      }
    }
  }
}
describe('resetScan on Redis against MemoryStore', () => {
  it('one server, exact mode: the same counts and expiries after every step', async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(caseArb, async (c) => {
        await run(c, fx.store({ clock: 'caller', prefix: `ra${n++}:` }), false);
      }),
      seeded({ numRuns: 60 }),
    );
  });

  it('one server, compact mode: never less', async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(caseArb, async (c) => {
        const store = fx.store({ clock: 'caller', mode: 'buckets', buckets: 10, prefix: `rb${n++}:` });
        await run(c, store, true);
      }),
      seeded({ numRuns: 40 }),
    );
  });

  it('3-master cluster, exact mode: the same counts and expiries after every step', async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(caseArb, async (c) => {
        await run(c, cx.store({ clock: 'caller', prefix: `rc${n++}:` }), false);
      }),
      seeded({ numRuns: 30 }),
    );
  });
});
