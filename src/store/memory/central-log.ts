// The central-log calls on the memory store: admit a call in the log, void a call in flight, take
// back refunded admits, reset a key. Grants play no part here beyond counting against the limit.
// MemoryStore extends this layer of its records (as it extends KeyRecords, see there): the calls are
// its own methods, with no pass-through between.
import type { Policy } from '../../config.js';
import { expiryOf } from '../../window/expiry.js';
import type {
  LogAdmitReply,
  LogAdmitRequest,
  LogVoid,
  Refund,
  ResetKeyReply,
  ResetKeyRequest,
  ResetScanReply,
  ResetScanRequest,
} from '../contract.js';
import { requireCost } from '../require-cost.js';
import { KeyRecords } from './key-records.js';

/** KeyRecords with the central-log calls on them (MemoryStore's, see Store). */
export class CentralLogRecords extends KeyRecords {
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
      count === 0 ? Number.POSITIVE_INFINITY : expiryOf(log.first(), policy.windowMs, policy.windowKind);
    this.settle(rec, policy, now);
    return { allowed, count, oldestExpiry, now };
  }

  private refuseOverLimit(key: string, policy: Policy, now: number): LogAdmitReply {
    const rec = this.peek(key, policy);
    if (rec === undefined) return { allowed: false, count: 0, oldestExpiry: Number.POSITIVE_INFINITY, now };
    rec.prune(now, policy); // drops only what no longer counts
    const count = rec.log.size;
    const oldestExpiry =
      count === 0 ? Number.POSITIVE_INFINITY : expiryOf(rec.log.first(), policy.windowMs, policy.windowKind);
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
    return { removed: this.resetThrough(req.key, req.policy, now, now), now };
  }

  /**
   * One chunk of a policy's reset (see ResetScanRequest): the next `count` keys in key order, each
   * reset through `at` (never past now). The cursor is the last key looked at.
   */
  resetScan(req: ResetScanRequest, now: number): ResetScanReply {
    this.sweepDue(now);
    const at = Math.min(req.at, now);
    const count = Math.max(1, Math.floor(req.count));
    const keys = this.keysAfter(req.policy, req.cursor, count);
    let removed = 0;
    for (const k of keys) removed += this.resetThrough(k, req.policy, at, now);
    const cursor = keys.length < count ? null : keys[keys.length - 1];
    return { cursor, keys: keys.length, removed, now };
  }

  /** Forgets the key's admits at or before `at` that count at `now`; returns how many. */
  protected resetThrough(key: string, policy: Policy, at: number, now: number): number {
    const rec = this.peek(key, policy);
    // no record: nothing of the key counts (and none is made for it)
    if (rec === undefined) return 0;
    rec.prune(now, policy);
    const removed = rec.log.dropThrough(at);
    // central-log calls whose admits went with them: a void of one finds nothing to take back
    if (rec.calls !== null) {
      rec.calls = rec.calls.filter((c) => c.t > at);
      if (rec.calls.length === 0) rec.calls = null;
    }
    this.settle(rec, policy, now);
    return removed;
  }
}
