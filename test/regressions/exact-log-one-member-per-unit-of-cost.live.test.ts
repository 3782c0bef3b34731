import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Policy } from '../../src/config.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import { seeded } from '../support/fc-seed.js';
import { dropFromMetaRecord } from '../support/meta-record.js';
import { type SingleFixture, singleServer } from '../support/redis-fixtures.js';
import { type AnyStore, listed } from '../support/store-contract.js';

// Issue 17, item 6: exact mode kept one sorted-set member per unit of cost, so one request of cost
// 10^6 held Redis for seconds and left 10^6 members. A run (instant, count) and a central-log call
// are now one member each, whatever their cost, and the count is kept exactly beside them.

let fx: SingleFixture;
beforeAll(async () => {
  fx = await singleServer();
});
afterAll(async () => {
  await fx?.close();
});

const policy: Policy = { limit: 10_000_000, windowMs: 10_000, windowKind: 'sliding' };

describe('exact mode stores runs, not units', () => {
  it('a logAdmit of cost 10^6 is one member, answered quickly, and ages out whole', async () => {
    const store = fx.store({ clock: 'caller' });
    const t0 = performance.now();
    const r = await store.logAdmit(
      { key: 'k', policy, cost: 1_000_000, call: { gatewayId: 'gw', seq: 1 } },
      1000,
    );
    const ms = performance.now() - t0;
    expect(r).toMatchObject({ allowed: true, count: 1_000_000, oldestExpiry: 11_000 });
    expect(await fx.client().zcard(store.keyNames('k', policy).log)).toBe(1);
    expect(ms).toBeLessThan(500);
    expect((await store.logAdmit({ key: 'k', policy, cost: 3 }, 2000)).count).toBe(1_000_003);
    // the big call ages out at 11,000; the 3 at 12,000
    expect((await store.logAdmit({ key: 'k', policy, cost: 1 }, 11_000)).count).toBe(4);
    expect((await store.logAdmit({ key: 'k', policy, cost: 1 }, 12_000)).count).toBe(2);
  });

  it('a sync pushing 50,000 admits at one instant adds one member and lists one expiry pair', async () => {
    const store = fx.store({ clock: 'caller' });
    const admits = new Array<number>(50_000).fill(500);
    const r = await store.sync(
      {
        gatewayId: 'g',
        seq: 1,
        policy,
        leaseTtlMs: 100,
        horizonMs: 20_000,
        entries: [{ key: 'k', admits, read: true, release: false, ask: 0 }],
      },
      600,
    );
    expect(r.replies[0].count).toBe(50_000);
    // one expiry pair, read back as one run (issue 32: not one entry per admit at the gateway either)
    expect(r.replies[0].expiries.length).toBe(1);
    expect(listed(r.replies[0]).length).toBe(50_000);
    expect(await fx.client().zcard(store.keyNames('k', policy).log)).toBe(1);
  });

  it('a cost above L is refused at once and writes nothing (Redis and memory)', async () => {
    const small: Policy = { limit: 10, windowMs: 1000, windowKind: 'sliding' };
    const store = fx.store({ clock: 'caller' });
    const r = await store.logAdmit(
      { key: 'k', policy: small, cost: 1_000_000_000, call: { gatewayId: 'gw', seq: 1 } },
      0,
    );
    expect(r).toMatchObject({ allowed: false, count: 0 });
    const c = fx.client();
    expect(await c.keys(`${store.options.prefix}*`)).toEqual([]);
    const mem = new MemoryStore();
    expect(mem.logAdmit({ key: 'k', policy: small, cost: 1_000_000_000 }, 0).allowed).toBe(false);
    expect(mem.keyCount).toBe(0);
  });
});

/** One random step against both stores: big costs, calls with ids, voids, runs pushed by syncs. */
type Step =
  | { op: 'log'; key: string; cost: number; id: boolean }
  | { op: 'void'; key: string; back: number }
  | { op: 'sync'; key: string; runs: number[]; read: boolean };

const keyArb = fc.constantFrom('k1', 'k2');
const stepArb = fc.record({
  dt: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 400 })),
  s: fc.oneof(
    fc.record({
      op: fc.constant('log' as const),
      key: keyArb,
      // up to twice L: some can never be admitted
      cost: fc.oneof(fc.integer({ min: 1, max: 5 }), fc.integer({ min: 1, max: 2000 })),
      id: fc.boolean(),
    }),
    fc.record({ op: fc.constant('void' as const), key: keyArb, back: fc.integer({ min: 0, max: 4 }) }),
    fc.record({
      op: fc.constant('sync' as const),
      key: keyArb,
      runs: fc.array(fc.integer({ min: 1, max: 300 }), { maxLength: 4 }),
      read: fc.boolean(),
    }),
  ),
}) as fc.Arbitrary<{ dt: number; s: Step }>;

async function play(store: AnyStore, policy: Policy, steps: { dt: number; s: Step }[]): Promise<unknown[]> {
  const out: unknown[] = [];
  const calls: { key: string; seq: number; cost: number }[] = [];
  let now = 1000;
  let seq = 0;
  let syncSeq = 0;
  for (const { dt, s } of steps) {
    now += dt;
    if (s.op === 'log') {
      const call = s.id ? { gatewayId: 'gw', seq: ++seq } : undefined;
      if (call) calls.push({ key: s.key, seq: call.seq, cost: s.cost });
      out.push(await store.logAdmit({ key: s.key, policy, cost: s.cost, call }, now));
    } else if (s.op === 'void') {
      const c = calls[calls.length - 1 - s.back];
      if (c !== undefined) await store.voidLogAdmits('gw', policy, [c], now);
      out.push(await store.logAdmit({ key: s.key, policy, cost: 1_000_000 }, now));
    } else {
      // runs: several admits at one instant each, a little in the past
      const admits: number[] = [];
      s.runs.forEach((n, i) => {
        for (let j = 0; j < n; j++) admits.push(now - (s.runs.length - i) * 130);
      });
      const r = await store.sync(
        {
          gatewayId: 'pusher',
          seq: ++syncSeq,
          policy,
          leaseTtlMs: 100,
          horizonMs: 700,
          entries: [{ key: s.key, admits, read: s.read, release: false, ask: 0 }],
        },
        now,
      );
      out.push(r);
    }
  }
  return out;
}

describe('runs keep the count exact: RedisStore answers as MemoryStore', () => {
  for (const windowKind of ['sliding', 'fixed'] as const) {
    it(`random big costs, voids and pushed runs on a ${windowKind} window`, async () => {
      const policy: Policy = { limit: 1000, windowMs: 1000, windowKind };
      await fc.assert(
        fc.asyncProperty(fc.array(stepArb, { minLength: 1, maxLength: 40 }), async (steps) => {
          const redis = await play(fx.store({ clock: 'caller', expiryMarginMs: 600_000 }), policy, steps);
          const mem = await play(new MemoryStore(), policy, steps);
          expect(redis).toEqual(mem);
        }),
        seeded({ numRuns: 40 }),
      );
    });
  }

  it('a lost count field is recounted from the runs', async () => {
    const store = fx.store({ clock: 'caller' });
    await store.logAdmit({ key: 'k', policy, cost: 700, call: { gatewayId: 'gw', seq: 1 } }, 1000);
    await store.logAdmit({ key: 'k', policy, cost: 300 }, 1001);
    await dropFromMetaRecord(fx.client(), store.keyNames('k', policy).meta, 'a');
    expect((await store.logAdmit({ key: 'k', policy, cost: 1 }, 1002)).count).toBe(1001);
  });
});

describe('a cost that is not a positive integer never reaches the count', () => {
  for (const cost of [0, -5, 1.5, Number.NaN]) {
    it(`cost ${cost} is a RangeError on both stores, and the count is unchanged`, async () => {
      const store = fx.store({ clock: 'caller' });
      await store.logAdmit({ key: 'k', policy, cost: 3 }, 1000);
      await expect(
        store.logAdmit({ key: 'k', policy, cost, call: { gatewayId: 'gw', seq: 1 } }, 1001),
      ).rejects.toThrow(RangeError);
      expect((await store.logAdmit({ key: 'k', policy, cost: 1 }, 1002)).count).toBe(4);
      expect(() => new MemoryStore().logAdmit({ key: 'k', policy, cost }, 1000)).toThrow(RangeError);
    });
  }
});
