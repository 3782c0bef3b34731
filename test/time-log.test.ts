import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TimeLog } from '../src/window/time-log.js';

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
      { numRuns: 300, seed: 3 },
    );
  });
});
