import type { Policy } from '../config.js';
import { expiryOf } from '../window/expiry.js';
import type {
  AskReply,
  AskRequest,
  Heartbeat,
  HeartbeatReply,
  Store,
  SyncEntry,
  SyncReply,
  SyncRequest,
  SyncResult,
} from './contract.js';
import type { InProcessSync } from './in-process.js';
import { LiveSet } from './live-set.js';
import { CentralLogRecords } from './memory/central-log.js';
import { askGrantTag, oldestOf } from './memory/key-record.js';
import { newReply, syncEntry } from './memory/sync-entry.js';
import { policyTag } from './policy-tag.js';

/**
 * The exact in-memory store: every admitted timestamp per key, pruned as it ages out; grants per
 * gateway per key with a TTL. Keys with nothing left are dropped, by a lazy sweep ordered by deadline.
 *
 * Records are kept per policy (a table per policyTag), so the same key string under two policies is
 * two counters, as in RedisStore's key names. The helpers that take no policy (headExpiry,
 * freeSlots, latestExpiry, renewLease: the simulator's, which runs one policy) look in the only
 * table there is, and throw if the store holds several.
 */
export class MemoryStore extends CentralLogRecords implements Store, InProcessSync {
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

  /** See `Heartbeat`: the live gateways of the beat's policy. */
  heartbeat(beat: Heartbeat, now: number): HeartbeatReply {
    const tag = policyTag(beat.policy);
    let set = this.live.get(tag);
    if (set === undefined) this.live.set(tag, (set = new LiveSet()));
    return { live: set.beat(beat, now), now };
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
      // each entry's record made, the entry applied, the record settled (as in syncKey)
      const rec = this.record(entries[i].key, req.policy);
      replies[i] = syncEntry(rec, req, entries[i], req.policy, now, replay[i] === 1, newReply(), true);
      this.settle(rec, req.policy, now);
    }
    const result: SyncResult = { now, replies };
    if (req.incarnationOf !== undefined) {
      result.previousIncarnation = this.incarnations.get(req.incarnationOf) ?? null;
      this.incarnations.set(req.incarnationOf, gatewayId);
    }
    return result;
  }

  /** InProcessSync: sync()'s seq check and sweep, for entries that follow one by one (syncNext). */
  openSync(req: SyncRequest, now: number): boolean {
    // a subclass that overrides sync() (to watch or change it) sees every sync: it gets them all
    if (this.sync !== MemoryStore.prototype.sync || req.incarnationOf !== undefined) return false;
    const top = this.topSeq.get(req.gatewayId);
    if (top !== undefined && req.seq <= top) return false;
    this.topSeq.set(req.gatewayId, req.seq);
    this.sweepDue(now);
    return true;
  }

  /**
   * InProcessSync: one entry of the sync openSync started, applied as sync() applies it; `retryAfter`
   * false: without a read's Retry-After fields (syncEntry).
   */
  syncNext(req: SyncRequest, entry: SyncEntry, now: number, out: SyncReply, retryAfter = true): SyncReply {
    const rec = this.record(entry.key, req.policy);
    // the one field syncEntry leaves as it was when it does not write it (a fresh reply's: undefined)
    out.free = undefined;
    syncEntry(rec, req, entry, req.policy, now, false, out, true, retryAfter);
    this.settle(rec, req.policy, now);
    return out;
  }

  /**
   * A sync of one key (the simulator's single-key fast path): the same as sync() with one entry. The
   * reply is written into `out` when given (a caller that uses each reply at once reuses one object).
   */
  syncKey(req: SyncRequest, entry: SyncEntry, now: number, out: SyncReply = newReply()): SyncReply {
    const replay = this.begin(req, now);
    const rec = this.record(entry.key, req.policy);
    syncEntry(rec, req, entry, req.policy, now, replay, out, false);
    this.settle(rec, req.policy, now);
    return out;
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
    this.sweepDue(now);
    return this.askKey(req, now);
  }

  /**
   * ask() without the store's sweep: for a caller that sweeps itself (the replay's per-key syncs,
   * whose calls come in time order per key only, so a sweep up to this call's instant could prune
   * another key's record ahead of calls still to come before it). The reply is written into `out`
   * when given (the replay uses each at once and reuses one: a fresh one per ask was its garbage).
   */
  askKey(req: AskRequest, now: number, out?: AskReply): AskReply {
    const { gatewayId, key, policy, leaseTtlMs, ask, seq = 0 } = req;
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
    if (out === undefined) return { granted, grantExpiresAt, now, count, oldestExpiry, free };
    out.granted = granted;
    out.grantExpiresAt = grantExpiresAt;
    out.now = now;
    out.count = count;
    out.oldestExpiry = oldestExpiry;
    out.free = free;
    return out;
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

  /**
   * latestExpiry written into `out.from`: a number returned from a call the optimiser does not inline
   * is boxed on every return, one written into a number field is not (the replay's lazy skips asked
   * for one on most syncs: ~20 B a line of garbage).
   */
  latestExpiryInto(key: string, out: { from: number }): void {
    const rec = this.peekOnly(key);
    out.from =
      rec === undefined || rec.log.size === 0
        ? Number.NEGATIVE_INFINITY
        : expiryOf(rec.log.last(), rec.policy.windowMs, rec.policy.windowKind);
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
    return expiryOf(rec.log.first(), rec.policy.windowMs, rec.policy.windowKind);
  }

  /** Extends a gateway's outstanding grant to lapse at `expiresAt` (the simulator's skipped idle syncs). */
  renewLease(key: string, gatewayId: string, expiresAt: number): void {
    const rec = this.peekOnly(key);
    const lease = rec?.lease(gatewayId);
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
}
