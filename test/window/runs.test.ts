import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  concatRuns,
  expandRuns,
  listTotal,
  mergeRuns,
  NO_RUNS,
  runList,
  runTotal,
} from '../../src/window/runs.js';
import { seeded } from '../support/fc-seed.js';

/** Ascending times with a count each (1–4), some equal. */
const runs = fc
  .array(fc.record({ t: fc.integer({ min: 0, max: 30 }), n: fc.integer({ min: 1, max: 4 }) }), {
    maxLength: 12,
  })
  .map((xs) => {
    xs.sort((a, b) => a.t - b.t);
    return { times: xs.map((x) => x.t), counts: xs.map((x) => x.n) };
  });

describe('runTotal and expandRuns', () => {
  it('count one admit per time without counts, and the counts with them', () => {
    expect(runTotal([1, 2, 2], undefined)).toBe(3);
    expect(runTotal([1, 2, 2], [3, 1, 5])).toBe(9);
    expect(runTotal([], [])).toBe(0);
    expect(expandRuns([1, 2, 2], [3, 1, 2])).toEqual([1, 1, 1, 2, 2, 2]);
    expect(expandRuns([4], [0])).toEqual([]);
  });

  it('expandRuns without counts copies the times: the caller may write to it', () => {
    const times = [3, 5];
    const out = expandRuns(times, undefined);
    expect(out).toEqual([3, 5]);
    out.push(9);
    expect(times).toEqual([3, 5]);
  });
});

describe('mergeRuns', () => {
  it('takes a on ties, each run with its own count', () => {
    expect(mergeRuns([5], [2], [5], [3])).toEqual({ times: [5, 5], counts: [2, 3] });
    expect(mergeRuns([1, 5, 9], [2, 1, 4], [3, 5], [7, 6])).toEqual({
      times: [1, 3, 5, 5, 9],
      counts: [2, 7, 1, 6, 4],
    });
  });

  it('counts a side without counts as one each, and none when neither side has them', () => {
    expect(mergeRuns([1, 4], undefined, [2], [5])).toEqual({ times: [1, 2, 4], counts: [1, 5, 1] });
    expect(mergeRuns([2], [5], [1, 4], undefined)).toEqual({ times: [1, 2, 4], counts: [1, 5, 1] });
    expect(mergeRuns([1, 4], undefined, [2, 4], undefined)).toEqual({
      times: [1, 2, 4, 4],
      counts: undefined,
    });
    expect(mergeRuns([], undefined, [], undefined)).toEqual({ times: [], counts: undefined });
    expect(mergeRuns([], [], [3], [2])).toEqual({ times: [3], counts: [2] });
    expect(mergeRuns([3], [2], [], [])).toEqual({ times: [3], counts: [2] });
  });

  it('stands for the sorted union of both sides’ admits (property)', () => {
    fc.assert(
      fc.property(runs, runs, fc.boolean(), fc.boolean(), (a, b, withA, withB) => {
        const ac = withA ? a.counts : undefined;
        const bc = withB ? b.counts : undefined;
        const m = mergeRuns(a.times, ac, b.times, bc);
        expect(m.times.length).toBe(a.times.length + b.times.length);
        expect(m.counts === undefined).toBe(!withA && !withB);
        const all = [...expandRuns(a.times, ac), ...expandRuns(b.times, bc)].sort((x, y) => x - y);
        expect(expandRuns(m.times, m.counts)).toEqual(all);
        expect(runTotal(m.times, m.counts)).toBe(all.length);
      }),
      seeded({ numRuns: 200 }),
    );
  });
});

describe('concatRuns', () => {
  it('puts b after a, with counts when either side has them', () => {
    expect(concatRuns([1, 2], undefined, [2, 3], undefined)).toEqual({
      times: [1, 2, 2, 3],
      counts: undefined,
    });
    expect(concatRuns([1, 2], [4, 5], [2, 3], undefined)).toEqual({
      times: [1, 2, 2, 3],
      counts: [4, 5, 1, 1],
    });
    expect(concatRuns([1, 2], undefined, [2, 3], [6, 7])).toEqual({
      times: [1, 2, 2, 3],
      counts: [1, 1, 6, 7],
    });
    expect(concatRuns([], [], [3], [2])).toEqual({ times: [3], counts: [2] });
    // nothing after a: exactly a's counts, no slot past them
    expect(concatRuns([1, 2], undefined, [], [])).toStrictEqual({ times: [1, 2], counts: [1, 1] });
    expect(concatRuns([1, 2], [4, 5], [], [])).toStrictEqual({ times: [1, 2], counts: [4, 5] });
  });
});

describe('runList and listTotal', () => {
  it('maps times from an offset, with their counts or one each', () => {
    const twice = (t: number) => 2 * t;
    expect(runList([1, 2, 3], [4, 5, 6], 1, twice)).toEqual({ t: [4, 6], n: [5, 6] });
    expect(runList([1, 2, 3], undefined, 0, twice)).toEqual({ t: [2, 4, 6], n: [1, 1, 1] });
    expect(runList([1, 2, 3], undefined, 3, twice)).toEqual({ t: [], n: [] });
    // an offset past the end is an empty list, not a negative length
    expect(runList([1, 2, 3], [1, 1, 1], 5, twice)).toEqual({ t: [], n: [] });
  });

  it('adds up the admits', () => {
    expect(listTotal({ t: [1, 2, 3], n: [2, 0, 5] })).toBe(7);
    expect(listTotal(NO_RUNS)).toBe(0);
    expect(NO_RUNS).toEqual({ t: [], n: [] });
  });
});
