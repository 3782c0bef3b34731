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
import type { Policy, WindowKind } from '../../../src/config.js';
import type { ResetScanReply, SyncRequest } from '../../../src/store/contract.js';
import { MemoryStore } from '../../../src/store/memory-store.js';
import { seeded } from '../../support/fc-seed.js';
import {
  type ClusterFixture,
  localCluster,
  type SingleFixture,
  singleServer,
} from '../../support/redis-fixtures.js';
import { type AnyStore, listed } from '../../support/store-contract.js';

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
      runs: fc.array(fc.record({ off: fc.integer({ min: 0, max: 60 }), n: fc.integer({ min: 1, max: 3 }) }), {
        minLength: 1,
        maxLength: 6,
      }),
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

const caseArb = fc.record({
  windowMs: fc.integer({ min: 300, max: 1500 }),
  windowKind: fc.constantFrom<WindowKind[]>('sliding', 'fixed'),
  steps: fc.array(step, { minLength: 1, maxLength: 40 }),
});

type Case = typeof caseArb extends fc.Arbitrary<infer T> ? T : never;

async function run(c: Case, redis: AnyStore, compact: boolean): Promise<void> {
  const mem = new MemoryStore();
  const policy: Policy = { limit: 1000, windowMs: c.windowMs, windowKind: c.windowKind };
  let now = 10_000;
  const seqs = [0, 0, 0];
  const calls = [0, 0, 0];
  const both = async <T>(f: (s: AnyStore) => T | Promise<T>): Promise<[T, T]> => [
    await f(mem),
    await f(redis),
  ];
  const req = (gw: number, entry: SyncRequest['entries'][number]): SyncRequest => ({
    gatewayId: `g${gw}`,
    seq: ++seqs[gw],
    policy,
    leaseTtlMs: 100,
    horizonMs: 3 * c.windowMs,
    entries: [entry],
  });
  let readSeq = 0;
  for (const s of c.steps) {
    now += s.dt;
    if (s.op === 'push') {
      const admits: number[] = [];
      const counts: number[] = [];
      // ahead: the runs spread over [now - 30, now + 30] (a caller's clock ahead of the store's)
      const shift = s.ahead ? 30 : 0;
      for (const r of [...s.runs].sort((a, b) => b.off - a.off)) {
        const t = now - r.off + shift;
        if (admits.length > 0 && admits[admits.length - 1] === t) counts[counts.length - 1] += r.n;
        else {
          admits.push(t);
          counts.push(r.n);
        }
      }
      const q = req(s.gw, { key: KEYS[s.key], admits, counts, read: false, release: false, ask: 0 });
      await both((st) => st.sync(q, now));
    } else if (s.op === 'call') {
      const call = { gatewayId: `g${s.gw}`, seq: ++calls[s.gw] };
      const [a, b] = await both((st) => st.logAdmit({ key: KEYS[s.key], policy, cost: 1, call }, now));
      expect(b.allowed).toBe(a.allowed);
    } else {
      // the reset was asked for `lag` ms before it reaches the store
      const at = now - s.lag;
      let removed = [0, 0];
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
      removed = [0, 0];
    }
    for (const key of KEYS) {
      const q = {
        ...req(0, { key, admits: [], read: true, release: false, ask: 0 }),
        gatewayId: 'reader',
        seq: ++readSeq,
      };
      const [a, b] = await both((st) => st.sync(q, now));
      const ra = a.replies[0];
      const rb = b.replies[0];
      if (!compact) {
        expect(rb.count, key).toBe(ra.count);
        expect(listed(rb), key).toEqual(listed(ra));
      } else expect(rb.count, key).toBeGreaterThanOrEqual(ra.count);
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
