/**
 * Retry-After's walk: the first instant a decision would admit, on the gateway's own knowledge. Only
 * a rejection that builds headers asks, and the designs cache the answer, so this allocates freely.
 */

/**
 * The first instant t >= `from` and < `until` at which `ok(k, o)` holds, where k starts at `k0` and
 * falls by one at each instant of `kx`, and o starts at `o0` and falls by one at each of `ox`. Both
 * lists are ascending and hold only instants after `from`. Infinity if there is none before `until`.
 */
export function firstAdmitAt(
  from: number,
  until: number,
  k0: number,
  kx: readonly number[],
  o0: number,
  ox: readonly number[],
  ok: (k: number, o: number) => boolean,
): number {
  let k = k0;
  let o = o0;
  let i = 0;
  let j = 0;
  let t = from;
  for (;;) {
    if (!(t < until)) return Number.POSITIVE_INFINITY;
    if (ok(k, o)) return t;
    t = Math.min(
      i < kx.length ? kx[i] : Number.POSITIVE_INFINITY,
      j < ox.length ? ox[j] : Number.POSITIVE_INFINITY,
    );
    if (t === Number.POSITIVE_INFINITY) return t;
    while (i < kx.length && kx[i] === t) {
      k--;
      i++;
    }
    while (j < ox.length && ox[j] === t) {
      o--;
      j++;
    }
  }
}

/** The instants of `xs` after `t`, ascending (xs is ascending). */
export function after(xs: readonly number[], t: number): number[] {
  let i = 0;
  while (i < xs.length && xs[i] <= t) i++;
  return i === 0 ? xs.slice() : xs.slice(i);
}

/** Ascending lists merged into one. */
export function merged(...lists: (readonly number[])[]): number[] {
  const out: number[] = [];
  for (const l of lists) for (const x of l) out.push(x);
  // runs already sorted: the sort only merges them
  return out.sort((a, b) => a - b);
}
