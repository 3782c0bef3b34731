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
import type { Policy, WindowKind } from '../../../src/config.js';
import type { Refund, SyncRequest } from '../../../src/store/contract.js';
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
    weight: 3,
    arbitrary: fc.record({
      op: fc.constant('push' as const),
      gw: fc.nat(2),
      dt: fc.integer({ min: 0, max: 400 }),
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
  const refundSeqs = [0, 0, 0];
  const calls = [0, 0, 0];
  const instants: number[] = [];
  const both = async <T>(f: (s: AnyStore) => T | Promise<T>): Promise<[T, T]> => [
    await f(mem),
    await f(redis),
  ];
  const req = (gw: number, entry: SyncRequest['entries'][number]): SyncRequest => ({
    gatewayId: `g${gw}`,
    seq: ++seqs[gw],
    policy,
    leaseTtlMs: 100,
    horizonMs: 2 * c.windowMs,
    entries: [entry],
  });
  let readSeq = 0;
  for (const s of c.steps) {
    now += s.dt;
    if (s.op === 'push') {
      const admits: number[] = [];
      const counts: number[] = [];
      for (const r of [...s.runs].sort((a, b) => b.off - a.off)) {
        const t = now - r.off;
        if (admits.length > 0 && admits[admits.length - 1] === t) counts[counts.length - 1] += r.n;
        else {
          admits.push(t);
          counts.push(r.n);
          instants.push(t);
        }
      }
      const q = req(s.gw, { key: 'k', admits, counts, read: false, release: false, ask: 0 });
      await both((st) => st.sync(q, now));
    } else if (s.op === 'call') {
      const call = { gatewayId: `g${s.gw}`, seq: ++calls[s.gw] };
      const [a, b] = await both((st) => st.logAdmit({ key: 'k', policy, cost: 1, call }, now));
      expect(b.allowed).toBe(a.allowed);
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
    } else if (c.windowKind === 'fixed') expect(rb.count).toBe(ra.count);
    else expect(rb.count).toBeGreaterThanOrEqual(ra.count);
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
