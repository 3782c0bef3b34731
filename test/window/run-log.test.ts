import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { expiryOf } from '../../src/window/expiry.js';
import { AdmitLog, RunLog } from '../../src/window/run-log.js';
import { expandRuns } from '../../src/window/runs.js';
import { seeded } from '../support/fc-seed.js';

const W = 50;
const kind = fc.constantFrom<('sliding' | 'fixed')[]>('sliding', 'fixed');

describe('RunLog', () => {
  it('holds the same sorted multiset as a plain array through inserts and expiry (property)', () => {
    const op = fc.oneof(
      {
        weight: 5,
        arbitrary: fc.record({
          op: fc.constant('insert' as const),
          dt: fc.integer({ min: -8, max: 12 }),
          n: fc.integer({ min: 1, max: 3 }),
        }),
      },
      {
        weight: 1,
        arbitrary: fc.record({ op: fc.constant('drop' as const), dt: fc.integer({ min: 0, max: 80 }) }),
      },
    );
    fc.assert(
      fc.property(kind, fc.array(op, { maxLength: 300 }), (k, ops) => {
        const log = new RunLog();
        let model: number[] = [];
        let t = 100;
        for (const o of ops) {
          t = Math.max(0, t + o.dt);
          if (o.op === 'insert') {
            log.insert(t, o.n);
            for (let i = 0; i < o.n; i++) model.push(t);
            model.sort((a, b) => a - b);
          } else {
            const before = model.length;
            model = model.filter((x) => expiryOf(x, W, k) > t);
            expect(log.dropExpired(t, W, k)).toBe(before - model.length);
          }
          expect(log.size).toBe(model.length);
          expect(log.first()).toBe(model.length > 0 ? model[0] : Number.POSITIVE_INFINITY);
        }
        expect(log.toArray()).toEqual(model);
      }),
      seeded({ numRuns: 300 }),
    );
  });
});

describe('AdmitLog', () => {
  it('keeps every admit in order, counts the live ones, and survives recycle and prefixed (property)', () => {
    const op = fc.oneof(
      {
        weight: 6,
        arbitrary: fc.record({
          op: fc.constant('append' as const),
          dt: fc.integer({ min: -5, max: 10 }),
          n: fc.integer({ min: 1, max: 3 }),
        }),
      },
      {
        weight: 2,
        arbitrary: fc.record({ op: fc.constant('expire' as const), dt: fc.integer({ min: 0, max: 60 }) }),
      },
      { weight: 1, arbitrary: fc.constant({ op: 'clear' as const }) },
      {
        weight: 1,
        arbitrary: fc.record({
          op: fc.constant('reset' as const),
          ts: fc.array(fc.integer({ min: 0, max: 400 }), { maxLength: 6 }),
          from: fc.nat(3),
        }),
      },
    );
    fc.assert(
      fc.property(kind, fc.array(op, { maxLength: 300 }), (k, ops) => {
        let log = new AdmitLog();
        let model: number[] = [];
        let cursor = 0;
        let t = 100;
        for (const o of ops) {
          if (o.op === 'append') {
            t = Math.max(0, t + o.dt);
            const first = cursor === model.length;
            expect(log.append(t, o.n)).toBe(first);
            for (let i = 0; i < o.n; i++) model.push(t);
          } else if (o.op === 'expire') {
            t += o.dt;
            while (cursor < model.length && expiryOf(model[cursor], W, k) <= t) cursor++;
            expect(log.expire(t, W, k)).toBe(model.length - cursor);
          } else if (o.op === 'clear') {
            log = log.recycle();
            // the shared empty log is handed back for a quiet key; it is never written to
            if (log === AdmitLog.NONE) log = new AdmitLog();
            model = [];
            cursor = 0;
          } else {
            const ts = [...o.ts].sort((a, b) => a - b);
            log = log.prefixed(ts, undefined, o.from);
            model = ts.slice(o.from).concat(model.slice(cursor));
            cursor = 0;
          }
          expect(log.size).toBe(model.length);
          expect(log.live).toBe(model.length - cursor);
          expect(log.firstLive()).toBe(cursor < model.length ? model[cursor] : Number.NaN);
        }
        expect(log.toArray()).toEqual(model);
        const live = log.liveRuns();
        expect(expandRuns(live.times, live.counts)).toEqual(model.slice(cursor));
        // what a sync pushes: the runs of every admit held, one entry per instant
        expect(expandRuns(log.runTimes(), log.runCounts())).toEqual(model);
        expect(AdmitLog.NONE.size + AdmitLog.NONE.live + AdmitLog.NONE.toArray().length).toBe(0);
      }),
      seeded({ numRuns: 300 }),
    );
  });
});

describe('run counts', () => {
  it('refuse more than 2^32 − 1 admits at one instant, leaving the log as it was', () => {
    const log = new AdmitLog();
    log.append(5, 3);
    expect(() => log.append(5, 2 ** 32 - 3)).toThrow(RangeError);
    expect(() => log.append(6, 2 ** 32)).toThrow(RangeError);
    expect([log.size, log.live]).toEqual([3, 3]);
    log.append(5, 2 ** 32 - 4);
    expect(log.size).toBe(2 ** 32 - 1);
    // exactly 2^32 − 1 in one append is taken
    const one = new AdmitLog();
    one.append(9, 2 ** 32 - 1);
    expect(one.size).toBe(2 ** 32 - 1);
    const runs = new RunLog();
    runs.insert(1, 2);
    expect(() => runs.insert(1, 2 ** 32 - 2)).toThrow(RangeError);
    expect(runs.size).toBe(2);
  });
  it('RunLog takes exactly 2^32 − 1 admits at one instant, in one insert or added to a run', () => {
    const max = 2 ** 32 - 1;
    const a = new RunLog();
    a.insert(7, max);
    expect(a.size).toBe(max);
    expect(() => a.insert(7, 1)).toThrow(RangeError);
    expect(() => new RunLog().insert(7, max + 1)).toThrow(RangeError);
    // an out-of-order insert onto an older run is held to the same bound
    const b = new RunLog();
    b.insert(3, max - 1);
    b.insert(9);
    b.insert(3);
    expect(() => b.insert(3)).toThrow(RangeError);
    expect(b.size).toBe(max + 1);
  });

  it('RunLog: inserts out of order merge into equal runs or open a run, across compaction', () => {
    const log = new RunLog();
    for (const t of [10, 20, 30, 40]) log.insert(t);
    // drop 10 and 20 (sliding, W = 15 at 35): the two dead runs at the head make room by sliding down
    expect(log.dropExpired(35, 15, 'sliding')).toBe(2);
    expect(log.first()).toBe(30);
    log.insert(50);
    log.insert(60);
    expect(log.first()).toBe(30);
    expect(log.toArray()).toEqual([30, 40, 50, 60]);
    // out of order: onto an equal run, between runs, before the head
    log.insert(40, 2);
    log.insert(45);
    log.insert(25, 3);
    expect(log.toArray()).toEqual([25, 25, 25, 30, 40, 40, 40, 45, 50, 60]);
    expect(log.size).toBe(10);
    expect(log.first()).toBe(25);
    expect(log.dropExpired(45 + 15, 15, 'sliding')).toBe(8);
    expect(log.toArray()).toEqual([50, 60]);
    // a full buffer with dead runs at its head, then an out-of-order insert: slid down, then opened
    const b = new RunLog();
    for (const t of [1, 2, 3, 4, 5, 6, 7, 8]) b.insert(t);
    expect(b.dropExpired(6, 1, 'sliding')).toBe(5);
    b.insert(6.5);
    expect(b.toArray()).toEqual([6, 6.5, 7, 8]);
    expect(b.first()).toBe(6);
    // older than every live run and than the dead runs before the head: it goes in at the head
    const c = new RunLog();
    for (const t of [10, 20, 30, 40]) c.insert(t);
    expect(c.dropExpired(21, 1, 'sliding')).toBe(2);
    c.insert(5);
    expect(c.toArray()).toEqual([5, 30, 40]);
    expect(c.size).toBe(3);
  });
});
