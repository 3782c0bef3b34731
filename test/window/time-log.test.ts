import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { expiryOf } from '../../src/window/expiry.js';
import { expiryRunsBefore } from '../../src/window/expiry-runs.js';
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
          expiryRunsBefore(log, horizon, W, kind, out);
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
    expiryRunsBefore(log, 1_000, 100, 'sliding', out);
    expect(out.expiries).toEqual([103, 105, 106, 107]);
    expect(out.expiryCounts).toEqual([2, 2_000_000_000, 1, 1]);
    expect(log.removeMany(5, 1_500_000_000)).toBe(1_500_000_000);
    expect(log.size).toBe(500_000_004);
    expect(log.dropExpired(105, 100, 'sliding')).toBe(500_000_002);
    expect(log.toArray()).toEqual([6, 7]);
  });

  it('dropExpired drops exactly the entries whose expiry is at or before now (sliding and fixed)', () => {
    const log = new TimeLog(2);
    log.insertAll([0, 10, 20, 30]);
    // sliding, W = 100: 0 and 10 stop counting at 100 and 110; at 110 both go, 20 stays
    expect(log.dropExpired(109.5, 100, 'sliding')).toBe(1);
    expect(log.dropExpired(110, 100, 'sliding')).toBe(1);
    expect(log.toArray()).toEqual([20, 30]);
    expect(log.dropExpired(110, 100, 'sliding')).toBe(0);
    // fixed, W = 25: 20 counts until 25, 30 until 50
    expect(log.dropExpired(24.9, 25, 'fixed')).toBe(0);
    expect(log.dropExpired(25, 25, 'fixed')).toBe(1);
    expect(log.dropExpired(50, 25, 'fixed')).toBe(1);
    expect(log.size).toBe(0);
    expect(log.dropExpired(1e9, 25, 'fixed')).toBe(0);
  });

  it('dropExpired keeps what expiryOf says still counts, on a wrapped ring buffer (property)', () => {
    fc.assert(
      fc.property(
        fc.constantFrom<('sliding' | 'fixed')[]>('sliding', 'fixed'),
        fc.array(fc.integer({ min: 0, max: 400 }), { maxLength: 40 }),
        fc.nat(30),
        // integer instants and windows: expiries land on `now` exactly, the boundary under test
        fc.array(fc.integer({ min: 0, max: 600 }), { minLength: 1, maxLength: 6 }),
        fc.integer({ min: 1, max: 120 }),
        (kind, raw, drop, nows, windowMs) => {
          const ts = [...raw].sort((a, b) => a - b);
          const log = new TimeLog(2);
          log.insertAll(ts.slice(0, drop));
          for (let i = 0; i < Math.min(drop, ts.length); i++) log.shift();
          log.insertAll(ts.slice(Math.min(drop, ts.length)));
          let model = log.toArray();
          for (const now of [...nows].sort((a, b) => a - b)) {
            const keep = model.filter((t) => expiryOf(t, windowMs, kind) > now);
            expect(log.dropExpired(now, windowMs, kind)).toBe(model.length - keep.length);
            expect(log.toArray()).toEqual(keep);
            model = keep;
          }
        },
      ),
      seeded({ numRuns: 300 }),
    );
  });
  it('dropBefore drops entries below the cutoff, dropThrough those at it too; first and clear', () => {
    const log = new TimeLog(2);
    expect(log.first()).toBe(Number.POSITIVE_INFINITY);
    log.insertAll([1, 2, 2, 3, 5]);
    expect(log.first()).toBe(1);
    expect(log.dropBefore(2)).toBe(1);
    expect(log.toArray()).toEqual([2, 2, 3, 5]);
    expect(log.dropBefore(2)).toBe(0);
    expect(log.dropThrough(2)).toBe(2);
    expect(log.toArray()).toEqual([3, 5]);
    expect(log.first()).toBe(3);
    expect(log.dropBefore(100)).toBe(2);
    expect(log.size).toBe(0);
    expect(log.dropBefore(100)).toBe(0);
    log.insert(7);
    log.clear();
    expect(log.size).toBe(0);
    expect(log.toArray()).toEqual([]);
    expect(log.first()).toBe(Number.POSITIVE_INFINITY);
    // after a clear the ring starts again at its head: a wrapped log grows in order
    for (const t of [1, 2, 3, 4, 5, 6, 7, 8, 9]) log.insert(t);
    expect(log.shift()).toBe(1);
    log.insert(10);
    expect(log.toArray()).toEqual([2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(log.at(8)).toBe(10);
  });
  it('the ring wraps: shift, dropThrough and dropBefore walk the head round a small buffer many times', () => {
    const log = new TimeLog(4);
    let next = 0;
    const model: number[] = [];
    for (let round = 0; round < 40; round++) {
      // never more than 3 held: the buffer stays at 4 and the head wraps every few rounds
      while (model.length < 3) {
        log.insert(next);
        model.push(next++);
      }
      if (round % 3 === 0) expect(log.shift()).toBe(model.shift());
      else if (round % 3 === 1) {
        expect(log.dropThrough(model[1])).toBe(2);
        model.splice(0, 2);
      } else {
        expect(log.dropBefore(model[2])).toBe(2);
        model.splice(0, 2);
      }
      expect(log.toArray()).toEqual(model);
      expect(log.first()).toBe(model.length > 0 ? model[0] : Number.POSITIVE_INFINITY);
    }
  });

  it('expiriesBefore lists an expiry strictly before the horizon, not one at it', () => {
    const log = new TimeLog();
    log.insertAll([0, 10, 20]);
    expect(log.expiriesBefore(110, 100, 'sliding')).toEqual([100]);
    expect(log.expiriesBefore(110.5, 100, 'sliding')).toEqual([100, 110]);
    expect(log.expiriesBefore(100, 100, 'sliding')).toEqual([]);
    // fixed, W = 10: 0 expires at 10, 10 at 20, 20 at 30
    expect(log.expiriesBefore(20, 10, 'fixed')).toEqual([10]);
    expect(log.expiriesBefore(30, 10, 'fixed')).toEqual([10, 20]);
  });

  it('removeMany takes up to n of the newest equal entries and moves the tail once; removeOne takes one', () => {
    const log = new TimeLog(2);
    log.insertAll([1, 2, 2, 2, 3, 4]);
    expect(log.removeMany(2, 2)).toBe(2);
    expect(log.toArray()).toEqual([1, 2, 3, 4]);
    expect(log.removeMany(2, 5)).toBe(1);
    expect(log.toArray()).toEqual([1, 3, 4]);
    expect(log.removeMany(2, 1)).toBe(0);
    expect(log.removeMany(0, 1)).toBe(0);
    expect(log.removeMany(9, 1)).toBe(0);
    expect(log.removeMany(1, 1)).toBe(1);
    expect(log.toArray()).toEqual([3, 4]);
    expect(log.removeOne(5)).toBe(false);
    expect(log.removeOne(0)).toBe(false);
    expect(log.removeOne(3)).toBe(true);
    expect(log.toArray()).toEqual([4]);
    expect(log.removeOne(4)).toBe(true);
    expect(log.removeOne(4)).toBe(false);
    expect(log.size).toBe(0);
    // on a wrapped ring: the head past the buffer's middle
    const w = new TimeLog(8);
    w.insertAll([0, 1, 2, 3, 4, 5]);
    w.dropThrough(4);
    w.insertAll([6, 7, 7, 8, 9, 10]);
    expect(w.removeMany(7, 2)).toBe(2);
    expect(w.removeOne(9)).toBe(true);
    expect(w.toArray()).toEqual([5, 6, 8, 10]);
    expect(w.removeOne(7)).toBe(false);
    expect(w.removeOne(6)).toBe(true);
    expect(w.toArray()).toEqual([5, 8, 10]);
    expect(w.removeOne(5)).toBe(true);
    expect(w.toArray()).toEqual([8, 10]);
  });
});
