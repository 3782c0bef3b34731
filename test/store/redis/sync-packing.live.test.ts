import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Policy } from '../../../src/config.js';
import type { SyncRequest } from '../../../src/store/contract.js';
import { MemoryStore } from '../../../src/store/memory-store.js';
import { seeded } from '../../support/fc-seed.js';
import { type SingleFixture, singleServer } from '../../support/redis-fixtures.js';

/**
 * sync.lua takes its entries as one binary argument of doubles, unpacked 32 runs at a time, and
 * writes integers with '%d' (anything else with '%.17g'). A key pushing any number of runs, at
 * fractional, huge or tied instants, with any counts, must leave Redis counting exactly what the
 * (exact) MemoryStore counts, in both modes; in exact mode the expiries listed match too (compact
 * mode lists one expiry per sub-window by design).
 */
let fx: SingleFixture;
beforeAll(async () => {
  fx = await singleServer();
});
afterAll(async () => {
  await fx?.close();
});

const policy: Policy = { limit: 1_000_000_000, windowMs: 600_000, windowKind: 'sliding' };
const base = { policy, leaseTtlMs: 1000, horizonMs: 1_000_000 };

/** Ascending admit times, as runs: (instant, how many admits at it). */
const runs = fc.array(
  fc.record({
    gap: fc.oneof(
      fc.constant(0.25),
      fc.integer({ min: 1, max: 5000 }),
      fc.double({ min: 0.001, max: 9, noNaN: true }),
    ),
    count: fc.oneof(fc.constant(1), fc.integer({ min: 2, max: 70 })),
  }),
  // 'max': the runs must cross sync.lua's 32-run unpacking groups (fast-check's default size stays under 10)
  { minLength: 1, maxLength: 80, size: 'max' },
);

function admitsOf(start: number, rs: { gap: number; count: number }[]): number[] {
  const admits: number[] = [];
  let t = start;
  for (const r of rs) {
    t += r.gap;
    for (let i = 0; i < r.count; i++) admits.push(t);
  }
  return admits;
}

describe.each(['exact', 'buckets'] as const)('sync packing (%s)', (mode) => {
  it('counts every run of every key as the MemoryStore does', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(runs, { minLength: 1, maxLength: 4 }), fc.boolean(), async (keys, huge) => {
        const start = huge ? 4_000_000_000_000 + 0.5 : 1_764_800_000_000;
        const entries = keys.map((rs, i) => ({
          key: `k${i}`,
          admits: admitsOf(start, rs),
          read: true,
          release: false,
          ask: 0,
        }));
        const now = Math.max(...entries.map((e) => e.admits[e.admits.length - 1]));
        const req: SyncRequest = { ...base, gatewayId: 'g', seq: 1, entries };
        const redis = fx.store({ clock: 'caller', mode, expiryMarginMs: 600_000 });
        const memory = new MemoryStore();
        const got = await redis.sync(req, now);
        const want = memory.sync(req, now);
        expect(got.replies.map((r) => r.count)).toEqual(want.replies.map((r) => r.count));
        if (mode === 'exact') {
          expect(got.replies.map((r) => r.expiries)).toEqual(want.replies.map((r) => r.expiries));
        }
      }),
      seeded({ numRuns: 25 }),
    );
  });
});
