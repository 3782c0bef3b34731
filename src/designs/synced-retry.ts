/**
 * SyncedKey's Retry-After: the earliest instant the key admits a request, on what the gateway knows
 * (see SyncedKey.retryAt). Apart from the key's class so the decision's hot path stays small to read;
 * only a rejection that builds headers asks, and the key keeps the answer (RetryMemo), so this reads
 * a snapshot of the key's state (RetryState) and allocates freely.
 */

import { expiryOf } from '../window/expiry.js';
import { listTotal, runList } from '../window/runs.js';
import type { FleetParams } from './key-limiter.js';
import { after, firstAdmitAt, firstRuns, merged, NO_RUNS, type RunList } from './retry-walk.js';

type WindowOf = FleetParams['policy'];

/** SyncedKey.retryAt's last answer (`at`) and the state it was computed on. */
export class RetryMemo {
  at = Number.NaN;
  /** With `at` Infinity: the soonest it might admit (retryNotBefore); −Infinity: no bound. */
  notBefore = Number.NEGATIVE_INFINITY;
  from = Number.NaN;
  cost = Number.NaN;
  syncAt = Number.NaN;
  syncs = -1;
  pending = -1;
}

/**
 * What only Retry-After reads of a SyncedKey, apart from the key (SyncedKey.retry): made at its first
 * use, never where nothing asks Retry-After (SyncedKey.withoutRetryAfter).
 */
export class RetryPart {
  /** The last reply's horizon (SyncReply.horizon): what it listed the expiries up to. */
  horizon = Number.NEGATIVE_INFINITY;
  /**
   * When the oldest admit the last reply counted leaves, if that reply listed no expiry and said so
   * (SyncReply.oldestExpiry; NaN: not told). None of the admits it counted past its horizon leaves
   * before it; the others' among them (known only as a count) Retry-After waits for (issue 31).
   */
  unlistedFrom = Number.NaN;
  /**
   * Own admits pushed by earlier syncs whose expiry lies past the horizon of the reply that counted
   * them: the store counts them without telling when they age out, but this gateway knows (Retry-After).
   * The pushed runs, oldest first, copied into one array as (time, count) pairs, the count negated on
   * the last run of each push; a push is dropped once a reply lists all of it (null: none). One array
   * of numbers, not the pushed arrays themselves: a reply's walk over it (listLate) read one cold
   * array per push, and each pushed array lived for a window (promoted garbage).
   */
  late: number[] | null = null;
  /** Where `late` starts: the pushes before it were dropped (moved down only once they are half of it). */
  lateFrom = 0;
  /**
   * When the first push in `late` is listed whole (the expiry of its last run; Infinity: none):
   * keepLate compares it with each reply's horizon without reading `late`, cold memory at every
   * sync of every held key.
   */
  lateDue = Number.POSITIVE_INFINITY;
  /** Syncs taken, applied or failed, since this was made: `memo`'s answer is good only between two of these. */
  syncs = 0;
  /**
   * retryAt's last answer and what it was computed on; made at the key's first retryAt (a rejection
   * with headers), then updated in place. An object made on demand, not six fields on every key:
   * as fields (their doubles boxed by V8) they took a held key from 461 to 917 bytes
   * (bench/key-bytes.mjs, shared-counter).
   */
  memo: RetryMemo | null = null;
}

/** What the walk reads of a SyncedKey, settled to `now` (see the fields of the same names there). */
export interface RetryState {
  readonly p: FleetParams;
  readonly limit: number;
  readonly count: number;
  readonly expiries: readonly number[];
  readonly expCounts: readonly number[] | undefined;
  readonly expIdx: number;
  readonly horizon: number;
  readonly unlistedFrom: number;
  readonly below: readonly number[] | null;
  readonly past: readonly number[] | null;
  readonly late: readonly number[] | null;
  readonly lateFrom: number;
  readonly inflight: readonly number[];
  readonly inflightCounts: readonly number[] | undefined;
  readonly inflightIdx: number;
  /** The pending log's live runs (AdmitLog.liveRuns). */
  readonly pendingRuns: { readonly times: number[]; readonly counts: number[] };
  readonly lastSyncAt: number;
  readonly knownCached: number;
  readonly ownCached: number;
  /** SyncedKey.admits: whether decide admits `cost` with k store admits and o own admits counting. */
  admits(k: number, o: number, cost: number, afterSync: boolean): boolean;
}

/** retryAt's answer; when it is Infinity, sets `out.notBefore` where it has a bound. */
export function firstAdmit(s: RetryState, now: number, cost: number, syncAt: number, out: RetryMemo): number {
  const { windowMs, windowKind } = s.p.policy;
  const exp = (t: number) => expiryOf(t, windowMs, windowKind);
  // after settle every one of these is still counting at now
  // the view's expiries: the reply's (before its horizon), then its own late ones (see applySync)
  const listed = runList(s.expiries, s.expCounts, s.expIdx, (e) => e);
  const told = toldExpiries(s);
  const pend = s.pendingRuns;
  const own = merged(
    runList(s.inflight, s.inflightCounts, s.inflightIdx, exp),
    runList(pend.times, pend.counts, 0, exp),
  );
  const before = firstAdmitAt(now, syncAt, s.knownCached, listed, s.ownCached, own, (k, o) =>
    s.admits(k, o, cost, false),
  );
  if (before < Number.POSITIVE_INFINITY || !(syncAt < Number.POSITIVE_INFINITY)) return before;
  // a key no reply has told the store's count of yet: what the others admitted is unknown
  if (Number.isNaN(s.lastSyncAt)) return Number.POSITIVE_INFINITY;
  const ts = Math.max(now, syncAt);
  const late = lateExpiries(s.late, s.lateFrom, s.horizon, s.p.policy);
  const unknown = Math.max(0, s.count - listTotal(told.all) - listTotal(late));
  // its own admits count at their instants only once a reply lists them: with a horizon shorter
  // than Δ, one aging out past the next reply's horizon may still be counted when it does
  const { horizonMs, syncMs } = s.p;
  const sees = horizonMs >= syncMs ? Number.POSITIVE_INFINITY : ts + horizonMs;
  const mine = merged(after(late, ts), after(own, ts));
  let seen = 0;
  while (seen < mine.t.length && mine.t[seen] < sees) seen++;
  const ok = (k: number, o: number) => s.admits(k, o, cost, true);
  const fixed = merged(after(told.left, ts), firstRuns(mine, seen));
  let unseen = 0;
  for (let r = seen; r < mine.n.length; r++) unseen += mine.n[r];
  if (unknown === 0) {
    return firstAdmitAt(ts, Number.POSITIVE_INFINITY, listTotal(fixed) + unseen, fixed, 0, NO_RUNS, ok);
  }
  // The others' admits it knows only as a count (unknown) leave at instants it was not told, but
  // within bounds: none before the oldest the reply counted past its horizon (unlistedFrom, when
  // told; else the horizon), none after the window of the reply's instant. The oldest one leaves
  // exactly then, when it is not one of its own (those it knows). Walked both ways: with every
  // unknown leaving at its earliest (its own unseen ones too), then at its latest (the exact one at
  // its instant; past what a reply lists by then, never). The same answer both ways is the answer;
  // else it waits on admits it has no instant of: it cannot know (Infinity). It waited for its own
  // oldest admit instead, up to a window late (regression:
  // test/regressions/synced-retry-after-waits-for-its-own-oldest-admit.test.ts).
  const oldest = s.unlistedFrom;
  let lb = Number.isNaN(oldest) ? s.horizon : Math.max(oldest, s.horizon);
  let exact = !Number.isNaN(oldest) && (late.t.length === 0 || oldest < late.t[0]);
  // the others' admits among the two oldest unlisted (pastHorizonAt) leave at their instants, the
  // rest no earlier than the last told
  const known = pastOthers(s, late, unknown);
  let rest = unknown;
  if (known !== null) {
    rest -= listTotal(known.others);
    if (known.from > lb) lb = known.from;
    exact = false;
  }
  const others = known === null ? NO_RUNS : after(known.others, ts);
  const ub = Math.max(lb, exp(s.lastSyncAt));
  const at = (e: number, n: number): RunList => (e > ts && n > 0 ? { t: [e], n: [n] } : NO_RUNS);
  const lows = merged(
    after(told.left, ts),
    mine,
    others,
    unknownLows(s, ts, lb, rest, merged(told.left, others), late),
  );
  const lo = firstAdmitAt(ts, Number.POSITIVE_INFINITY, listTotal(lows), lows, 0, NO_RUNS, ok);
  if (!(lo < Number.POSITIVE_INFINITY)) return lo;
  const first = exact ? 1 : 0;
  let seenOthers = 0;
  while (seenOthers < others.t.length && others.t[seenOthers] < sees) seenOthers++;
  const highs = merged(
    fixed,
    firstRuns(others, seenOthers),
    first > 0 && lb < sees ? at(lb, 1) : NO_RUNS,
    ub < sees ? at(ub, rest - first) : NO_RUNS,
  );
  let gone = 0;
  if (first > 0 && !(lb > ts)) gone += 1;
  if (!(ub > ts)) gone += rest - first;
  const k0 = listTotal(fixed) + listTotal(others) + unseen + rest - gone;
  const hi = firstAdmitAt(ts, Number.POSITIVE_INFINITY, k0, highs, 0, NO_RUNS, ok);
  if (hi === lo) return lo;
  // it cannot know, but not before lo: a client told its next sync retried every Δ until then
  out.notBefore = lo;
  return Number.POSITIVE_INFINITY;
}

/**
 * The expiries the last reply listed (before its horizon; the view's list goes on with its own late
 * ones): all of them, and those not walked past yet.
 */
function toldExpiries(s: RetryState): { all: RunList; left: RunList } {
  const ex = s.expiries;
  const ec = s.expCounts;
  let b = ex.length;
  while (b > 0 && ex[b - 1] >= s.horizon) b--;
  const t = ex.slice(0, b);
  const n = ec === undefined ? undefined : ec.slice(0, b);
  return { all: runList(t, n, 0, (e) => e), left: runList(t, n, Math.min(s.expIdx, b), (e) => e) };
}

/**
 * The others' admits among the two oldest the last reply counted and did not list (`past`, its
 * pastHorizonAt): those of its instants that are not its own `late` ones (ascending runs), at most
 * `unknown` of them; `from`, the last instant told (none of the rest leaves before it). Null: not
 * told, or the reply does not agree with its own late admits (it then knows no more than before).
 */
function pastOthers(s: RetryState, late: RunList, unknown: number): { others: RunList; from: number } | null {
  const past = s.past;
  if (past === null) return null;
  const t: number[] = [];
  const n: number[] = [];
  let i = 0;
  let used = 0;
  let from = Number.NEGATIVE_INFINITY;
  for (const p of past) {
    // past the store's read, or no such admit: nothing more told
    if (!(p > Number.NEGATIVE_INFINITY && p < Number.POSITIVE_INFINITY)) break;
    if (i < late.t.length && late.t[i] < p) return null;
    from = p;
    if (i < late.t.length && late.t[i] === p) {
      // one of its own (a tie with another's leaves at the same instant either way)
      if (++used === late.n[i]) {
        i++;
        used = 0;
      }
      continue;
    }
    if (listTotal({ t, n }) >= unknown) return null;
    if (t.length > 0 && t[t.length - 1] === p) n[n.length - 1]++;
    else {
      t.push(p);
      n.push(1);
    }
  }
  if (from === Number.NEGATIVE_INFINITY) return null;
  return { others: { t, n }, from };
}

/**
 * Where the others' admits known only as a count (`unknown`) leave at their earliest, as runs after
 * `ts`: at `lb`, but for those the store's count needs to stay at L − j until below[j] (each j,
 * latest first, less those it knows leave then or later: `listed` and `late`). It let them all leave
 * at lb, early by up to a window when the count was over L (regression:
 * test/regressions/synced-retry-after-early-when-store-over-limit.test.ts).
 */
function unknownLows(
  s: RetryState,
  ts: number,
  lb: number,
  unknown: number,
  listed: RunList,
  late: RunList,
): RunList {
  const below = s.below;
  const runs = (e: number, n: number): RunList => (e > ts && n > 0 ? { t: [e], n: [n] } : NO_RUNS);
  if (below === null) return runs(lb, unknown);
  const counted = merged(after(listed, ts), after(late, ts));
  const t: number[] = [];
  const n: number[] = [];
  let held = 0;
  for (let j = below.length - 1; j >= 0; j--) {
    const b = below[j];
    if (!(b > ts && b < Number.POSITIVE_INFINITY)) continue;
    let stay = 0;
    for (let r = 0; r < counted.t.length; r++) if (counted.t[r] >= b) stay += counted.n[r];
    const need = Math.min(unknown, s.limit - j - stay) - held;
    if (need > 0) {
      // none leaves before lb anyway
      t.unshift(Math.max(b, lb));
      n.unshift(need);
      held += need;
    }
  }
  return merged(runs(lb, unknown - held), { t, n });
}

/**
 * Expiries of `late` admits (SyncedKey's flat run array, from run `from`) the store counts without
 * listing them (at or past `horizon`), ascending runs.
 */
export function lateExpiries(
  late: readonly number[] | null,
  from: number,
  horizon: number,
  policy: WindowOf,
): RunList {
  if (late === null) return NO_RUNS;
  const { windowMs, windowKind } = policy;
  const t: number[] = [];
  const n: number[] = [];
  for (let r = from; r < late.length; r += 2) {
    const e = expiryOf(late[r], windowMs, windowKind);
    if (e >= horizon) {
      t.push(e);
      n.push(Math.abs(late[r + 1]));
    }
  }
  // in push order: with a clock that went back, not ascending
  return merged({ t, n });
}
