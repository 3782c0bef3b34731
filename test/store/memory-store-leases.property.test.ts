import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Policy } from '../../src/config.js';
import { boundedSweep } from '../support/bounded-sweep.js';
import { seeded } from '../support/fc-seed.js';

/**
 * The store's lease bookkeeping (a running total, a lower bound on the next lapse, the grants kept in
 * grant order for the walks) against a plain model that recomputes everything from the grants. Asks
 * carry no seq here (0): every later sync's release hands them back.
 */
describe('MemoryStore leases', () => {
  const policy: Policy = { limit: 12, windowMs: 100, windowKind: 'sliding' };
  const ttl = 30;
  const gws = ['g0', 'g1', 'g2', 'g3', 'g4'];

  const op = fc.record({
    gw: fc.nat(gws.length - 1),
    dt: fc.integer({ min: 0, max: 25 }),
    kind: fc.constantFrom('sync' as const, 'ask' as const, 'renew' as const),
    ask: fc.nat(6),
    release: fc.boolean(),
    spent: fc.nat(2),
  });

  it('grants, lapses, releases and renewals match a model that recomputes from the grants (property)', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 120 }), (ops) => {
        const store = boundedSweep();
        const held = new Map<string, { slots: number; expiresAt: number }>();
        const admits: number[] = [];
        const seq = new Map<string, number>();
        let now = 0;
        // a grant is spent until its lapse and counted until an admit made then would age out
        const counted = (l: { expiresAt: number }) => l.expiresAt + policy.windowMs > now;
        const outstanding = (except?: string) => {
          let n = 0;
          for (const [gw, l] of held) if (counted(l) && gw !== except) n += l.slots;
          return n;
        };
        const count = () => admits.filter((t) => t + policy.windowMs > now).length;
        const lapse = () => {
          for (const [gw, l] of held) if (!counted(l)) held.delete(gw);
        };
        for (const o of ops) {
          now += o.dt;
          const gw = gws[o.gw];
          lapse();
          const mine = held.get(gw);
          if (o.kind === 'renew') {
            // as the simulator uses it: for a grant that has not lapsed
            if (mine !== undefined && mine.expiresAt > now) {
              store.renewLease('k', gw, now + ttl);
              if (now + ttl > mine.expiresAt) mine.expiresAt = now + ttl;
            }
          } else if (o.kind === 'ask') {
            const r = store.ask({ gatewayId: gw, key: 'k', policy, leaseTtlMs: ttl, ask: o.ask }, now);
            const h = mine?.slots ?? 0;
            const granted = Math.max(0, Math.min(o.ask, policy.limit - count() - outstanding(gw) - h));
            expect(r.granted).toBe(granted);
            if (granted > 0) held.set(gw, { slots: h + granted, expiresAt: now + ttl });
            expect(r.grantExpiresAt).toBe(held.get(gw)?.expiresAt ?? now);
          } else {
            const s = (seq.get(gw) ?? 0) + 1;
            seq.set(gw, s);
            const pushed = Array.from({ length: o.spent }, () => now);
            const entry = { key: 'k', admits: pushed, read: false, release: o.release, ask: o.ask };
            const r = store.sync(
              { gatewayId: gw, seq: s, policy, leaseTtlMs: ttl, horizonMs: 0, entries: [entry] },
              now,
            ).replies[0];
            admits.push(...pushed);
            const h = o.release ? 0 : (mine?.slots ?? 0);
            const granted =
              o.ask > 0 ? Math.max(0, Math.min(o.ask, policy.limit - count() - outstanding(gw) - h)) : 0;
            expect(r.granted).toBe(granted);
            if (granted > 0) held.set(gw, { slots: h + granted, expiresAt: now + ttl });
            else if (o.release) held.delete(gw);
            expect(r.grantExpiresAt).toBe(granted > 0 ? now + ttl : now);
          }
          expect(store.outstandingOf('k', policy, now)).toBe(outstanding());
          expect(store.freeSlots('k', now)).toBe(
            store.keyCount === 0 ? Number.POSITIVE_INFINITY : policy.limit - count() - outstanding(),
          );
        }
      }),
      seeded({ numRuns: 300 }),
    );
  });
});
