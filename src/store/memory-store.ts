import type { Policy } from '../config.js';
import { MinHeap } from '../util/min-heap.js';
import { expiryOf } from '../window/expiry.js';
import { NO_EXPIRIES, TimeLog } from '../window/time-log.js';
import type {
  AskReply,
  AskRequest,
  Heartbeat,
  HeartbeatReply,
  LogAdmitReply,
  LogAdmitRequest,
  LogVoid,
  Refund,
  ResetKeyReply,
  ResetKeyRequest,
  Store,
  SyncEntry,
  SyncReply,
  SyncRequest,
  SyncResult,
} from './contract.js';
import { LiveSet } from './live-set.js';
import { policyTag } from './policy-tag.js';
import { requireCost } from './require-cost.js';

/**
 * One gateway's outstanding grant on a key. It is made of parts, each tagged with the call that made
 * it (`grantTag`): a sync's release hands back only the parts made before that sync was built, so an
 * ask that lands out of order, or a resent sync, never takes back slots the gateway may still spend.
 * All parts share one lapse: the gateway stops spending at `expiresAt`, but the store keeps the slots
 * counted until `until`, the end of the window an admit made at the lapse would count in: slots spent
 * before the lapse and still waiting in an unsent sync stay counted until they could have aged out.
 */
interface Lease {
  /** The gateway holding it (its key in the leases map): prune walks the values without entry pairs. */
  readonly gw: string;
  /** Sum of the parts' slots. */
  slots: number;
  /** The gateway spends none of it from here on (store time). */
  expiresAt: number;
  /** The store counts it until here: expiryOf(expiresAt). */
  until: number;
  /** (tag, slots) pairs, tags ascending. */
  parts: number[];
}

/** Parts kept per grant; past it the two oldest merge under the newer tag (handed back later, never earlier). */
const MAX_PARTS = 8;

/** The tag of a grant made by sync `seq` of a gateway. */
export function syncGrantTag(seq: number): number {
  return 2 * seq;
}

/** The tag of a grant made by an ask sent after the gateway built sync `seq` (and before `seq + 1`). */
export function askGrantTag(seq: number): number {
  return 2 * seq + 1;
}

/** One key's state in the store: every admitted timestamp still in the window, and outstanding grants. */
class KeyRecord {
  readonly log = new TimeLog();
  leases: Map<string, Lease> | null = null;
  /** Sum of outstanding slots, and a lower bound on the earliest lapse: prune walks the leases only then. */
  private leaseTotal = 0;
  private leaseCheckAt = Number.POSITIVE_INFINITY;
  /** central-log calls whose admits are in the log, oldest first, by gateway and seq (only calls made with an id). */
  calls: { gw: string; seq: number; t: number; cost: number }[] | null = null;
  /**
   * Per gateway: the seq of the last sync that pushed admits here (a resend with it pushes nothing
   * again). The first gateway's inline (most keys are pushed to by one), the others in a map.
   */
  private seqGw: string | null = null;
  private seqN = 0;
  private seqs: Map<string, number> | null = null;
  /** Per gateway: logAdmit calls up to this seq are void until `until` (see voidLogAdmits). */
  voided: Map<string, { upTo: number; until: number }> | null = null;
  /** Per gateway: the highest refund seq it sent for this key (refundAdmits applies each once). */
  refunded: Map<string, number> | null = null;
  /** When the record is next looked at by the sweep; -1 once deleted. */
  sweepAt = 0;
  constructor(
    readonly key: string,
    /** The policy the record was last touched with (one tag, see policyTag): the sweep ages the record by it. */
    public policy: Policy,
    /** The records of this policy's tag, holding this one under `key`. */
    readonly table: Map<string, KeyRecord>,
  ) {}

  seqOf(gw: string): number | undefined {
    if (this.seqGw === gw) return this.seqN;
    return this.seqs === null ? undefined : this.seqs.get(gw);
  }

  setSeq(gw: string, seq: number): void {
    if (this.seqGw === null || this.seqGw === gw) {
      this.seqGw = gw;
      this.seqN = seq;
    } else (this.seqs ??= new Map()).set(gw, seq);
  }

  /** Prunes aged-out admits and lapsed grants; returns the outstanding slots of every gateway but `except`. */
  prune(now: number, policy: Policy, except?: string): number {
    this.log.dropExpired(now, policy.windowMs, policy.windowKind);
    if (this.calls !== null) {
      let i = 0;
      while (i < this.calls.length && expiryOf(this.calls[i].t, policy.windowMs, policy.windowKind) <= now)
        i++;
      if (i === this.calls.length) this.calls = null;
      else if (i > 0) this.calls.splice(0, i);
    }
    if (this.voided !== null) {
      for (const [gw, v] of this.voided) if (v.until <= now) this.voided.delete(gw);
      if (this.voided.size === 0) this.voided = null;
    }
    const leases = this.leases;
    if (leases === null) return 0;
    if (now >= this.leaseCheckAt) {
      let total = 0;
      let check = Number.POSITIVE_INFINITY;
      for (const lease of leases.values()) {
        if (lease.until <= now) leases.delete(lease.gw);
        else {
          total += lease.slots;
          if (lease.until < check) check = lease.until;
        }
      }
      this.leaseTotal = total;
      this.leaseCheckAt = check;
      if (leases.size === 0) {
        this.leases = null;
        return 0;
      }
    }
    if (except === undefined) return this.leaseTotal;
    const mine = leases.get(except);
    return mine === undefined ? this.leaseTotal : this.leaseTotal - mine.slots;
  }

  /**
   * Hands back gw's parts tagged below `below`. A grant left with no part stays in the map, empty,
   * for `grant` to refill in place (a sync releases and grants again on every call); `dropEmpty`
   * removes it if nothing was.
   */
  release(gw: string, below: number): void {
    const lease = this.leases?.get(gw);
    if (lease === undefined) return;
    const parts = lease.parts;
    let freed = 0;
    let i = 0;
    while (i < parts.length && parts[i] < below) {
      freed += parts[i + 1];
      i += 2;
    }
    if (i === 0) return;
    if (i === parts.length) parts.length = 0;
    else parts.splice(0, i);
    lease.slots -= freed;
    this.leaseTotal -= freed;
  }

  /** Removes gw's grant if it holds no part. */
  dropEmpty(gw: string): void {
    const leases = this.leases;
    const lease = leases?.get(gw);
    if (lease === undefined || lease.parts.length > 0) return;
    leases!.delete(gw);
    if (leases!.size === 0) {
      this.leases = null;
      this.leaseTotal = 0;
      this.leaseCheckAt = Number.POSITIVE_INFINITY;
    }
  }

  /**
   * Adds `n` slots under `tag` to gw's grant. Every part then lapses at `lapse`, or later if it was
   * to lapse later already: the gateway learns the lapse from this reply and spends nothing after it.
   */
  grant(gw: string, tag: number, n: number, lapse: number, policy: Policy): Lease {
    let leases = this.leases;
    if (leases === null) leases = this.leases = new Map();
    let lease = leases.get(gw);
    if (lease === undefined) {
      lease = {
        gw,
        slots: 0,
        expiresAt: lapse,
        until: expiryOf(lapse, policy.windowMs, policy.windowKind),
        parts: [],
      };
      leases.set(gw, lease);
    } else if (lease.parts.length === 0 || lapse > lease.expiresAt) {
      lease.expiresAt = lapse;
      lease.until = expiryOf(lapse, policy.windowMs, policy.windowKind);
    }
    const parts = lease.parts;
    let i = parts.length;
    while (i > 0 && parts[i - 2] > tag) i -= 2;
    if (i > 0 && parts[i - 2] === tag) parts[i - 1] += n;
    else parts.splice(i, 0, tag, n);
    if (parts.length > 2 * MAX_PARTS) {
      // the oldest part is handed back with the next one: later, never earlier
      parts[3] += parts[1];
      parts.splice(0, 2);
    }
    lease.slots += n;
    this.leaseTotal += n;
    if (lease.until < this.leaseCheckAt) this.leaseCheckAt = lease.until;
    return lease;
  }

  /** Slots outstanding over every gateway, as of the last prune and the grants and releases since. */
  outstanding(): number {
    return this.leases === null ? 0 : this.leaseTotal;
  }

  lease(gw: string): Lease | undefined {
    return this.leases?.get(gw) ?? undefined;
  }

  /** The last instant anything in this record still matters. */
  deadline(policy: Policy): number {
    let d = Number.NEGATIVE_INFINITY;
    if (this.log.size > 0) d = expiryOf(this.log.last(), policy.windowMs, policy.windowKind);
    if (this.leases !== null) for (const l of this.leases.values()) if (l.until > d) d = l.until;
    if (this.voided !== null) for (const v of this.voided.values()) if (v.until > d) d = v.until;
    return d;
  }

  isEmpty(): boolean {
    return this.log.size === 0 && this.leases === null && this.voided === null;
  }
}

/**
 * The exact in-memory store: every admitted timestamp per key, pruned as it ages out; grants per
 * gateway per key with a TTL. Keys with nothing left are dropped, by a lazy sweep ordered by deadline.
 *
 * Records are kept per policy (a table per policyTag), so the same key string under two policies is
 * two counters, as in RedisStore's key names. The helpers that take no policy (headExpiry,
 * freeSlots, latestExpiry, renewLease: the simulator's, which runs one policy) look in the only
 * table there is, and throw if the store holds several.
 */
export class MemoryStore implements Store {
  /** Per policyTag, the records of its keys. A table stays once made: there are as many as policies configured. */
  private readonly tables = new Map<string, Map<string, KeyRecord>>();
  /** The table last looked up, and the policy object it was looked up by: a gateway passes the same one. */
  private lastPolicy: Policy | null = null;
  private lastTable: Map<string, KeyRecord> | null = null;
  private readonly sweep = new MinHeap<KeyRecord>();
  /** syncKey's seq check: the last seq applied per gateway (sync() checks per key, see there). */
  private readonly lastSeq = new Map<string, { seq: number }>();
  /** Per gateway id, the incarnation that claimed it last (SyncRequest.incarnationOf). */
  private readonly incarnations = new Map<string, string>();
  /** Per policyTag, the gateways that beat (`gateways: 'auto'`). */
  private readonly live = new Map<string, LiveSet>();
  /** The highest seq sync() saw per gateway. */
  private readonly topSeq = new Map<string, number>();
  /** sync()'s replay flags, reused. */
  private replayOf = new Uint8Array(64);
  /** The record last looked up: a gateway syncs one hot key over and over (and the simulator only one). */
  private lastRec: KeyRecord | null = null;

  /** Keys the store holds state for, over every policy (a key under two policies counts twice). */
  get keyCount(): number {
    let n = 0;
    for (const t of this.tables.values()) n += t.size;
    return n;
  }

  /** The records of `policy` (made on first use). */
  private tableOf(policy: Policy): Map<string, KeyRecord> {
    if (policy === this.lastPolicy) return this.lastTable!;
    const tag = policyTag(policy);
    let t = this.tables.get(tag);
    if (t === undefined) this.tables.set(tag, (t = new Map()));
    this.lastPolicy = policy;
    this.lastTable = t;
    return t;
  }

  /** A key's record for the helpers that take no policy: there must be one table at most. */
  private peekOnly(key: string): KeyRecord | undefined {
    const n = this.tables.size;
    if (n === 0) return undefined;
    if (n > 1) {
      throw new Error(
        `MemoryStore holds ${n} policies: this helper needs one (use countOf or outstandingOf)`,
      );
    }
    // with one table, the last one looked up is it
    const last = this.lastRec;
    if (last !== null && last.key === key && last.sweepAt !== -1) return last;
    return this.lastTable!.get(key);
  }

  /** See `Heartbeat`: the live gateways of the beat's policy. */
  heartbeat(beat: Heartbeat, now: number): HeartbeatReply {
    const tag = policyTag(beat.policy);
    let set = this.live.get(tag);
    if (set === undefined) this.live.set(tag, (set = new LiveSet()));
    return { live: set.beat(beat, now), now };
  }

  logAdmit(req: LogAdmitRequest, now: number): LogAdmitReply {
    const { key, policy, cost, call } = req;
    requireCost(cost);
    // a cost above L can never be admitted: refused at once, adding no record and no entry
    if (cost > policy.limit) return this.refuseOverLimit(key, policy, now);
    this.sweepDue(now);
    const rec = this.record(key, policy);
    const outstanding = rec.prune(now, policy);
    const log = rec.log;
    const v = call === undefined ? undefined : rec.voided?.get(call.gatewayId);
    const isVoid = v !== undefined && call!.seq <= v.upTo;
    const allowed = !isVoid && log.size + outstanding + cost <= policy.limit;
    // a call's admits go in at once: one slot of `cost` admits, not one per unit of cost
    if (allowed) {
      if (cost === 1) log.insert(now);
      else log.insertMany(now, cost);
    }
    if (allowed && call !== undefined) {
      rec.calls ??= [];
      rec.calls.push({ gw: call.gatewayId, seq: call.seq, t: now, cost });
    }
    const count = log.size;
    const oldestExpiry =
      count === 0 ? Number.POSITIVE_INFINITY : expiryOf(log.at(0), policy.windowMs, policy.windowKind);
    this.settle(rec, policy, now);
    return { allowed, count, oldestExpiry, now };
  }

  private refuseOverLimit(key: string, policy: Policy, now: number): LogAdmitReply {
    const rec = this.peek(key, policy);
    if (rec === undefined) return { allowed: false, count: 0, oldestExpiry: Number.POSITIVE_INFINITY, now };
    rec.prune(now, policy); // drops only what no longer counts
    const count = rec.log.size;
    const oldestExpiry =
      count === 0 ? Number.POSITIVE_INFINITY : expiryOf(rec.log.at(0), policy.windowMs, policy.windowKind);
    return { allowed: false, count, oldestExpiry, now };
  }

  voidLogAdmits(gatewayId: string, policy: Policy, voids: LogVoid[], now: number): void {
    this.sweepDue(now);
    for (const v of voids) {
      const rec = this.record(v.key, policy);
      rec.prune(now, policy);
      const i = rec.calls?.findIndex((c) => c.gw === gatewayId && c.seq === v.seq) ?? -1;
      if (i >= 0) {
        const c = rec.calls![i];
        rec.log.removeMany(c.t, c.cost);
        rec.calls!.splice(i, 1);
      }
      // a call still on its way is refused when it lands, for a window from now
      rec.voided ??= new Map();
      const old = rec.voided.get(gatewayId);
      rec.voided.set(gatewayId, { upTo: Math.max(old?.upTo ?? v.seq, v.seq), until: now + policy.windowMs });
      this.settle(rec, policy, now);
    }
  }

  refundAdmits(gatewayId: string, policy: Policy, refunds: Refund[], now: number): number {
    this.sweepDue(now);
    let removed = 0;
    for (const r of refunds) {
      requireCost(r.cost);
      const rec = this.peek(r.key, policy);
      // no record: nothing of the key counts, so nothing to take back (and none made for it)
      if (rec === undefined) continue;
      rec.prune(now, policy);
      const top = rec.refunded?.get(gatewayId);
      if (top !== undefined && r.seq <= top) continue;
      (rec.refunded ??= new Map()).set(gatewayId, r.seq);
      // pruned: an admit at r.at is in the log only while it still counts
      removed += rec.log.removeMany(r.at, r.cost);
      this.settle(rec, policy, now);
    }
    return removed;
  }

  /**
   * Forgets the key's admits at or before `now` (see ResetKeyRequest); grants, seqs and voids stay.
   * Its work follows the admits the log holds (a pruned log holds only what counts).
   */
  resetKey(req: ResetKeyRequest, now: number): ResetKeyReply {
    this.sweepDue(now);
    const rec = this.peek(req.key, req.policy);
    // no record: nothing of the key counts (and none is made for it)
    if (rec === undefined) return { removed: 0, now };
    rec.prune(now, req.policy);
    const removed = rec.log.dropThrough(now);
    // central-log calls whose admits went with them: a void of one finds nothing to take back
    if (rec.calls !== null) {
      rec.calls = rec.calls.filter((c) => c.t > now);
      if (rec.calls.length === 0) rec.calls = null;
    }
    this.settle(rec, req.policy, now);
    return { removed, now };
  }

  /**
   * Seqs are checked per key, as RedisStore does: a key whose last push came from this seq is a replay
   * (pushes nothing again), one a newer seq pushed to refuses the whole request (RangeError, nothing
   * applied), any other takes the pushes. So a sync may arrive in parts with one seq, and a failed
   * part may be resent after a newer sync's parts landed (none of its keys are in them).
   */
  sync(req: SyncRequest, now: number): SyncResult {
    const { entries, gatewayId } = req;
    const n = entries.length;
    if (this.replayOf.length < n) this.replayOf = new Uint8Array(Math.max(n, 2 * this.replayOf.length));
    const replay = this.replayOf;
    // a seq above every one this gateway sent can be neither a replay nor stale on any key: the
    // common case skips the check; a resend, or an older part, has every key checked before anything
    // is written (a key named twice sees the state before the call)
    const top = this.topSeq.get(gatewayId);
    const check = top !== undefined && req.seq <= top;
    if (!check) {
      this.topSeq.set(gatewayId, req.seq);
      replay.fill(0, 0, n);
    } else
      for (let i = 0; i < n; i++) {
        const applied = this.peek(entries[i].key, req.policy)?.seqOf(gatewayId);
        if (applied !== undefined && req.seq < applied) {
          throw new RangeError(
            `gateway ${gatewayId}: sync seq ${req.seq} is older than ${applied}, applied already to key ${entries[i].key}`,
          );
        }
        replay[i] = applied === req.seq ? 1 : 0;
      }
    this.sweepDue(now);
    const replies = new Array<SyncReply>(n);
    for (let i = 0; i < n; i++) {
      replies[i] = this.syncOne(req, entries[i], req.policy, now, replay[i] === 1, newReply(), true);
    }
    const result: SyncResult = { now, replies };
    if (req.incarnationOf !== undefined) {
      result.previousIncarnation = this.incarnations.get(req.incarnationOf) ?? null;
      this.incarnations.set(req.incarnationOf, gatewayId);
    }
    return result;
  }

  /**
   * A sync of one key (the simulator's single-key fast path): the same as sync() with one entry. The
   * reply is written into `out` when given (a caller that uses each reply at once reuses one object).
   */
  syncKey(req: SyncRequest, entry: SyncEntry, now: number, out: SyncReply = newReply()): SyncReply {
    return this.syncOne(req, entry, req.policy, now, this.begin(req, now), out, false);
  }

  /**
   * syncKey's seq check, per gateway: the simulator's gateways each sync one key, whole, in order, so
   * per gateway is per key there, at one map lookup. Returns true for a retry of the last applied sync.
   */
  private begin(req: SyncRequest, now: number): boolean {
    const last = this.lastSeq.get(req.gatewayId);
    if (last !== undefined && req.seq < last.seq) {
      throw new RangeError(`gateway ${req.gatewayId}: sync seq ${req.seq} is older than ${last.seq}`);
    }
    // A retry of a sync that landed (same seq) pushes nothing again; its release, ask and read
    // set state rather than add to it, so they are safe to apply twice.
    const replay = last !== undefined && last.seq === req.seq;
    this.sweepDue(now);
    if (last === undefined) this.lastSeq.set(req.gatewayId, { seq: req.seq });
    else last.seq = req.seq;
    return replay;
  }

  ask(req: AskRequest, now: number): AskReply {
    const { gatewayId, key, policy, leaseTtlMs, ask, seq = 0 } = req;
    this.sweepDue(now);
    const rec = this.record(key, policy);
    const others = rec.prune(now, policy, gatewayId);
    const mine = rec.lease(gatewayId);
    const held = mine === undefined ? 0 : mine.slots;
    const granted = Math.max(0, Math.min(ask, policy.limit - rec.log.size - others - held));
    let grantExpiresAt = mine === undefined ? now : mine.expiresAt;
    if (granted > 0) {
      grantExpiresAt = rec.grant(gatewayId, askGrantTag(seq), granted, now + leaseTtlMs, policy).expiresAt;
    }
    const count = rec.log.size;
    const oldestExpiry = oldestOf(rec.log, policy);
    const free = Math.max(0, policy.limit - count - rec.outstanding());
    this.settle(rec, policy, now);
    return { granted, grantExpiresAt, now, count, oldestExpiry, free };
  }

  /** Admitted count in the window for a key (tests and the simulator's checks). */
  countOf(key: string, policy: Policy, now: number): number {
    const rec = this.peek(key, policy);
    if (rec === undefined) return 0;
    rec.log.dropExpired(now, policy.windowMs, policy.windowKind);
    return rec.log.size;
  }

  /** When the key's newest admit stops counting (-Infinity if none): until then its count is not 0. */
  latestExpiry(key: string): number {
    const rec = this.peekOnly(key);
    if (rec === undefined || rec.log.size === 0) return Number.NEGATIVE_INFINITY;
    return expiryOf(rec.log.last(), rec.policy.windowMs, rec.policy.windowKind);
  }

  /** Slots neither admitted in the window nor granted: what a sync could grant beyond what a gateway holds. */
  freeSlots(key: string, now: number): number {
    const rec = this.peekOnly(key);
    if (rec === undefined) return Number.POSITIVE_INFINITY;
    const outstanding = rec.prune(now, rec.policy);
    return rec.policy.limit - rec.log.size - outstanding;
  }

  /** When the key's oldest admit stops counting (Infinity if none): until then its count cannot fall. */
  headExpiry(key: string): number {
    const rec = this.peekOnly(key);
    if (rec === undefined || rec.log.size === 0) return Number.POSITIVE_INFINITY;
    return expiryOf(rec.log.at(0), rec.policy.windowMs, rec.policy.windowKind);
  }

  /** Extends a gateway's outstanding grant to lapse at `expiresAt` (the simulator's skipped idle syncs). */
  renewLease(key: string, gatewayId: string, expiresAt: number): void {
    const rec = this.peekOnly(key);
    const lease = rec?.leases?.get(gatewayId);
    if (lease !== undefined && expiresAt > lease.expiresAt) {
      lease.expiresAt = expiresAt;
      lease.until = expiryOf(expiresAt, rec!.policy.windowMs, rec!.policy.windowKind);
    }
  }

  /** Slots granted and not yet handed back, over all gateways. */
  outstandingOf(key: string, policy: Policy, now: number): number {
    const rec = this.peek(key, policy);
    return rec === undefined ? 0 : rec.prune(now, policy);
  }

  private syncOne(
    req: SyncRequest,
    e: SyncEntry,
    policy: Policy,
    now: number,
    replay: boolean,
    out: SyncReply,
    /** Record the seq on the key (sync()); syncKey keeps it per gateway. */
    perKey: boolean,
  ): SyncReply {
    const rec = this.record(e.key, policy);
    const gw = req.gatewayId;
    const others = rec.prune(now, policy, gw);
    const log = rec.log;
    const { windowMs, windowKind } = policy;
    if (!replay) {
      // pushes are ascending; those already aged out are dropped, the rest merged in one pass. A
      // gateway whose clock went back may push out of order: sorted here, or the log would be out of
      // order and the sweep would loop on a deadline already past (regression:
      // test/regressions/memory-store-unsorted-push-hangs.test.ts). As runs (SyncEntry.counts): a
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
      log.expiryRunsBefore(horizon, windowMs, windowKind, out);
      // the shared-counter family's Retry-After: when the oldest admit counted leaves, for a read that
      // lists no expiry (as sync.lua: one that lists some has it first)
      if (!e.release) out.oldestExpiry = out.expiries.length === 0 ? oldestOf(log, policy) : undefined;
      // and, at the limit or over, when the count falls below L and L − 1 (SyncReply.belowLimitAt):
      // the admits at ranks count − L and count − L + 1 leave then (exact here)
      const r = count - policy.limit;
      if (!e.release && r >= 0) {
        // (L = 1: the count never falls below 0)
        const below1 =
          r + 1 < count ? expiryOf(log.at(r + 1), windowMs, windowKind) : Number.POSITIVE_INFINITY;
        out.belowLimitAt = [expiryOf(log.at(r), windowMs, windowKind), below1];
      } else out.belowLimitAt = undefined;
      out.pastHorizonAt = e.release ? undefined : pastHorizon(log, count, out, policy);
    } else {
      out.belowLimitAt = undefined;
      out.pastHorizonAt = undefined;
      out.expiries = NO_EXPIRIES;
      out.expiryCounts = undefined;
    }
    this.settle(rec, policy, now);
    out.count = count;
    out.horizon = horizon;
    out.granted = granted;
    out.grantExpiresAt = grantExpiresAt;
    return out;
  }

  /** The key's record under `policy`, if it has one (without making one). A deleted record (sweepAt −1) is never handed out. */
  private peek(key: string, policy: Policy): KeyRecord | undefined {
    const table = this.tableOf(policy);
    const last = this.lastRec;
    if (last !== null && last.key === key && last.table === table && last.sweepAt !== -1) return last;
    return table.get(key);
  }

  private record(key: string, policy: Policy): KeyRecord {
    let rec = this.peek(key, policy);
    if (rec === undefined) {
      const table = this.lastTable!; // peek looked it up
      rec = new KeyRecord(key, policy, table);
      table.set(key, rec);
      rec.sweepAt = Number.NaN; // not scheduled yet
    } else rec.policy = policy;
    this.lastRec = rec;
    return rec;
  }

  /** Drops an empty record at once, or makes sure the sweep will look at it when it may have emptied. */
  private settle(rec: KeyRecord, policy: Policy, _now: number): void {
    if (rec.isEmpty()) {
      rec.table.delete(rec.key);
      rec.sweepAt = -1;
      return;
    }
    if (Number.isNaN(rec.sweepAt)) {
      rec.sweepAt = rec.deadline(policy);
      this.sweep.push(rec.sweepAt, rec);
    }
  }

  private sweepDue(now: number): void {
    const heap = this.sweep;
    while (heap.peekTime() <= now) {
      const rec = heap.pop()!;
      if (rec.sweepAt === -1 || rec.table.get(rec.key) !== rec) continue;
      const policy = rec.policy;
      rec.prune(now, policy);
      if (rec.isEmpty()) {
        rec.table.delete(rec.key);
        rec.sweepAt = -1;
      } else {
        rec.sweepAt = rec.deadline(policy);
        heap.push(rec.sweepAt, rec);
      }
    }
  }
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

/** When the log's oldest admit leaves the window (Infinity if none). */
function oldestOf(log: TimeLog, policy: Policy): number {
  return log.size === 0 ? Number.POSITIVE_INFINITY : expiryOf(log.at(0), policy.windowMs, policy.windowKind);
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

/** Slots of the part tagged `tag` (0 if none). */
function partSlots(lease: Lease, tag: number): number {
  const parts = lease.parts;
  for (let i = 0; i < parts.length; i += 2) if (parts[i] === tag) return parts[i + 1];
  return 0;
}

function newReply(): SyncReply {
  return {
    count: 0,
    expiries: NO_EXPIRIES,
    expiryCounts: undefined,
    horizon: 0,
    granted: 0,
    grantExpiresAt: 0,
  };
}
