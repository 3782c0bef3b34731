// One sync entry applied to its key's record: push the admits, release and grant, read the window.
// The path every sync takes (and the simulator's hot one), apart from the seq checks around it.
import type { Policy } from '../../config.js';
import { expiryOf } from '../../window/expiry.js';
import { expiryRunsBefore } from '../../window/expiry-runs.js';
import { NO_EXPIRIES, type TimeLog } from '../../window/time-log.js';
import type { SyncEntry, SyncReply, SyncRequest } from '../contract.js';
import { type KeyRecord, oldestOf, partSlots, syncGrantTag } from './key-record.js';

/**
 * Applies entry `e` of `req` to `rec` (the key's record, made by the caller, who settles it after),
 * writing the reply into `out`. A `replay` pushes nothing again; `perKey` records the seq on the key
 * (sync()); syncKey keeps it per gateway. `retryAfter` false: a read's Retry-After fields (oldestExpiry,
 * belowLimitAt, pastHorizonAt) are left undefined, for a caller whose key reads none of them (the
 * replay's synced keys: a boxed double and up to two arrays per read, for nothing).
 */
export function syncEntry(
  rec: KeyRecord,
  req: SyncRequest,
  e: SyncEntry,
  policy: Policy,
  now: number,
  replay: boolean,
  out: SyncReply,
  perKey: boolean,
  retryAfter = true,
): SyncReply {
  const gw = req.gatewayId;
  const others = rec.prune(now, policy, gw);
  const log = rec.log;
  const { windowMs, windowKind } = policy;
  if (!replay) {
    // pushes are ascending; those already aged out are dropped, the rest merged in one pass. A
    // gateway whose clock went back may push out of order: sorted here, or the log would be out of
    // order and the sweep would loop on a deadline already past (regression:
    // test/regressions/memory-store-unsorted-push-hangs.live.test.ts). As runs (SyncEntry.counts): a
    // pushed run is one slot of the log, whatever its count
    let admits = e.admits;
    let counts = e.counts;
    if (!ascending(admits)) ({ admits, counts } = sortedRuns(admits, counts));
    let first = 0;
    while (first < admits.length && expiryOf(admits[first], windowMs, windowKind) <= now) first++;
    log.insertAll(admits, first, counts);
    // as sync.lua: the key remembers the seq that pushed to it, while it has anything left
    if (perKey && first < admits.length) rec.setSeq(gw, req.seq);
  }
  const count = log.size;

  // The release hands back the parts of the grant made before this sync was built (asks sent
  // since then keep theirs: the gateway may be spending them). A retry of a sync that landed finds
  // its own part (only this sync makes parts with its tag) and answers with it, so whichever
  // attempt the gateway hears from, it holds what the store counts.
  let granted = 0;
  let grantExpiresAt = now;
  const tag = syncGrantTag(req.seq);
  if (e.release) rec.release(gw, tag);
  if (e.ask > 0) {
    const mine = rec.lease(gw);
    const own = mine === undefined ? 0 : partSlots(mine, tag);
    if (own > 0) {
      // a lapsed grant (still counted) is no longer the gateway's to spend
      if (mine!.expiresAt > now) {
        granted = own;
        grantExpiresAt = mine!.expiresAt;
      }
    } else {
      const held = mine === undefined ? 0 : mine.slots;
      granted = Math.max(0, Math.min(e.ask, policy.limit - count - others - held));
      if (granted > 0) grantExpiresAt = rec.grant(gw, tag, granted, now + req.leaseTtlMs, policy).expiresAt;
    }
  }
  if (!e.release && !e.read) out.oldestExpiry = undefined;
  if (e.release) {
    rec.dropEmpty(gw);
    // what a lease gateway holding no slot waits for (SyncReply.oldestExpiry, free)
    out.oldestExpiry = oldestOf(log, policy);
    out.free = Math.max(0, policy.limit - count - rec.outstanding());
  }

  let horizon = now;
  // as runs, equal instants joined (as sync.lua lists them): a reply's size follows requests
  if (e.read) {
    horizon = now + req.horizonMs;
    expiryRunsBefore(log, horizon, windowMs, windowKind, out);
    // the shared-counter family's Retry-After: when the oldest admit counted leaves, for a read that
    // lists no expiry (as sync.lua: one that lists some has it first); a release's leaves it as it was
    const told = retryAfter && !e.release;
    if (!e.release)
      out.oldestExpiry = retryAfter && out.expiries.length === 0 ? oldestOf(log, policy) : undefined;
    // and, at the limit or over, when the count falls below L and L − 1 (SyncReply.belowLimitAt):
    // the admits at ranks count − L and count − L + 1 leave then (exact here)
    const r = count - policy.limit;
    if (told && r >= 0) {
      // (L = 1: the count never falls below 0)
      const below1 = r + 1 < count ? expiryOf(log.at(r + 1), windowMs, windowKind) : Number.POSITIVE_INFINITY;
      out.belowLimitAt = [expiryOf(log.at(r), windowMs, windowKind), below1];
    } else out.belowLimitAt = undefined;
    out.pastHorizonAt = told ? pastHorizon(log, count, out, policy) : undefined;
  } else {
    out.belowLimitAt = undefined;
    out.pastHorizonAt = undefined;
    out.expiries = NO_EXPIRIES;
    out.expiryCounts = undefined;
  }
  out.count = count;
  out.horizon = horizon;
  out.granted = granted;
  out.grantExpiresAt = grantExpiresAt;
  return out;
}

/**
 * SyncReply.pastHorizonAt for a read alone: the expiries of the admits at ranks m and m + 1, m the
 * admits its reply lists, when there are admits past them and the count is L − 2 or more
 * (as sync.lua; exact here). Undefined otherwise.
 */
function pastHorizon(
  log: TimeLog,
  count: number,
  listed: { expiries: number[]; expiryCounts?: number[] },
  policy: Policy,
): number[] | undefined {
  if (count + 2 < policy.limit) return undefined;
  const ec = listed.expiryCounts;
  let m = listed.expiries.length;
  if (ec !== undefined) {
    m = 0;
    for (let i = 0; i < ec.length; i++) m += ec[i];
  }
  if (!(count > m)) return undefined;
  const { windowMs, windowKind } = policy;
  const next = m + 1 < count ? expiryOf(log.at(m + 1), windowMs, windowKind) : Number.POSITIVE_INFINITY;
  return [expiryOf(log.at(m), windowMs, windowKind), next];
}

function ascending(a: readonly number[]): boolean {
  for (let i = 1; i < a.length; i++) if (a[i] < a[i - 1]) return false;
  return true;
}

/** Runs put in time order, each time keeping its count. */
function sortedRuns(
  admits: readonly number[],
  counts: readonly number[] | undefined,
): { admits: number[]; counts: number[] | undefined } {
  if (counts === undefined) return { admits: admits.slice().sort((x, y) => x - y), counts };
  const order = admits.map((_, i) => i).sort((x, y) => admits[x] - admits[y]);
  return { admits: order.map((i) => admits[i]), counts: order.map((i) => counts[i]) };
}

/**
 * A reply with every field syncEntry may write, the optional ones undefined: written into, it keeps
 * one shape (adding them as they came made a new hidden class and a properties store per reply).
 */
export function newReply(): SyncReply {
  return {
    count: 0,
    expiries: NO_EXPIRIES,
    expiryCounts: undefined,
    horizon: 0,
    granted: 0,
    grantExpiresAt: 0,
    oldestExpiry: undefined,
    belowLimitAt: undefined,
    pastHorizonAt: undefined,
    free: undefined,
  };
}
