import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Policy } from '../../src/config.js';
import type { AnyStore } from '../../src/store/async-adapter.js';
import { asAsyncStore } from '../../src/store/async-adapter.js';
import type { Heartbeat } from '../../src/store/contract.js';
import { seeded } from './fc-seed.js';

/**
 * The heartbeat contract (gateways 'auto'), for any store that offers it: one policy's live gateways
 * are those whose last beat is within that beat's own liveWithinMs of the store's now (each member
 * by its own window, never the caller's); a leaving one is gone at once; each policy counts its own.
 * Times are the caller's (the stores under test run on the caller's clock).
 */
export function liveContract(name: string, make: () => AnyStore, numRuns = 200): void {
  describe(`${name}: heartbeat counts live gateways`, () => {
    const policy: Policy = { limit: 10, windowMs: 60_000, windowKind: 'sliding' };
    const W = 300;
    const beat = (gatewayId: string, o: Partial<Heartbeat> = {}): Heartbeat => ({
      gatewayId,
      policy,
      liveWithinMs: W,
      ...o,
    });

    it('gateways joining are counted from their first beat, and each beat counts itself', async () => {
      const s = asAsyncStore(make());
      expect((await s.heartbeat!(beat('a'), 1000)).live).toBe(1);
      expect((await s.heartbeat!(beat('b'), 1010)).live).toBe(2);
      expect((await s.heartbeat!(beat('c'), 1020)).live).toBe(3);
      // a beat again is the same member
      const r = await s.heartbeat!(beat('a'), 1100);
      expect(r.live).toBe(3);
      expect(r.now).toBe(1100);
    });

    it('a leaving gateway is gone at once; its reply counts the others', async () => {
      const s = asAsyncStore(make());
      await s.heartbeat!(beat('a'), 1000);
      await s.heartbeat!(beat('b'), 1000);
      await s.heartbeat!(beat('c'), 1000);
      expect((await s.heartbeat!(beat('b', { leaving: true }), 1001)).live).toBe(2);
      expect((await s.heartbeat!(beat('a'), 1002)).live).toBe(2);
      // leaving twice, or without having beaten, changes nothing
      expect((await s.heartbeat!(beat('b', { leaving: true }), 1003)).live).toBe(2);
      expect((await s.heartbeat!(beat('z', { leaving: true }), 1003)).live).toBe(2);
    });

    it('a gateway that stops beating (crashed, cut off) counts for liveWithinMs, then not', async () => {
      const s = asAsyncStore(make());
      await s.heartbeat!(beat('crashed'), 1000);
      expect((await s.heartbeat!(beat('a'), 1000 + W)).live).toBe(2);
      expect((await s.heartbeat!(beat('a'), 1000 + W + 1)).live).toBe(1);
      // and it is forgotten: back after the window, it joins as one again
      await s.heartbeat!(beat('a'), 1990);
      expect((await s.heartbeat!(beat('crashed'), 2000)).live).toBe(2);
    });

    it("each member is kept by its own window: a short window's beats prune no one else (issue 32)", async () => {
      const s = asAsyncStore(make());
      // three gateways with Δ = 1 s (live 3 s), one with Δ = 20 ms (live 60 ms)
      for (const m of ['a', 'b', 'c']) await s.heartbeat!(beat(m, { liveWithinMs: 3_000 }), 1000);
      for (let t = 1000; t <= 3000; t += 20) {
        expect((await s.heartbeat!(beat('fast', { liveWithinMs: 60 }), t)).live).toBe(4);
      }
      // and the long ones see the short one while its own window holds, not while theirs does
      expect((await s.heartbeat!(beat('a', { liveWithinMs: 3_000 }), 3060)).live).toBe(4);
      expect((await s.heartbeat!(beat('a', { liveWithinMs: 3_000 }), 3061)).live).toBe(3);
      // each at its own edge: b and c beat at 1000 with 3 s, so they count through 4000
      expect((await s.heartbeat!(beat('fast', { liveWithinMs: 60 }), 4000)).live).toBe(4);
      expect((await s.heartbeat!(beat('fast', { liveWithinMs: 60 }), 4001)).live).toBe(2);
    });

    it("a member's new beat replaces its window, shorter or longer", async () => {
      const s = asAsyncStore(make());
      await s.heartbeat!(beat('a', { liveWithinMs: 5_000 }), 1000);
      await s.heartbeat!(beat('a', { liveWithinMs: 100 }), 1100);
      expect((await s.heartbeat!(beat('b'), 1200)).live).toBe(2);
      expect((await s.heartbeat!(beat('b'), 1201)).live).toBe(1);
      await s.heartbeat!(beat('a', { liveWithinMs: 10 }), 2000);
      await s.heartbeat!(beat('a', { liveWithinMs: 5_000 }), 2005);
      expect((await s.heartbeat!(beat('b'), 7005)).live).toBe(2);
    });

    it('each policy counts its own gateways (a named policy is its own fleet)', async () => {
      const s = asAsyncStore(make());
      const other: Policy = { ...policy, limit: 100 };
      const named: Policy = { ...policy, name: 'free' };
      await s.heartbeat!(beat('a'), 1000);
      await s.heartbeat!(beat('b'), 1000);
      expect((await s.heartbeat!(beat('a', { policy: other }), 1000)).live).toBe(1);
      expect((await s.heartbeat!(beat('c', { policy: named }), 1000)).live).toBe(1);
      expect((await s.heartbeat!(beat('c'), 1000)).live).toBe(3);
    });

    it("property: the count is the members whose last beat, not followed by a leave, is within that beat's window", async () => {
      const op = fc.record({
        member: fc.constantFrom('a', 'b', 'c', 'd', 'e'),
        dt: fc.integer({ min: 0, max: 200 }),
        leaving: fc.boolean(),
        // each beat its own window (gateways of one policy at different Δ)
        within: fc.constantFrom(20, 60, W, 1000),
      });
      await fc.assert(
        fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 30 }), async (ops) => {
          const s = asAsyncStore(make());
          const last = new Map<string, { at: number; within: number }>();
          let now = 1000;
          for (const o of ops) {
            now += o.dt;
            const b = beat(o.member, { leaving: o.leaving, liveWithinMs: o.within });
            const r = await s.heartbeat!(b, now);
            if (o.leaving) last.delete(o.member);
            else last.set(o.member, { at: now, within: o.within });
            for (const [m, x] of last) if (x.at < now - x.within) last.delete(m);
            expect(r.live).toBe(last.size);
          }
        }),
        seeded({ numRuns }),
      );
    });

    it('a heartbeat asking the store to look back without bound is refused', async () => {
      const s = asAsyncStore(make());
      for (const liveWithinMs of [0, -1, Number.NaN, Number.POSITIVE_INFINITY, 1e12]) {
        await expect(s.heartbeat!(beat('a', { liveWithinMs }), 1000)).rejects.toThrow(/liveWithinMs/);
      }
      await expect(s.heartbeat!(beat(''), 1000)).rejects.toThrow(/gatewayId/);
    });
  });
}
