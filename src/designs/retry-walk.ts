/**
 * Retry-After's walk: the first instant a decision would admit, on the gateway's own knowledge. Only
 * a rejection that builds headers asks, and the designs cache the answer, so this allocates freely;
 * the lists are runs (RunList: an instant and how many admits age out at it), so the walk's work
 * follows requests, never their cost.
 */
import { NO_RUNS, type RunList } from '../window/runs.js';

export { NO_RUNS, type RunList };

/**
 * The first instant t >= `from` and < `until` at which `ok(k, o)` holds, where k starts at `k0` and
 * falls at each instant of `kx` by its count, and o starts at `o0` and falls at each of `ox` by its
 * count. Both lists are ascending and hold only instants after `from`. Infinity if there is none
 * before `until`.
 */
export function firstAdmitAt(
  from: number,
  until: number,
  k0: number,
  kx: RunList,
  o0: number,
  ox: RunList,
  ok: (k: number, o: number) => boolean,
): number {
  const kt = kx.t;
  const ot = ox.t;
  let k = k0;
  let o = o0;
  let i = 0;
  let j = 0;
  let t = from;
  for (;;) {
    if (!(t < until)) return Number.POSITIVE_INFINITY;
    if (ok(k, o)) return t;
    t = Math.min(
      i < kt.length ? kt[i] : Number.POSITIVE_INFINITY,
      j < ot.length ? ot[j] : Number.POSITIVE_INFINITY,
    );
    if (t === Number.POSITIVE_INFINITY) return t;
    while (i < kt.length && kt[i] === t) {
      k -= kx.n[i];
      i++;
    }
    while (j < ot.length && ot[j] === t) {
      o -= ox.n[j];
      j++;
    }
  }
}

/** The runs of `xs` after `t`, ascending (xs is ascending). */
export function after(xs: RunList, t: number): RunList {
  let i = 0;
  while (i < xs.t.length && xs.t[i] <= t) i++;
  return { t: xs.t.slice(i), n: xs.n.slice(i) };
}

/** The first `m` runs of `xs`. */
export function firstRuns(xs: RunList, m: number): RunList {
  return { t: xs.t.slice(0, m), n: xs.n.slice(0, m) };
}

/** Ascending lists merged into one (equal instants kept apart: the walk takes them together). */
export function merged(...lists: RunList[]): RunList {
  const pairs: [number, number][] = [];
  for (const l of lists) for (let i = 0; i < l.t.length; i++) pairs.push([l.t[i], l.n[i]]);
  // runs already sorted: the sort only merges them
  pairs.sort((a, b) => a[0] - b[0]);
  const t = new Array<number>(pairs.length);
  const n = new Array<number>(pairs.length);
  for (let i = 0; i < pairs.length; i++) {
    t[i] = pairs[i][0];
    n[i] = pairs[i][1];
  }
  return { t, n };
}
