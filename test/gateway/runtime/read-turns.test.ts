import { describe, expect, it } from 'vitest';
import type { KeyLimiter } from '../../../src/designs/key-limiter.js';
import type { KeyTable } from '../../../src/gateway/runtime/key-table.js';
import { type FarKey, ReadTurns } from '../../../src/gateway/runtime/read-turns.js';
import { Entries } from '../../../src/gateway/runtime/sync-parts.js';

/** A far key whose entry is a bare read. */
const far = (key: string): FarKey => ({
  key,
  lim: {
    syncEntry: (k: string) => ({ key: k, admits: [], read: true, release: false, ask: 0 }),
  } as unknown as KeyLimiter,
});

describe('ReadTurns', () => {
  it('a round reads what is left of four parts, and at least one part', () => {
    const r = new ReadTurns();
    expect(r.budget(0, 10)).toBe(40);
    expect(r.budget(25, 10)).toBe(15);
    expect(r.budget(100, 10)).toBe(10);
  });

  it('takes the far keys in turns, round the list; a key dropped since the walk is passed over', async () => {
    const keys = ['a', 'b', 'c', 'd', 'e'].map(far);
    const held = new Map(keys.map((f) => [f.key, f.lim]));
    const table = { get: (k: string) => held.get(k) } as unknown as KeyTable;
    const r = new ReadTurns();
    const round = async () => {
      const to = new Entries();
      await r.take(keys, 2, 0, table, to);
      return to.entries.map((e) => e.key);
    };
    expect(await round()).toEqual(['a', 'b']);
    expect(await round()).toEqual(['c', 'd']);
    held.delete('a');
    expect(await round()).toEqual(['e']);
    expect(await round()).toEqual(['b', 'c']);
  });
});
