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
import type { Policy, WindowKind } from '../../../src/config.js';
import type { SyncRequest } from '../../../src/store/contract.js';
import { MemoryStore } from '../../../src/store/memory-store.js';
import { seeded } from '../../support/fc-seed.js';
import { type SingleFixture, singleServer } from '../../support/redis-fixtures.js';
import { type AnyStore, listed } from '../../support/store-contract.js';

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
  let pushedAhead = false;
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
        if (t > now) pushedAhead = true;
        if (admits.length > 0 && admits[admits.length - 1] === t) counts[counts.length - 1] += r.n;
        else {
          admits.push(t);
          counts.push(r.n);
        }
      }
      const q = req(s.gw, { key: 'k', admits, counts, read: false, release: false, ask: 0 });
      await both((st) => st.sync(q, now));
    } else if (s.op === 'call') {
      const call = { gatewayId: `g${s.gw}`, seq: ++calls[s.gw] };
      const [a, b] = await both((st) => st.logAdmit({ key: 'k', policy, cost: 1, call }, now));
      expect(b.allowed).toBe(a.allowed);
    } else {
      const r = { gatewayId: `g${s.gw}`, key: 'k', policy };
      const a = mem.resetKey(r, now);
      const b = await redis.resetKey!(r, now);
      expect(b.now).toBe(now);
      // (compact mode counted a bucket until its latest admit left: it may remove more)
      if (!compact) expect(b.removed).toBe(a.removed);
    }
    const q = {
      ...req(0, { key: 'k', admits: [], read: true, release: false, ask: 0 }),
      gatewayId: 'reader',
      seq: ++readSeq,
    };
    const [a, b] = await both((st) => st.sync(q, now));
    const ra = a.replies[0];
    const rb = b.replies[0];
    if (!compact) {
      expect(rb.count).toBe(ra.count);
      expect(listed(rb)).toEqual(listed(ra));
    } else if (c.windowKind === 'fixed' && !pushedAhead) expect(rb.count).toBe(ra.count);
    else expect(rb.count).toBeGreaterThanOrEqual(ra.count);
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
