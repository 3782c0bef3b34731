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

  it('a round of more than the list reads each key once; an empty round leaves the turn at the start', async () => {
    const keys = ['a', 'b', 'c'].map(far);
    const held = new Map(keys.map((f) => [f.key, f.lim]));
    const table = { get: (k: string) => held.get(k) } as unknown as KeyTable;
    const r = new ReadTurns();
    const round = async (list: FarKey[], max: number) => {
      const to = new Entries();
      await r.take(list, max, 0, table, to);
      return to.entries.map((e) => e.key);
    };
    expect(await round(keys, 10)).toEqual(['a', 'b', 'c']);
    expect(await round([], 10)).toEqual([]);
    expect(await round(keys, 2)).toEqual(['a', 'b']);
    expect(await round(keys, 2)).toEqual(['c', 'a']);
  });

  it('a key replaced since the walk, or with nothing to read, is passed over; own counts its admits', async () => {
    const replaced = far('r');
    const quiet: FarKey = {
      key: 'q',
      lim: { syncEntry: () => null } as unknown as KeyLimiter,
    };
    const pushing: FarKey = {
      key: 'p',
      lim: {
        syncEntry: (k: string) => ({
          key: k,
          admits: [5, 6],
          counts: [2, 1],
          read: true,
          release: false,
          ask: 0,
        }),
      } as unknown as KeyLimiter,
    };
    const held = new Map<string, KeyLimiter>([
      ['r', far('r').lim],
      ['q', quiet.lim],
      ['p', pushing.lim],
    ]);
    const table = { get: (k: string) => held.get(k) } as unknown as KeyTable;
    const to = new Entries();
    await new ReadTurns().take([replaced, quiet, pushing], 10, 0, table, to);
    expect(to.entries.map((e) => e.key)).toEqual(['p']);
    expect(to.owners).toEqual([pushing.lim]);
    expect(to.own).toEqual([3]);
    expect(to.fallbacks).toEqual([null]);
  });
});
