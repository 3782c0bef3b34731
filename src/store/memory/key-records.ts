// The memory store's records by policy, the lookups that hand out the hot record without a map
// lookup, and the lazy sweep that drops records with nothing left: the bookkeeping under every call.
import type { Policy } from '../../config.js';
import { copyState } from '../../util/state-copy.js';
import { policyTag } from '../policy-tag.js';
import { KeyRecord } from './key-record.js';
import { RecordTable } from './record-table.js';
import { SweepQueue } from './sweep-queue.js';

/**
 * The most deleted records kept for new keys. Records are made only when none is idle, so live and
 * idle together stay near the peak of live records; past this many idle the rest are let go.
 */
export const RECORD_POOL = 1 << 17;

/**
 * After a sweep lets records go, the pool keeps no more than the records still live, or this many:
 * a spike of keys leaves no pool of its size behind once the keys have expired (the store's memory
 * follows the keys live, test/gateway/idle-reclaim-million-keys.live.test.ts), while a steady tail of
 * keys coming and going (a replay's quiet keys) still finds one for each new key.
 */
export const RECORD_POOL_FLOOR = 1024;

/**
 * Records per policy tag, and a sweep ordered by the instant each may next have emptied. MemoryStore
 * extends it (through CentralLogRecords) rather than holding one: the simulator's calls reach the records with no field between
 * (held in a field, the quick grid took 5-8 % more CPU).
 */
export class KeyRecords {
  /** Per policyTag, the records of its keys. A table stays once made: there are as many as policies configured. */
  private readonly tables = new Map<string, RecordTable<KeyRecord>>();
  /** The table last looked up, and the policy object it was looked up by: a gateway passes the same one. */
  private lastPolicy: Policy | null = null;
  private lastTable: RecordTable<KeyRecord> | null = null;
  /**
   * Each policy object's table, as `lastPolicy` is (by identity): K gateways each pass their own
   * equal policy, and a replay's per-key syncs switch between them at every call, where building the
   * tag again each time was ~1/16 of the bytes a line allocated (shared-counter, 4 gateways).
   */
  private readonly byPolicy = new WeakMap<Policy, RecordTable<KeyRecord>>();
  private readonly sweep = new SweepQueue<KeyRecord>();
  /**
   * Deleted records, for new keys (`renew`): on a log of quiet keys nearly every call made a record
   * (~200 bytes with its log) that lived a window and was old-generation garbage. A record goes here
   * only when nothing else can reach it: deleted and out of the sweep's schedule (the schedule is its
   * only other holder; `saveRecord`'s saves hold only records in a table while no sweep runs).
   */
  private readonly idle: KeyRecord[] = [];
  /** The record last looked up: a gateway syncs one hot key over and over (and the simulator only one). */
  private lastRec: KeyRecord | null = null;
  /** saveRecord's copies, by record. */
  private readonly copies = new WeakMap<KeyRecord, KeyRecord>();
  /** The reset scan in progress (one at a time): its policy's table, its keys sorted, how many handed out. */
  private scan: { table: RecordTable<KeyRecord>; keys: string[]; next: number } | null = null;

  /** Keys the store holds state for, over every policy (a key under two policies counts twice). */
  get keyCount(): number {
    let n = 0;
    for (const t of this.tables.values()) n += t.size;
    return n;
  }

  /** The records of `policy` (made on first use). */
  private tableOf(policy: Policy): RecordTable<KeyRecord> {
    if (policy === this.lastPolicy) return this.lastTable!;
    let t = this.byPolicy.get(policy);
    if (t === undefined) {
      const tag = policyTag(policy);
      t = this.tables.get(tag);
      if (t === undefined) this.tables.set(tag, (t = new RecordTable()));
      this.byPolicy.set(policy, t);
    }
    this.lastPolicy = policy;
    this.lastTable = t;
    return t;
  }

  /**
   * Up to `count` of the policy's keys after `cursor` in code-unit order (a reset scan's chunk; ''
   * starts). A key order, not the map's: keys added or dropped between chunks move no other key, so
   * a scan misses none held throughout. The first chunk sorts the keys after the cursor once and the
   * next chunks hand them out in turn (a pass and a sort per chunk made a scan of n keys cost n²/count:
   * minutes at a million keys); a cursor that is not where the last chunk ended sorts afresh.
   */
  keysAfter(policy: Policy, cursor: string, count: number): string[] {
    const table = this.tableOf(policy);
    let s = this.scan;
    if (s === null || s.table !== table || s.next === 0 || s.keys[s.next - 1] !== cursor) {
      const keys: string[] = [];
      for (const k of table.keys()) if (k > cursor) keys.push(k);
      s = this.scan = { table, keys: keys.sort(), next: 0 };
    }
    const chunk = s.keys.slice(s.next, s.next + count);
    s.next += chunk.length;
    // handed out whole: let the keys go (the caller's next cursor then sorts an empty rest)
    if (s.next >= s.keys.length) this.scan = null;
    return chunk;
  }

  /** A key's record for the helpers that take no policy: there must be one table at most. */
  peekOnly(key: string): KeyRecord | undefined {
    const n = this.tables.size;
    if (n === 0) return undefined;
    if (n > 1) {
      throw new Error(
        `MemoryStore holds ${n} policies: this helper needs one (use countOf or outstandingOf)`,
      );
    }
    // with one table, the last one looked up is it
    const last = this.lastRec;
    if (last !== null && last.key === key && last.sweepAt !== -1) return handOut(last);
    const rec = this.lastTable!.get(key);
    return rec === undefined ? rec : handOut(rec);
  }

  /** The key's record under `policy`, if it has one (without making one). A deleted record (sweepAt −1) is never handed out. */
  peek(key: string, policy: Policy): KeyRecord | undefined {
    const table = this.tableOf(policy);
    const last = this.lastRec;
    if (last !== null && last.key === key && last.table === table && last.sweepAt !== -1)
      return handOut(last);
    const rec = table.get(key);
    return rec === undefined ? rec : handOut(rec);
  }

  record(key: string, policy: Policy): KeyRecord {
    let rec = this.peek(key, policy);
    if (rec === undefined) {
      const table = this.lastTable!; // peek looked it up
      rec = this.idle.pop();
      if (rec === undefined) rec = new KeyRecord(key, policy, table);
      else rec.renew(key, policy, table);
      table.set(rec);
      rec.sweepAt = Number.NaN; // not scheduled yet
    } else rec.policy = policy;
    this.lastRec = rec;
    return rec;
  }

  /** Drops an empty record at once, or makes sure the sweep will look at it when it may have emptied. */
  settle(rec: KeyRecord, policy: Policy, _now: number): void {
    if (rec.isEmpty()) {
      rec.table.remove(rec);
      // never scheduled: nothing else holds it (else the sweep lets it go when it comes to it)
      const free = Number.isNaN(rec.sweepAt);
      rec.sweepAt = -1;
      if (free) this.release(rec);
      return;
    }
    if (Number.isNaN(rec.sweepAt)) {
      rec.sweepAt = rec.deadline(policy);
      rec.changed = false;
      this.sweep.push(rec.sweepAt, rec);
    }
  }

  /**
   * A copy of the key's record as it is now (none: the key has none), for `restoreRecord` to put
   * back: the replay's checked chunks undo a key's calls (src/replay/run/key-checkpoints.ts).
   */
  saveRecord(key: string, policy: Policy): RecordSave {
    const table = this.tableOf(policy);
    const rec = table.get(key);
    if (rec === undefined) return { key, table, rec, copy: undefined };
    const keep = (v: object) => v === table || v === rec.policy;
    // written over the record's copy of the save before (copyState: no garbage)
    const copy = copyState(rec, keep, this.copies.get(rec));
    this.copies.set(rec, copy);
    return { key, table, rec, copy };
  }

  /**
   * Puts a saved record back, into the same object (the sweep's heap holds it); a record made for the
   * key since is let go (the sweep skips it). No sweep ran since the save (the caller holds them).
   */
  restoreRecord(s: RecordSave): void {
    const now = s.table.get(s.key);
    if (now !== undefined && now !== s.rec) {
      now.sweepAt = -1;
      s.table.remove(now);
    }
    if (s.rec === undefined) return;
    // the copy's parts are the record's now: no longer a copy to write over
    this.copies.delete(s.rec);
    Object.assign(s.rec, s.copy);
    s.rec.changed = true;
    s.table.set(s.rec);
  }

  /**
   * The admits the key's record holds (0: none), those expired but not dropped yet included, read
   * without handing the record out: no call on the key counts more before pushes add to it (the calls
   * come in time order; src/replay/run/key-checkpoints.ts, `quiet`).
   */
  heldOf(key: string, policy: Policy): number {
    const rec = this.tableOf(policy).get(key);
    return rec === undefined ? 0 : rec.log.size;
  }

  /** A deleted record that nothing holds any more, kept for a new key. */
  private release(rec: KeyRecord): void {
    if (this.idle.length < RECORD_POOL) this.idle.push(rec);
  }

  /** Deleted records kept for new keys (tests). */
  get idleRecords(): number {
    return this.idle.length;
  }

  sweepDue(now: number): void {
    const heap = this.sweep;
    let freed = false;
    while (heap.peekTime() <= now) {
      const rec = heap.pop()!;
      if (rec.sweepAt === -1) {
        // deleted since it was scheduled: out of the schedule now, so free
        this.release(rec);
        freed = true;
        continue;
      }
      if (!rec.table.holds(rec)) continue;
      const changed = rec.changed;
      const policy = rec.policy;
      // unchanged since its sweepAt was set, its deadline: now past it, nothing of it counts (the
      // prune would empty it); on a log of quiet keys nearly every record is, and its log and buffer
      // are then not read, out of the caches a window after the key's last call
      if (changed) rec.prune(now, policy);
      if (!changed || rec.isEmpty()) {
        rec.table.remove(rec);
        rec.sweepAt = -1;
        this.release(rec);
        freed = true;
      } else {
        rec.sweepAt = rec.deadline(policy);
        rec.changed = false;
        heap.push(rec.sweepAt, rec);
      }
    }
    if (freed && this.idle.length > RECORD_POOL_FLOOR) {
      const cap = Math.max(RECORD_POOL_FLOOR, this.keyCount);
      if (this.idle.length > cap) this.idle.length = cap;
    }
  }
}

/**
 * A record handed to a call, which may change it (KeyRecord.changed): every call reaches a record
 * through `peek`, `peekOnly` or `record`.
 */
function handOut(rec: KeyRecord): KeyRecord {
  rec.changed = true;
  return rec;
}

/** A key's record as `saveRecord` found it. */
export interface RecordSave {
  readonly key: string;
  readonly table: RecordTable<KeyRecord>;
  readonly rec: KeyRecord | undefined;
  readonly copy: KeyRecord | undefined;
}
