import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { expiryOf } from '../../src/window/expiry.js';
import { expandRuns } from '../../src/window/runs.js';
import { TimeLog } from '../../src/window/time-log.js';
import { seeded } from '../support/fc-seed.js';

describe('TimeLog', () => {
  it('stays sorted through inserts, batch merges and removals from the head (property)', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            fc.record({ op: fc.constant('insert' as const), t: fc.integer({ min: 0, max: 200 }) }),
            fc.record({
              op: fc.constant('merge' as const),
              ts: fc.array(fc.integer({ min: 0, max: 200 }), { maxLength: 20 }),
              from: fc.nat(5),
            }),
            fc.record({ op: fc.constant('drop' as const), t: fc.integer({ min: 0, max: 200 }) }),
          ),
          { maxLength: 60 },
        ),
        (ops) => {
          const log = new TimeLog(2);
          let model: number[] = [];
          for (const o of ops) {
            if (o.op === 'insert') {
              log.insert(o.t);
              model.push(o.t);
            } else if (o.op === 'merge') {
              const ts = [...o.ts].sort((a, b) => a - b);
              log.insertAll(ts, o.from);
              model.push(...ts.slice(o.from));
            } else {
              log.dropThrough(o.t);
              model = model.filter((x) => x > o.t);
            }
            model.sort((a, b) => a - b);
            expect(log.toArray()).toEqual(model);
          }
        },
      ),
      seeded({ numRuns: 300 }),
    );
  });

  it('lists the expiries before a horizon exactly as expiryOf gives them, oldest first (property)', () => {
    fc.assert(
      fc.property(
        fc.constantFrom<('sliding' | 'fixed')[]>('sliding', 'fixed'),
        fc.array(fc.double({ min: 0, max: 500, noNaN: true }), { maxLength: 40 }),
        fc.nat(30),
        fc.double({ min: 0, max: 700, noNaN: true }),
        fc.double({ min: 0.1, max: 120, noNaN: true }),
        (kind, raw, drop, horizon, windowMs) => {
          const ts = [...raw].sort((a, b) => a - b);
          // a wrapped ring buffer: entries dropped from the head, then more merged in behind
          const log = new TimeLog(2);
          log.insertAll(ts.slice(0, drop));
          for (let i = 0; i < Math.min(drop, ts.length); i++) log.shift();
          log.insertAll(ts.slice(Math.min(drop, ts.length)));
          const want = log
            .toArray()
            .map((t) => expiryOf(t, windowMs, kind))
            .filter((e) => e < horizon);
          expect(log.expiriesBefore(horizon, windowMs, kind)).toEqual(want);
        },
      ),
      seeded({ numRuns: 300 }),
    );
  });

  it('holds runs (time, count) as the same multiset as one entry per admit, one slot per run (property)', () => {
    const op = fc.oneof(
      fc.record({ op: fc.constant('many' as const), t: fc.integer({ min: 0, max: 60 }), n: fc.nat(12) }),
      fc.record({ op: fc.constant('insert' as const), t: fc.integer({ min: 0, max: 60 }) }),
      fc.record({
        op: fc.constant('runs' as const),
        rs: fc.array(fc.record({ t: fc.integer({ min: 0, max: 60 }), n: fc.integer({ min: 1, max: 12 }) }), {
          maxLength: 8,
        }),
        from: fc.nat(3),
        plain: fc.boolean(),
      }),
      fc.record({ op: fc.constant('remove' as const), t: fc.integer({ min: 0, max: 60 }), n: fc.nat(14) }),
      fc.record({ op: fc.constant('drop' as const), t: fc.integer({ min: 0, max: 60 }) }),
    );
    fc.assert(
      fc.property(
        fc.constantFrom<('sliding' | 'fixed')[]>('sliding', 'fixed'),
        fc.array(op, { maxLength: 50 }),
        fc.integer({ min: 0, max: 120 }),
        (kind, ops, horizon) => {
          const W = 20;
          const log = new TimeLog(2);
          let model: number[] = [];
          for (const o of ops) {
            if (o.op === 'many') {
              log.insertMany(o.t, o.n);
              for (let i = 0; i < o.n; i++) model.push(o.t);
            } else if (o.op === 'insert') {
              log.insert(o.t);
              model.push(o.t);
            } else if (o.op === 'runs') {
              const rs = [...o.rs].sort((a, b) => a.t - b.t);
              const ts = rs.map((r) => r.t);
              const ns = rs.map((r) => (o.plain ? 1 : r.n));
              log.insertAll(ts, o.from, o.plain ? undefined : ns);
              model.push(...expandRuns(ts.slice(o.from), ns.slice(o.from)));
            } else if (o.op === 'remove') {
              let removed = 0;
              for (let i = model.length - 1; i >= 0 && removed < o.n; i--) {
                if (model[i] === o.t) {
                  model.splice(i, 1);
                  removed++;
                }
              }
              expect(log.removeMany(o.t, o.n)).toBe(removed);
            } else {
              const before = model.length;
              model = model.filter((x) => expiryOf(x, W, kind) > o.t);
              expect(log.dropExpired(o.t, W, kind)).toBe(before - model.length);
            }
            model.sort((a, b) => a - b);
            expect(log.toArray()).toEqual(model);
            expect(log.size).toBe(model.length);
            expect(log.slots).toBeLessThanOrEqual(model.length);
            expect(log.first()).toBe(model.length > 0 ? model[0] : Number.POSITIVE_INFINITY);
            expect(log.last()).toBe(model.length > 0 ? model[model.length - 1] : Number.NEGATIVE_INFINITY);
            if (model.length > 0) {
              const i = model.length >> 1;
              expect(log.at(i)).toBe(model[i]);
            }
          }
          const out: { expiries: number[]; expiryCounts?: number[] } = { expiries: [] };
          log.expiryRunsBefore(horizon, W, kind, out);
          const want = model.map((t) => expiryOf(t, W, kind)).filter((e) => e < horizon);
          expect(expandRuns(out.expiries, out.expiryCounts)).toEqual(want);
          // one entry per instant: equal ones joined
          for (let i = 1; i < out.expiries.length; i++)
            expect(out.expiries[i]).toBeGreaterThan(out.expiries[i - 1]);
          if (out.expiryCounts !== undefined) expect(out.expiryCounts.some((c) => c !== 1)).toBe(true);
        },
      ),
      seeded({ numRuns: 400 }),
    );
  });

  it('a run of 10⁹ admits is one slot, and stays one through merges, listing and removal', () => {
    const log = new TimeLog(2);
    log.insertMany(5, 1_000_000_000);
    log.insertAll([3, 5, 7], 0, [2, 1_000_000_000, 1]);
    log.insert(6);
    expect(log.size).toBe(2_000_000_004);
    expect(log.slots).toBe(5);
    const out: { expiries: number[]; expiryCounts?: number[] } = { expiries: [] };
    log.expiryRunsBefore(1_000, 100, 'sliding', out);
    expect(out.expiries).toEqual([103, 105, 106, 107]);
    expect(out.expiryCounts).toEqual([2, 2_000_000_000, 1, 1]);
    expect(log.removeMany(5, 1_500_000_000)).toBe(1_500_000_000);
    expect(log.size).toBe(500_000_004);
    expect(log.dropExpired(105, 100, 'sliding')).toBe(500_000_002);
    expect(log.toArray()).toEqual([6, 7]);
  });
});
