import { describe, expect, it } from 'vitest';
import {
  firstAdmitAt,
  firstRuns,
  merged,
  NO_RUNS,
  after as runsAfter,
} from '../../src/designs/retry-walk.js';

/**
 * Retry-After's walk over the runs a gateway knows of (instants and how many admits leave at each).
 * Found by Stryker (issue 32): the designs' tests reached it only through the designs' answers.
 */
describe('retry walk', () => {
  const kx = { t: [10, 20], n: [1, 2] };
  const ox = { t: [15, 20], n: [1, 1] };
  const fits = (k: number, o: number) => k + o <= 2;

  it('firstAdmitAt: the first instant the counts, falling at each listed run, pass the test', () => {
    expect(firstAdmitAt(0, Number.POSITIVE_INFINITY, 3, kx, 2, ox, fits)).toBe(20);
    // equal instants in both lists are taken together: at 20 both fall
    expect(firstAdmitAt(0, Number.POSITIVE_INFINITY, 3, kx, 2, ox, (k, o) => k === 0 && o === 0)).toBe(20);
    expect(firstAdmitAt(0, Number.POSITIVE_INFINITY, 3, kx, 2, ox, (k, o) => k + o <= 3)).toBe(15);
    // already there: now
    expect(firstAdmitAt(5, Number.POSITIVE_INFINITY, 0, kx, 0, ox, fits)).toBe(5);
    // only instants before `until` count
    expect(firstAdmitAt(0, 20, 3, kx, 2, ox, fits)).toBe(Number.POSITIVE_INFINITY);
    expect(firstAdmitAt(0, 21, 3, kx, 2, ox, fits)).toBe(20);
    expect(firstAdmitAt(30, 30, 0, NO_RUNS, 0, NO_RUNS, fits)).toBe(Number.POSITIVE_INFINITY);
    // the lists run out first: never
    expect(firstAdmitAt(0, Number.POSITIVE_INFINITY, 9, kx, 2, ox, fits)).toBe(Number.POSITIVE_INFINITY);
    expect(firstAdmitAt(0, Number.POSITIVE_INFINITY, 3, kx, 0, NO_RUNS, fits)).toBe(10);
    expect(firstAdmitAt(0, Number.POSITIVE_INFINITY, 0, NO_RUNS, 2, ox, (_k, o) => o === 1)).toBe(15);
  });

  it('after, firstRuns and merged cut and join run lists', () => {
    const xs = { t: [1, 2, 3], n: [1, 1, 2] };
    expect(runsAfter(xs, 2)).toEqual({ t: [3], n: [2] });
    expect(runsAfter(xs, 0)).toEqual(xs);
    expect(runsAfter(xs, 3)).toEqual({ t: [], n: [] });
    expect(firstRuns(xs, 2)).toEqual({ t: [1, 2], n: [1, 1] });
    expect(merged(kx, ox)).toEqual({ t: [10, 15, 20, 20], n: [1, 1, 2, 1] });
    expect(merged(ox, NO_RUNS, kx).t).toEqual([10, 15, 20, 20]);
  });
});
