/**
 * Admit times as (time, count) runs, the form a sync's entries and replies carry them in: `times`
 * ascending (equal times may repeat), and `counts[i]` admits at `times[i]`, or one each when `counts`
 * is undefined. A request of cost c is one run of c, so what is held and sent follows requests,
 * never their cost.
 */

/** How many admits the runs stand for. */
export function runTotal(times: readonly number[], counts: readonly number[] | undefined): number {
  if (counts === undefined) return times.length;
  let n = 0;
  for (let i = 0; i < times.length; i++) n += counts[i];
  return n;
}

/** One entry per admit, ascending (tests and tools: never on a path a request's cost can reach). */
export function expandRuns(times: readonly number[], counts: readonly number[] | undefined): number[] {
  if (counts === undefined) return times.slice();
  const out: number[] = [];
  for (let i = 0; i < times.length; i++) for (let n = counts[i]; n > 0; n--) out.push(times[i]);
  return out;
}

/** Two ascending run lists merged into one (a on ties); counts undefined when both have none. */
export function mergeRuns(
  a: readonly number[],
  ac: readonly number[] | undefined,
  b: readonly number[],
  bc: readonly number[] | undefined,
): { times: number[]; counts: number[] | undefined } {
  const times = new Array<number>(a.length + b.length);
  const counts = ac === undefined && bc === undefined ? undefined : new Array<number>(times.length);
  let i = 0;
  let j = 0;
  let k = 0;
  while (i < a.length || j < b.length) {
    if (j >= b.length || (i < a.length && a[i] <= b[j])) {
      if (counts !== undefined) counts[k] = ac === undefined ? 1 : ac[i];
      times[k++] = a[i++];
    } else {
      if (counts !== undefined) counts[k] = bc === undefined ? 1 : bc[j];
      times[k++] = b[j++];
    }
  }
  return { times, counts };
}

/** `a` then `b` (every time of b at or after a's last): one list, counts undefined when both have none. */
export function concatRuns(
  a: number[],
  ac: readonly number[] | undefined,
  b: readonly number[],
  bc: readonly number[] | undefined,
): { times: number[]; counts: number[] | undefined } {
  const times = a.concat(b);
  if (ac === undefined && bc === undefined) return { times, counts: undefined };
  const counts = new Array<number>(times.length);
  for (let i = 0; i < a.length; i++) counts[i] = ac === undefined ? 1 : ac[i];
  for (let j = 0; j < b.length; j++) counts[a.length + j] = bc === undefined ? 1 : bc[j];
  return { times, counts };
}

/** Instants, ascending (equal ones may repeat), and how many admits each stands for: Retry-After's walks. */
export interface RunList {
  t: number[];
  n: number[];
}

/** An empty RunList, shared: never written. */
export const NO_RUNS: RunList = { t: [], n: [] };

/** `times[from…]` mapped by `f`, with their counts (one each without `counts`), as a RunList. */
export function runList(
  times: readonly number[],
  counts: readonly number[] | undefined,
  from: number,
  f: (t: number) => number,
): RunList {
  const len = Math.max(0, times.length - from);
  const t = new Array<number>(len);
  const n = new Array<number>(len);
  for (let i = 0; i < len; i++) {
    t[i] = f(times[from + i]);
    n[i] = counts === undefined ? 1 : counts[from + i];
  }
  return { t, n };
}

/** The admits a RunList stands for. */
export function listTotal(l: RunList): number {
  let s = 0;
  for (let i = 0; i < l.n.length; i++) s += l.n[i];
  return s;
}
