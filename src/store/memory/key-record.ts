// One key's record in the memory store: its admit log, the gateways' grants in tagged parts, and the
// per-gateway seq, void and refund marks. Kept apart from the store so the lease bookkeeping reads alone.
import type { Policy } from '../../config.js';
import { expiryOf } from '../../window/expiry.js';
import { TimeLog } from '../../window/time-log.js';
import type { RecordTable } from './record-table.js';

/**
 * One gateway's outstanding grant on a key. It is made of parts, each tagged with the call that made
 * it (`grantTag`): a sync's release hands back only the parts made before that sync was built, so an
 * ask that lands out of order, or a resent sync, never takes back slots the gateway may still spend.
 * All parts share one lapse: the gateway stops spending at `expiresAt`, but the store keeps the slots
 * counted until `until`, the end of the window an admit made at the lapse would count in: slots spent
 * before the lapse and still waiting in an unsent sync stay counted until they could have aged out.
 */
export interface Lease {
  /** The gateway holding it (KeyRecord.leases is found by it). */
  gw: string;
  /** Sum of the parts' slots. */
  slots: number;
  /** The gateway spends none of it from here on (store time). */
  expiresAt: number;
  /** The store counts it until here: expiryOf(expiresAt). */
  until: number;
  /**
   * (tag, slots) pairs, tags ascending, in parts[0 .. len): the array never shrinks, so handing every
   * part back and granting again (a lease gateway's every sync) writes in place, where emptying it let
   * go of its backing store and the next push made a new one (~150 bytes a sync).
   */
  parts: number[];
  len: number;
}

/** The largest admit log a renewed record keeps: a busy key's, grown to its busiest window, is let go. */
const KEPT_LOG = 64;

/** Parts kept per grant; past it the two oldest merge under the newer tag (handed back later, never earlier). */
const MAX_PARTS = 8;

/**
 * Grants gone from their record (handed back whole, or lapsed), kept for the next new grant to take
 * up, with their parts array: at K > 1 a key's grants come and go with its gateways, and a grant, its
 * parts and their growth were most of a leases-ask replay's garbage. A grant is only ever used within
 * the call that looks it up, so one gone from its record is no one's.
 */
const SPARE_LEASES: Lease[] = [];
const KEPT_LEASES = 256;

/** A grant gone from its map, kept for `newLease`. */
function keepLease(lease: Lease): void {
  if (SPARE_LEASES.length < KEPT_LEASES) SPARE_LEASES.push(lease);
}

/** A new grant of gw with no part, lapsing at `lapse` (counted until `until`): a kept one, or made. */
function newLease(gw: string, lapse: number, until: number): Lease {
  const l = SPARE_LEASES.pop();
  // parts with room for one pair: a push onto an empty array made room for 19 numbers
  if (l === undefined) return { gw, slots: 0, expiresAt: lapse, until, parts: [0, 0], len: 0 };
  // every field but the parts' backing store, which `len` 0 leaves unread
  l.gw = gw;
  l.slots = 0;
  l.expiresAt = lapse;
  l.until = until;
  l.len = 0;
  return l;
}

/** The tag of a grant made by sync `seq` of a gateway. */
export function syncGrantTag(seq: number): number {
  return 2 * seq;
}

/** The tag of a grant made by an ask sent after the gateway built sync `seq` (and before `seq + 1`). */
export function askGrantTag(seq: number): number {
  return 2 * seq + 1;
}

/** One key's state in the store: every admitted timestamp still in the window, and outstanding grants. */
export class KeyRecord {
  readonly log = new TimeLog();
  /**
   * The outstanding grants, one per gateway holding one, in no order (null: none). An array scanned
   * by gateway, not a Map: a key has a grant per gateway holding it at most, and a Map's table was
   * remade on deletes (its shrink) and on sets after them, at every grant of another gateway.
   */
  leases: Lease[] | null = null;
  /**
   * The array the last grant left, for the next grant to take up again: a lease gateway's every sync
   * drops its grant and makes it anew, and a new map, grant and parts array each time were a third of
   * a leases replay's garbage.
   */
  private spare: Lease[] | null = null;
  /** Sum of outstanding slots, and a lower bound on the earliest lapse: prune walks the leases only then. */
  private leaseTotal = 0;
  private leaseCheckAt = Number.POSITIVE_INFINITY;
  /** central-log calls whose admits are in the log, oldest first, by gateway and seq (only calls made with an id). */
  calls: { gw: string; seq: number; t: number; cost: number }[] | null = null;
  /**
   * Per gateway: the seq of the last sync that pushed admits here (a resend with it pushes nothing
   * again). The first two gateways' inline (most keys are pushed to by one, and at K > 1 by two far
   * more often than by more: a map for the second was made for a record in five on a replay of quiet
   * keys at K = 4), the others in a map.
   */
  private seqGw: string | null = null;
  private seqN = 0;
  private seqGw2: string | null = null;
  private seqN2 = 0;
  private seqs: Map<string, number> | null = null;
  /** Per gateway: logAdmit calls up to this seq are void until `until` (see voidLogAdmits). */
  voided: Map<string, { upTo: number; until: number }> | null = null;
  /** Per gateway: the highest refund seq it sent for this key (refundAdmits applies each once). */
  refunded: Map<string, number> | null = null;
  /** When the record is next looked at by the sweep; -1 once deleted. */
  sweepAt = 0;
  /**
   * Whether a call may have changed the record since `sweepAt` was set to its deadline (KeyRecords
   * sets it on handing the record out, clears it on scheduling): an unchanged record is empty by then.
   */
  changed = true;
  /** The key's hash in its table (RecordTable sets it). */
  hash = 0;
  constructor(
    /** The key (a pooled record is renewed for another: `renew`). */
    public key: string,
    /** The policy the record was last touched with (one tag, see policyTag): the sweep ages the record by it. */
    public policy: Policy,
    /** The records of this policy's tag, holding this one under `key`. */
    public table: RecordTable<KeyRecord>,
  ) {}

  /**
   * A deleted record made a new key's (KeyRecords' pool): every field as the constructor leaves it,
   * so nothing of its last key's admits, grants or seqs carries over (test/store/key-record-renew.test.ts
   * compares a renewed record with a new one, field by field).
   */
  renew(key: string, policy: Policy, table: RecordTable<KeyRecord>): void {
    this.key = key;
    this.policy = policy;
    this.table = table;
    this.log.reset(KEPT_LOG);
    this.leases = null;
    this.spare = null;
    this.leaseTotal = 0;
    this.leaseCheckAt = Number.POSITIVE_INFINITY;
    this.calls = null;
    this.seqGw = null;
    this.seqN = 0;
    this.seqGw2 = null;
    this.seqN2 = 0;
    this.seqs = null;
    this.voided = null;
    this.refunded = null;
    this.sweepAt = 0;
    this.changed = true;
    this.hash = 0;
  }

  seqOf(gw: string): number | undefined {
    if (this.seqGw === gw) return this.seqN;
    if (this.seqGw2 === gw) return this.seqN2;
    return this.seqs === null ? undefined : this.seqs.get(gw);
  }

  setSeq(gw: string, seq: number): void {
    if (this.seqGw === null || this.seqGw === gw) {
      this.seqGw = gw;
      this.seqN = seq;
    } else if (this.seqGw2 === null || this.seqGw2 === gw) {
      this.seqGw2 = gw;
      this.seqN2 = seq;
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
      // from the end: a lapsed grant's place takes the last one, already walked
      for (let i = leases.length - 1; i >= 0; i--) {
        const lease = leases[i];
        if (lease.until <= now) {
          const last = leases.pop()!;
          if (i < leases.length) leases[i] = last;
          keepLease(lease);
        } else {
          total += lease.slots;
          if (lease.until < check) check = lease.until;
        }
      }
      this.leaseTotal = total;
      this.leaseCheckAt = check;
      if (leases.length === 0) {
        this.spare = leases;
        this.leases = null;
        return 0;
      }
    }
    if (except === undefined) return this.leaseTotal;
    const mine = find(leases, except);
    return mine === undefined ? this.leaseTotal : this.leaseTotal - mine.slots;
  }

  /**
   * Hands back gw's parts tagged below `below`. A grant left with no part stays, empty,
   * for `grant` to refill in place (a sync releases and grants again on every call); `dropEmpty`
   * removes it if nothing was.
   */
  release(gw: string, below: number): void {
    const lease = this.lease(gw);
    if (lease === undefined) return;
    const parts = lease.parts;
    let freed = 0;
    let i = 0;
    const len = lease.len;
    while (i < len && parts[i] < below) {
      freed += parts[i + 1];
      i += 2;
    }
    if (i === 0) return;
    // moved down by a loop: copyWithin is V8's generic builtin, slow on a few elements
    for (let j = i; j < len; j++) parts[j - i] = parts[j];
    lease.len = len - i;
    lease.slots -= freed;
    this.leaseTotal -= freed;
  }

  /** Removes gw's grant if it holds no part. */
  dropEmpty(gw: string): void {
    const leases = this.leases;
    if (leases === null) return;
    const lease = find(leases, gw);
    if (lease === undefined || lease.len > 0) return;
    const last = leases.pop()!;
    if (last !== lease) leases[leases.indexOf(lease)] = last;
    keepLease(lease);
    if (leases.length === 0) {
      // the array kept for the next grant
      this.spare = leases;
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
    if (leases === null && this.spare !== null) {
      leases = this.leases = this.spare;
      this.spare = null;
    }
    let lease = leases === null ? undefined : find(leases, gw);
    if (lease === undefined) {
      lease = newLease(gw, lapse, expiryOf(lapse, policy.windowMs, policy.windowKind));
      // a first grant's array sized for it (a push onto an empty one made room for 17)
      if (leases === null) this.leases = [lease];
      else leases.push(lease);
    } else if (lease.len === 0 || lapse > lease.expiresAt) {
      lease.expiresAt = lapse;
      lease.until = expiryOf(lapse, policy.windowMs, policy.windowKind);
    }
    const parts = lease.parts;
    const len = lease.len;
    let i = len;
    while (i > 0 && parts[i - 2] > tag) i -= 2;
    if (i > 0 && parts[i - 2] === tag) parts[i - 1] += n;
    else {
      // room for one more pair, then the pairs from i moved up one (at the end nearly always: tags
      // grow with the seq)
      if (len === parts.length) parts.push(0, 0);
      for (let j = len - 1; j >= i; j--) parts[j + 2] = parts[j];
      parts[i] = tag;
      parts[i + 1] = n;
      lease.len = len + 2;
      if (len + 2 > 2 * MAX_PARTS) {
        // the oldest part is handed back with the next one: later, never earlier
        parts[3] += parts[1];
        for (let j = 2; j < len + 2; j++) parts[j - 2] = parts[j];
        lease.len = len;
      }
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
    return this.leases === null ? undefined : find(this.leases, gw);
  }

  /** The last instant anything in this record still matters. */
  deadline(policy: Policy): number {
    let d = Number.NEGATIVE_INFINITY;
    if (this.log.size > 0) d = expiryOf(this.log.last(), policy.windowMs, policy.windowKind);
    if (this.leases !== null) for (const l of this.leases) if (l.until > d) d = l.until;
    if (this.voided !== null) for (const v of this.voided.values()) if (v.until > d) d = v.until;
    return d;
  }

  isEmpty(): boolean {
    return this.log.size === 0 && this.leases === null && this.voided === null;
  }
}

/** gw's grant among `leases` (undefined: none). */
function find(leases: Lease[], gw: string): Lease | undefined {
  for (let i = 0; i < leases.length; i++) if (leases[i].gw === gw) return leases[i];
  return undefined;
}

/** Slots of the part tagged `tag` (0 if none). */
export function partSlots(lease: Lease, tag: number): number {
  const parts = lease.parts;
  for (let i = 0; i < lease.len; i += 2) if (parts[i] === tag) return parts[i + 1];
  return 0;
}

/** When the log's oldest admit leaves the window (Infinity if none). */
export function oldestOf(log: TimeLog, policy: Policy): number {
  return log.size === 0
    ? Number.POSITIVE_INFINITY
    : expiryOf(log.first(), policy.windowMs, policy.windowKind);
}
