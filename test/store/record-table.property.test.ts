import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RecordTable } from '../../src/store/memory/record-table.js';

interface Item {
  key: string;
  hash: number;
}

/**
 * Ops on keys of a few alphabets: a small one keeps the table small and its probes colliding (a
 * removed entry's followers must move back), a large one grows and shrinks it.
 */
const opsArb = fc.integer({ min: 4, max: 300 }).chain((n) =>
  fc.array(
    fc.tuple(
      fc.constantFrom('set', 'remove', 'get'),
      fc.integer({ min: 0, max: n }).map((i) => `k${i}`),
    ),
    { maxLength: 2000, size: 'max' },
  ),
);

describe('RecordTable (the memory store’s records by key)', () => {
  it('holds what a Map would, through sets, removes (entries moved back) and resizes', () => {
    fc.assert(
      fc.property(opsArb, (ops) => {
        const table = new RecordTable<Item>();
        const map = new Map<string, Item>();
        for (const [op, key] of ops) {
          if (op === 'set') {
            const item = { key, hash: 0 };
            table.set(item);
            map.set(key, item);
          } else if (op === 'remove') {
            const item = map.get(key) ?? { key, hash: 0 };
            table.remove(item);
            map.delete(key);
          }
          expect(table.get(key)).toBe(map.get(key));
          expect(table.size).toBe(map.size);
        }
        for (const [key, item] of map) {
          expect(table.get(key)).toBe(item);
          expect(table.holds(item)).toBe(true);
        }
        expect(table.keys().sort()).toEqual([...map.keys()].sort());
      }),
      { numRuns: 100 },
    );
  });

  it('tells an item it holds from another of the same key', () => {
    const table = new RecordTable<Item>();
    const a = { key: 'x', hash: 0 };
    const b = { key: 'x', hash: 0 };
    table.set(a);
    table.set(b);
    expect(table.holds(b)).toBe(true);
    expect(table.holds(a)).toBe(false);
    table.remove(a); // not held: nothing happens
    expect(table.get('x')).toBe(b);
    expect(table.size).toBe(1);
  });
});
