import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LruMap } from '../../src/util/lru-map.js';
import { seeded } from '../support/fc-seed.js';

describe('LruMap', () => {
  it('keeps the order a Map gets from delete + set on every use (property)', () => {
    const key = fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f');
    const op = fc.oneof(
      fc.record({ op: fc.constant('use' as const), key }),
      fc.record({ op: fc.constant('set' as const), key, value: fc.nat(9) }),
      fc.record({ op: fc.constant('delete' as const), key }),
      fc.record({ op: fc.constant('sweep' as const), value: fc.nat(9) }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 80 }), (ops) => {
        const lru = new LruMap<number>();
        const model = new Map<string, number>();
        for (const o of ops) {
          if (o.op === 'use') {
            const v = model.get(o.key);
            if (v !== undefined) {
              model.delete(o.key);
              model.set(o.key, v);
            }
            expect(lru.use(o.key)).toBe(v);
          } else if (o.op === 'set') {
            model.set(o.key, o.value);
            lru.set(o.key, o.value);
          } else if (o.op === 'delete') {
            expect(lru.delete(o.key)).toBe(model.delete(o.key));
          } else {
            // a loop that deletes the key it is at, as the gateway's sweeps do
            for (const [k, v] of model) if (v < o.value) model.delete(k);
            for (const [k, v] of lru) if (v < o.value) lru.delete(k);
          }
          expect([...lru]).toEqual([...model]);
          expect(lru.size).toBe(model.size);
          for (const k of ['a', 'b', 'c']) {
            expect(lru.has(k)).toBe(model.has(k));
            expect(lru.get(k)).toBe(model.get(k));
          }
        }
      }),
      seeded({ numRuns: 300 }),
    );
  });
});
