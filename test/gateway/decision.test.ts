import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DESIGN_IDS } from '../../src/config.js';
import { createGateway } from '../../src/gateway/gateway.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import { seeded } from '../support/fc-seed.js';

describe('decisions are values with remaining, reset and retry-after', () => {
  it('central-log counts down and reports when the oldest admit leaves the window', () => {
    const gw = createGateway({
      id: 'a',
      design: 'central-log',
      limit: 3,
      windowMs: 1000,
      gateways: 1,
      syncMs: 100,
      store: new MemoryStore(),
    });
    expect(gw.admit('k', 0)).toMatchObject({ allowed: true, remaining: 2, resetMs: 1000 });
    expect(gw.admit('k', 100)).toMatchObject({ allowed: true, remaining: 1, resetMs: 900 });
    expect(gw.admit('k', 200)).toMatchObject({ allowed: true, remaining: 0 });
    expect(gw.admit('k', 300)).toEqual({ allowed: false, remaining: 0, resetMs: 700, retryAfterMs: 700 });
    expect(gw.admit('k', 1000).allowed).toBe(true);
  });

  it('shared-counter learns the others at sync (push, then read)', () => {
    const store = new MemoryStore();
    const opts = {
      design: 'shared-counter' as const,
      limit: 4,
      windowMs: 1000,
      gateways: 2,
      syncMs: 100,
      store,
    };
    const a = createGateway({ id: 'a', ...opts });
    const b = createGateway({ id: 'b', ...opts });
    expect(a.admit('k', 0).allowed).toBe(true);
    expect(a.admit('k', 1).allowed).toBe(true);
    expect(b.admit('k', 2).allowed).toBe(true);
    a.sync(10);
    b.sync(10);
    expect(b.admit('k', 20)).toMatchObject({ allowed: true, remaining: 0 });
    const d = b.admit('k', 30);
    expect(d.allowed).toBe(false);
    // the first instant b knows it admits: a's admit at 0 ages out at 1000, past the reply's horizon,
    // but the reply said when its oldest admit leaves, and that one is not b's own (it answered 972,
    // for its own at 2: issue 31)
    expect(d.retryAfterMs).toBe(970);
  });

  it('every design answers with the same shape: the same keys, of the same types, per outcome', () => {
    // the runtime shape of a decision: its own keys, sorted, with their value types
    const shape = (d: object) =>
      Object.entries(d)
        .map(([k, v]) => `${k}:${typeof v}`)
        .sort()
        .join(' ');
    const seen = new Map<string, Set<string>>();
    const note = (outcome: string, design: string, d: object) => {
      if (!seen.has(outcome)) seen.set(outcome, new Set());
      seen.get(outcome)!.add(shape(d));
      for (const v of Object.values(d))
        if (typeof v === 'number') expect(Number.isFinite(v), design).toBe(true);
    };
    for (const design of DESIGN_IDS) {
      const gw = createGateway({
        id: 'x',
        design,
        limit: 10,
        windowMs: 1000,
        gateways: 2,
        syncMs: 100,
        store: new MemoryStore(),
      });
      gw.sync(0);
      // admitted until the first rejection (every design rejects within 3 L at one instant)
      let rejected = false;
      for (let i = 0; i < 30 && !rejected; i++) {
        const d = gw.admit('k', 1);
        note(d.allowed ? 'allowed' : 'rejected', design, d);
        rejected = !d.allowed;
      }
      expect(rejected, `${design} never rejected`).toBe(true);
      note('exceedsLimit', design, gw.admit('k', 1, 11));
    }
    const shapes = Object.fromEntries([...seen].map(([o, s]) => [o, [...s]]));
    expect(shapes).toEqual({
      allowed: ['allowed:boolean remaining:number resetMs:number'],
      rejected: ['allowed:boolean remaining:number resetMs:number retryAfterMs:number'],
      exceedsLimit: ['allowed:boolean exceedsLimit:boolean remaining:number resetMs:number'],
    });
  });
});

describe('allow() is admit() without the value', () => {
  it('every design: the same decisions and the same store state, call by call (property)', () => {
    const step = fc.record({
      dt: fc.integer({ min: 0, max: 60 }),
      key: fc.constantFrom('a', 'b', 'c'),
      cost: fc.constantFrom(1, 1, 1, 2),
      sync: fc.boolean(),
    });
    fc.assert(
      fc.property(
        fc.constantFrom(...DESIGN_IDS),
        fc.integer({ min: 1, max: 4 }),
        fc.integer({ min: 1, max: 8 }),
        fc.array(step, { minLength: 1, maxLength: 120 }),
        (design, gateways, limit, steps) => {
          const opts = { design, limit, windowMs: 500, gateways, syncMs: 100 };
          const viaAdmit = createGateway({ id: 'g', ...opts, store: new MemoryStore() });
          const viaAllow = createGateway({ id: 'g', ...opts, store: new MemoryStore() });
          let now = 0;
          for (const s of steps) {
            now += s.dt;
            if (s.sync) {
              viaAdmit.sync(now);
              viaAllow.sync(now);
            }
            expect(viaAllow.allow(s.key, now, s.cost)).toBe(viaAdmit.admit(s.key, now, s.cost).allowed);
          }
          // what each pushes at its next sync is the same too
          const a = viaAdmit.sync(now + 1);
          const b = viaAllow.sync(now + 1);
          expect(b).toEqual(a);
          expect(viaAllow.keyCount).toBe(viaAdmit.keyCount);
        },
      ),
      seeded({ numRuns: 200 }),
    );
  });

  it('checks its input as admit() does', () => {
    const gw = createGateway({
      id: 'a',
      design: 'shared-counter',
      limit: 3,
      windowMs: 1000,
      gateways: 1,
      syncMs: 100,
      store: new MemoryStore(),
    });
    expect(() => gw.allow('', 0)).toThrow(/key/);
    expect(() => gw.allow('k', Number.NaN)).toThrow(/now/);
    expect(() => gw.allow('k', 0, 0)).toThrow(/cost/);
  });
});
