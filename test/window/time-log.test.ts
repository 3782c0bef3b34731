import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { expiryOf } from '../../src/window/expiry.js';
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
});
