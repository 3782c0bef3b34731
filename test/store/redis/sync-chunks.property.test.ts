import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { chunkEntries, type KeyMark } from '../../../src/store/redis/sync-chunks.js';
import { seeded } from '../../support/fc-seed.js';

/** chunkEntries' contract, keys told apart by KeyMark or by name: every entry once, a key's entries in one chunk in request order, one slot per chunk, sizes bounded. */
describe('chunkEntries', () => {
  const marks: KeyMark[] = Array.from({ length: 31 }, () => ({ mark: 0, last: -1 }));
  it('keeps each key in one chunk, in order, one slot per chunk, within the bounds', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({ key: fc.integer({ min: 0, max: 30 }), admits: fc.integer({ min: 0, max: 5 }) }),
          {
            maxLength: 200,
          },
        ),
        fc.boolean(),
        fc.boolean(),
        fc.integer({ min: 1, max: 20 }),
        fc.integer({ min: 1, max: 30 }),
        (raw, cluster, marked, maxKeys, maxAdmits) => {
          const entries = raw.map((r) => ({ key: `k${r.key}`, admits: Array<number>(r.admits).fill(1) }));
          const slots = cluster ? raw.map((r) => r.key % 4) : null;
          // one KeyMark per key, shared by every call (as the name cache's are): a mark left by an
          // earlier call must not read as a repeat
          const ids = marked ? raw.map((r) => marks[r.key]) : null;
          const chunks = chunkEntries(entries, ids, slots, maxKeys, maxAdmits);
          if (ids !== null) expect(chunks).toEqual(chunkEntries(entries, null, slots, maxKeys, maxAdmits));
          const seen = chunks.flatMap((c) => c.indexes);
          expect([...seen].sort((a, b) => a - b)).toEqual(entries.map((_, i) => i));
          const chunkOfKey = new Map<string, number>();
          chunks.forEach((c, ci) => {
            const keys = new Set(c.indexes.map((i) => entries[i].key));
            if (slots !== null) expect(new Set(c.indexes.map((i) => slots[i])).size).toBe(1);
            for (const k of keys) {
              expect(chunkOfKey.has(k)).toBe(false);
              chunkOfKey.set(k, ci);
              const idx = c.indexes.filter((i) => entries[i].key === k);
              expect(idx).toEqual([...idx].sort((a, b) => a - b));
            }
            // closes at maxKeys keys or maxAdmits admits: only the last key added may cross either
            const last = entries[c.indexes[c.indexes.length - 1]].key;
            const before = c.indexes.filter((i) => entries[i].key !== last);
            const admitsBefore = before.reduce((s, i) => s + entries[i].admits.length, 0);
            expect(before.length < maxKeys || keys.size === 1).toBe(true);
            expect(admitsBefore < maxAdmits || keys.size === 1).toBe(true);
          });
        },
      ),
      seeded({ numRuns: 300 }),
    );
  });
});
