/**
 * SyncedKey's `late` runs: its own admits pushed by earlier syncs whose expiry lies past the horizon
 * of the reply that counted them (the store counts them without telling when they age out; the
 * gateway knows). One flat array of (time, count) pairs, oldest push first, the count negated on the
 * last run of each push. These functions work on that array in place; the key keeps the array, where
 * it starts (`from`) and when its first push is listed whole.
 */
import { expiryOf } from '../window/expiry.js';
import { runTotal } from '../window/runs.js';
import type { FleetParams } from './key-limiter.js';
import { lateExpiries, type RetryPart } from './synced-retry.js';

type WindowOf = FleetParams['policy'];

/** The index of the last run of the push whose first run is at `r`. */
export function lastRunOf(late: readonly number[], r: number): number {
  while (late[r + 1] > 0) r += 2;
  return r;
}

/** When the push starting at run `from` is listed whole: the expiry of its last run. */
export function firstPushDue(late: readonly number[], from: number, policy: WindowOf): number {
  return expiryOf(late[lastRunOf(late, from)], policy.windowMs, policy.windowKind);
}

/**
 * Drops the pushes a reply with this `horizon` lists whole (each goes when its last run's expiry is
 * before it), oldest first. Returns where the array starts now: `late.length` when every push went;
 * once the dropped runs are half of it, the rest is moved down and 0 returned.
 */
export function dropListed(late: number[], from: number, horizon: number, policy: WindowOf): number {
  const { windowMs, windowKind } = policy;
  let r = from;
  while (r < late.length) {
    const last = lastRunOf(late, r);
    if (!(expiryOf(late[last], windowMs, windowKind) < horizon)) break;
    r = last + 2;
  }
  if (r < late.length && 2 * r >= late.length) {
    // a loop, not copyWithin: the builtin boxed every double it moved
    const n = late.length - r;
    for (let i = 0; i < n; i++) late[i] = late[r + i];
    late.length = n;
    r = 0;
  }
  return r;
}

/** Appends one push's runs (`counts` undefined: one admit each); a new array when `late` is null. */
export function appendPush(late: number[] | null, pushed: number[], counts: number[] | undefined): number[] {
  const n = pushed.length;
  if (late === null) {
    // its exact size: grown by push from empty it held 16 runs (a key's memory: bench/key-bytes.mjs)
    late = new Array<number>(2 * n);
    for (let i = 0; i < n; i++) {
      late[2 * i] = pushed[i];
      late[2 * i + 1] = counts === undefined ? 1 : counts[i];
    }
  } else {
    // by push: grown by setting its length, it was copied whole at every push (the study's busy keys)
    for (let i = 0; i < n; i++) late.push(pushed[i], counts === undefined ? 1 : counts[i]);
  }
  late[late.length - 1] = -late[late.length - 1];
  return late;
}

/**
 * Takes `cost` admits at `at` out of the runs from `from`, the first runs at `at` first; a push left
 * empty goes. The rest is moved to the array's start: returns its new length.
 */
export function removeAdmits(late: number[], from: number, at: number, cost: number): number {
  let w = 0;
  for (let r = from; r < late.length; r += 2) {
    const end = late[r + 1] < 0;
    let k = end ? -late[r + 1] : late[r + 1];
    if (late[r] === at && cost > 0) {
      const off = Math.min(k, cost);
      k -= off;
      cost -= off;
    }
    if (k > 0) {
      late[w++] = late[r];
      late[w++] = end ? -k : k;
    } else if (end && w > 0 && late[w - 1] > 0) {
      // the push's last run went: the run kept before it is of the same push (an earlier push's
      // last run is marked), and ends it now
      late[w - 1] = -late[w - 1];
    }
  }
  late.length = w;
  return w;
}

/** A view's list as lateTail and listedWithLate read it: the reply's expiries, count and horizon. */
export interface ListedView {
  readonly count: number;
  readonly expiries: readonly number[];
  readonly expiryCounts?: readonly number[] | undefined;
  readonly horizon: number;
}

/** lateTail: no late run is past the horizon (the reply's lists stand). */
export const NO_LATE = -1;
/**
 * lateTail: the reply's count is below its list and the late runs, so it does not hold them all (the
 * key was reset at the store after the push, or the store lost them): listed, each left the count at
 * its expiry and took the view below 0, L + 1 admitted
 * (test/regressions/synced-late-admits-past-a-reset-count.test.ts). Which ones it holds is unknown:
 * none is kept as the key's own.
 */
export const NOT_HELD = -2;
/** lateTail: the late runs past the horizon are not the array's end in order (a clock that went back). */
export const NOT_IN_PLACE = -3;

/**
 * Where the runs of `late` the view lists after the reply's expiries start (those whose expiry is at
 * or past its horizon): when they are the array's last runs, in order (a clock never went back), the
 * view reads them in place from there (SyncedView.tail), where listedWithLate copied the whole list
 * at every read of a key holding late runs, the larger part of what reads on request allocated. Else
 * NO_LATE, NOT_HELD or NOT_IN_PLACE (see there).
 */
export function lateTail(late: readonly number[], from: number, reply: ListedView, policy: WindowOf): number {
  const { windowMs, windowKind } = policy;
  const h = reply.horizon;
  let s = -1;
  let held = 0;
  let inPlace = true;
  let prev = Number.NEGATIVE_INFINITY;
  for (let r = from; r < late.length; r += 2) {
    const e = expiryOf(late[r], windowMs, windowKind);
    if (!(e >= h)) {
      if (s >= 0) inPlace = false;
      continue;
    }
    if (s < 0) s = r;
    else if (e < prev) inPlace = false;
    prev = e;
    held += Math.abs(late[r + 1]);
  }
  if (s < 0) return NO_LATE;
  if (reply.count < runTotal(reply.expiries, reply.expiryCounts) + held) return NOT_HELD;
  return inPlace ? s : NOT_IN_PLACE;
}

/**
 * The reply's expiries (all before its horizon), then those of the late runs (at or past it), in
 * arrays of their exact length (a key's memory: bench/key-bytes.mjs), counts only where one is not 1.
 * For a `late` that lateTail found some of, and held: what the view reads in place otherwise, made
 * where it cannot (NOT_IN_PLACE) or where a caller wants the list whole.
 */
export function listedWithLate(
  late: readonly number[],
  from: number,
  reply: ListedView,
  policy: WindowOf,
): { t: number[]; n: number[] | undefined } {
  const { windowMs, windowKind } = policy;
  const h = reply.horizon;
  let m = 0;
  let ones = reply.expiryCounts === undefined;
  for (let r = from; r < late.length; r += 2) {
    if (!(expiryOf(late[r], windowMs, windowKind) >= h)) continue;
    m++;
    if (Math.abs(late[r + 1]) !== 1) ones = false;
  }
  const ex = reply.expiries;
  const ec = reply.expiryCounts;
  const t = new Array<number>(ex.length + m);
  const n = ones ? undefined : new Array<number>(ex.length + m);
  for (let i = 0; i < ex.length; i++) {
    t[i] = ex[i];
    if (n !== undefined) n[i] = ec === undefined ? 1 : ec[i];
  }
  let k = ex.length;
  let sorted = true;
  for (let r = from; r < late.length; r += 2) {
    const e = expiryOf(late[r], windowMs, windowKind);
    if (!(e >= h)) continue;
    if (k > ex.length && e < t[k - 1]) sorted = false;
    t[k] = e;
    if (n !== undefined) n[k] = Math.abs(late[r + 1]);
    k++;
  }
  if (!sorted) {
    // a clock that went back left own admits out of order
    const own = lateExpiries(late, from, h, policy);
    for (let r = 0; r < own.t.length; r++) {
      t[ex.length + r] = own.t[r];
      if (n !== undefined) n[ex.length + r] = own.n[r];
    }
  }
  return { t, n };
}

/**
 * The view's list whole (listedWithLate) from one read in place: its tail, `late` from run `tailIdx`
 * on (walked past up to there), and `expIdx`, the walk in the reply's part; `view`: the reply's part.
 * Returns where the walk stands in the whole list.
 */
export function wholeList(
  tail: readonly number[],
  tailIdx: number,
  from: number,
  view: ListedView,
  expIdx: number,
  policy: WindowOf,
): { t: number[]; n: number[] | undefined; expIdx: number } {
  const { windowMs, windowKind } = policy;
  // the tail's first run: the first from `from` at or past the horizon (lateTail's answer)
  let s = from;
  while (!(expiryOf(tail[s], windowMs, windowKind) >= view.horizon)) s += 2;
  const { t, n } = listedWithLate(tail, from, view, policy);
  return { t, n, expIdx: expIdx === view.expiries.length ? expIdx + (tailIdx - s) / 2 : expIdx };
}

/** Keeps the pushed admits a reply counted past its horizon; drops those it lists now (RetryPart.late). */
export function keepLate(
  part: RetryPart,
  pushed: number[],
  counts: number[] | undefined,
  horizon: number,
  policy: WindowOf,
): void {
  let late = part.late;
  // nothing pushed and nothing due: it would set what is already there (most keys at most syncs)
  if (pushed.length === 0 && (late === null || !(part.lateDue < horizon))) return;
  let first = false;
  if (late !== null && part.lateDue < horizon) {
    const r = dropListed(late, part.lateFrom, horizon, policy);
    if (r === late.length) {
      late = null;
      part.lateFrom = 0;
    } else part.lateFrom = r;
    first = true;
  }
  const n = pushed.length;
  if (n > 0 && expiryOf(pushed[n - 1], policy.windowMs, policy.windowKind) >= horizon) {
    if (late === null) first = true;
    late = appendPush(late, pushed, counts);
  }
  setLate(part, late, first || late === null, policy);
}

/** Sets `late`; `firstChanged`: its first push is another (or it is gone), so lateDue is recomputed. */
export function setLate(
  part: RetryPart,
  late: number[] | null,
  firstChanged: boolean,
  policy: WindowOf,
): void {
  part.late = late;
  if (late === null) part.lateFrom = 0;
  if (!firstChanged) return;
  part.lateDue = late === null ? Number.POSITIVE_INFINITY : firstPushDue(late, part.lateFrom, policy);
}
