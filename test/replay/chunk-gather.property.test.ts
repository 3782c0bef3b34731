// ArrivalChunk.gather: the rows moved into key order hold what the per-key lists held, each key's
// arrivals side by side in time order (from two arrivals a key; fewer are left as they are).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ArrivalChunk, FIELDS } from '../../src/replay/run/chunk.js';
import { KeyStats } from '../../src/replay/run/key-stats.js';

const DESIGNS = 3;

/** Each key's rows, by its lists, in the order of `keys`. */
function walk(c: ArrivalChunk): { key: string; rows: number[][] }[] {
  const out: { key: string; rows: number[][] }[] = [];
  for (let j = 0; j < c.keyCount; j++) {
    const st = c.keys[j]!;
    const rows: number[][] = [];
    for (let s = st.chunkHead; s !== -1; s = c.data[s * c.stride + 3]) {
      const row = [...c.data.subarray(s * c.stride, (s + 1) * c.stride)];
      row[3] = 0; // the link, not the arrival
      rows.push(row);
    }
    out.push({ key: st.key, rows });
  }
  return out;
}

/** A chunk of these arrivals (each a key's number), with every field told apart. */
function filled(keysOf: number[], capacity: number): ArrivalChunk {
  const c = new ArrivalChunk(capacity, DESIGNS, 4);
  const stats = new Map<number, KeyStats>();
  keysOf.forEach((k, n) => {
    let st = stats.get(k);
    if (st === undefined) stats.set(k, (st = new KeyStats(`k${k}`, DESIGNS, 0)));
    const base = c.add(st, 1000 + n, n % 4, n % 3, 7 * n);
    for (let i = 1; i < DESIGNS; i++) c.data[base + i] = 100 * n + i;
  });
  return c;
}

describe('ArrivalChunk.gather', () => {
  it('moves each key’s arrivals side by side, in time order, their rows whole', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 12 }), { minLength: 1, maxLength: 60 }),
        fc.integer({ min: 0, max: 30 }),
        (keysOf, room) => {
          const c = filled(keysOf, keysOf.length + room);
          const before = walk(c);
          c.gather();
          expect(walk(c)).toEqual(before);
          if (2 * c.keyCount > c.size) return;
          // side by side: each key's first where the one before it ended
          let slot = 0;
          for (let j = 0; j < c.keyCount; j++) {
            const st = c.keys[j]!;
            expect(st.chunkHead).toBe(slot);
            for (let s = st.chunkHead; s !== -1; s = c.data[s * c.stride + 3]) expect(s).toBe(slot++);
          }
          expect(slot).toBe(c.size);
        },
      ),
    );
  });

  it('gathers a chunk of two arrivals a key, and leaves one of fewer as it is', () => {
    // 3 keys, 6 arrivals: gathered (the guard `2 · keys > arrivals` must not skip it)
    const c = filled([0, 1, 2, 0, 1, 2], 6);
    c.gather();
    expect([0, 1, 2].map((j) => c.keys[j]!.chunkHead)).toEqual([0, 2, 4]);
    expect([c.data[3], c.data[c.stride + 3]]).toEqual([1, -1]);
    expect(c.data[c.stride]).toBe(1003);
    expect(c.data[c.stride + FIELDS]).toBe(301);
    // 4 keys, 7 arrivals: left in time order, each key's arrivals through its links
    const d = filled([0, 1, 2, 0, 3, 1, 2], 7);
    const data = d.data;
    const before = [...data];
    d.gather();
    expect(d.data).toBe(data);
    expect([...d.data]).toEqual(before);
    expect(d.keys[0]!.chunkHead).toBe(0);
    expect(d.data[3]).toBe(3);
  });

  it('a chunk of one arrival a key is left in place: its time order is its key order', () => {
    const c = filled([3, 1, 2, 0], 4);
    const data = c.data;
    const before = [...data];
    c.gather();
    expect(c.data).toBe(data);
    expect([...c.data]).toEqual(before);
    expect(walk(c).map((k) => k.key)).toEqual(['k3', 'k1', 'k2', 'k0']);
  });

  it('gathers again after a clear: the rows swapped out hold the next chunk’s', () => {
    const c = filled([0, 1, 0, 1], 4);
    c.gather();
    c.clear();
    const st = new KeyStats('x', DESIGNS, 0);
    const other = new KeyStats('y', DESIGNS, 0);
    for (const [n, s] of [st, other, st, other].entries()) {
      const base = c.add(s, 5 + n, n, 0, 9 + n);
      for (let i = 1; i < DESIGNS; i++) c.data[base + i] = n;
    }
    const before = walk(c);
    c.gather();
    expect(walk(c)).toEqual(before);
    expect(before[0].rows.map((r) => r[0])).toEqual([5, 7]);
    expect(c.keys[1]!.chunkHead).toBe(2);
  });
});
