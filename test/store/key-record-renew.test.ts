// The memory store's pooled records (KeyRecords' pool, KeyRecord.renew, TimeLog.reset) and its sweep
// schedule (SweepQueue). A renewed record must be a new one in every field: each field of a record
// driven through every call is compared with a new record's, so a field `renew` forgets fails here.
import { describe, expect, it } from 'vitest';
import type { Policy } from '../../src/config.js';
import { KeyRecord, type Lease } from '../../src/store/memory/key-record.js';
import { RecordTable } from '../../src/store/memory/record-table.js';
import { SweepQueue } from '../../src/store/memory/sweep-queue.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import { TimeLog } from '../../src/window/time-log.js';

const policy: Policy = { limit: 50, windowMs: 1000, windowKind: 'sliding' };

/** A record with every field moved: admits (with counts), grants of two gateways, a spare, seqs, calls, voids, refunds. */
function usedRecord(): KeyRecord {
  const table = new RecordTable<KeyRecord>();
  const rec = new KeyRecord('old', policy, table);
  rec.log.insert(10);
  rec.log.insertMany(20, 12);
  rec.grant('a', 2, 4, 500, policy);
  rec.grant('b', 3, 2, 600, policy);
  rec.release('b', 10);
  rec.dropEmpty('b');
  rec.release('a', 10);
  rec.dropEmpty('a');
  rec.grant('c', 4, 1, 700, policy);
  rec.setSeq('a', 7);
  rec.setSeq('b', 8);
  // a third gateway's seq: in the map past the two inline
  rec.setSeq('c', 9);
  rec.calls = [{ gw: 'a', seq: 1, t: 10, cost: 1 }];
  rec.voided = new Map([['a', { upTo: 3, until: 900 }]]);
  rec.refunded = new Map([['a', 2]]);
  rec.prune(30, policy);
  rec.sweepAt = 1234;
  return rec;
}

/** usedRecord with every grant handed back: the map kept as the spare for the next grant. */
function usedSpare(): KeyRecord {
  const rec = usedRecord();
  rec.release('c', 10);
  rec.dropEmpty('c');
  expect(rec.leases).toBe(null);
  return rec;
}

/** A log's state as a reader sees it, and its fields but the buffer (whose stale slots no read reaches). */
function logState(log: TimeLog): object {
  const { buf: _buf, ...fields } = log as unknown as Record<string, unknown>;
  return {
    fields,
    size: log.size,
    slots: log.slots,
    first: log.first(),
    last: log.last(),
    all: log.toArray(),
  };
}

/** A grant as a reader sees it: its parts up to `len` (a kept grant's parts array has stale slots past it). */
function leaseState(l: Lease): object {
  return { ...l, parts: l.parts.slice(0, l.len) };
}

describe('a pooled memory-store record (KeyRecord.renew)', () => {
  it.each([
    ['with grants held', usedRecord],
    ['with its grants handed back (a spare map kept)', usedSpare],
  ])('is a new record in every field (%s)', (_, used) => {
    const rec = used();
    const table = new RecordTable<KeyRecord>();
    const p2: Policy = { ...policy };
    rec.renew('new', p2, table);
    const fresh = new KeyRecord('new', p2, table);
    const { log, ...fields } = rec as unknown as Record<string, unknown>;
    const { log: freshLog, ...freshFields } = fresh as unknown as Record<string, unknown>;
    expect(Object.keys(fields).sort()).toEqual(Object.keys(freshFields).sort());
    for (const k of Object.keys(freshFields)) expect([k, fields[k]]).toEqual([k, freshFields[k]]);
    expect(logState(log as TimeLog)).toEqual(logState(freshLog as TimeLog));
    // and works as one: what a sync reads and grants is a new key's
    rec.log.insert(40);
    fresh.log.insert(40);
    expect(rec.prune(40, p2)).toBe(fresh.prune(40, p2));
    expect(leaseState(rec.grant('a', 2, 1, 90, p2))).toEqual(leaseState(fresh.grant('a', 2, 1, 90, p2)));
    expect(rec.seqOf('b')).toBe(undefined);
    expect(rec.seqOf('c')).toBe(undefined);
  });

  it('a reset log has no counts, and one grown large is let go', () => {
    const log = new TimeLog();
    log.insertMany(5, 20);
    for (let t = 6; t < 200; t++) log.insert(t);
    expect(log.hasCounts).toBe(true);
    log.reset(64);
    expect(logState(log)).toEqual(logState(new TimeLog()));
    expect(log.hasCounts).toBe(false);
    expect((log as unknown as { buf: Float64Array }).buf.length).toBe(4);
    log.insert(3);
    expect(log.toArray()).toEqual([3]);
  });
});

describe('the memory store’s record pool', () => {
  it('a record the sweep deleted is a new key’s next, and answers as a new store’s', () => {
    const s = new MemoryStore();
    s.logAdmit({ key: 'a', policy, cost: 1 }, 0);
    const rec = s.record('a', policy);
    s.settle(rec, policy, 0);
    s.sweepDue(2000);
    expect(s.keyCount).toBe(0);
    expect(s.idleRecords).toBe(1);
    expect(s.record('b', policy)).toBe(rec);
    expect(s.idleRecords).toBe(0);
    const fresh = new MemoryStore();
    for (const st of [s, fresh]) st.logAdmit({ key: 'b', policy, cost: 1 }, 2000);
    expect(s.countOf('b', policy, 2001)).toBe(fresh.countOf('b', policy, 2001));
    expect(s.countOf('a', policy, 2001)).toBe(0);
  });

  it('a record deleted while scheduled is not handed out until the sweep has let it go', () => {
    const s = new MemoryStore();
    // scheduled by its first call, then emptied by a call of its own (a refund takes its admit back)
    s.logAdmit({ key: 'a', policy, cost: 1 }, 0);
    const rec = s.peek('a', policy)!;
    s.refundAdmits('g', policy, [{ key: 'a', seq: 1, at: 0, cost: 1 }], 10);
    expect(s.keyCount).toBe(0);
    expect(s.idleRecords).toBe(0);
    // the schedule still holds it: a new key gets a new record
    s.logAdmit({ key: 'b', policy, cost: 1 }, 20);
    expect(s.peek('b', policy)).not.toBe(rec);
    s.sweepDue(1000);
    expect(s.idleRecords).toBe(1);
    s.logAdmit({ key: 'c', policy, cost: 1 }, 1000);
    expect(s.peek('c', policy)).toBe(rec);
    // b is untouched by c's record: its admit still counts, and is swept at its own deadline
    expect(s.countOf('b', policy, 1010)).toBe(1);
    s.sweepDue(1020);
    expect(s.peek('b', policy)).toBe(undefined);
    expect(s.countOf('c', policy, 1020)).toBe(1);
  });

  it('a record the sweep finds still counting stays its key’s', () => {
    const s = new MemoryStore();
    s.logAdmit({ key: 'a', policy, cost: 1 }, 0);
    s.logAdmit({ key: 'a', policy, cost: 1 }, 900);
    const rec = s.peek('a', policy)!;
    // its first deadline (1000) passed: looked at, found counting, scheduled again
    s.sweepDue(1000);
    expect(s.idleRecords).toBe(0);
    s.logAdmit({ key: 'b', policy, cost: 1 }, 1000);
    expect(s.peek('b', policy)).not.toBe(rec);
    expect(s.countOf('a', policy, 1001)).toBe(1);
  });

  it('a record never scheduled (made and emptied by one call) is free at once', () => {
    const s = new MemoryStore();
    const entry = { key: 'a', admits: [], release: false, ask: 0, read: true };
    const req = { gatewayId: 'g', seq: 1, policy, leaseTtlMs: 100, horizonMs: 0, entries: [entry] };
    s.syncKey(req, entry, 0);
    expect(s.keyCount).toBe(0);
    expect(s.idleRecords).toBe(1);
  });
});

describe('the sweep schedule (SweepQueue)', () => {
  it('pops in time order, pushes in order and behind the newest mixed', () => {
    let seed = 7;
    const rand = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed / 2_147_483_648;
    };
    const q = new SweepQueue<number>();
    const want: number[] = [];
    let t = 0;
    let popped = 0;
    for (let i = 0; i < 4000; i++) {
      // mostly rising, some behind (a record re-scheduled, a call out of order)
      const at = rand() < 0.7 ? (t += Math.floor(rand() * 3)) : t - Math.floor(rand() * 500);
      q.push(at, i);
      want.push(at);
      if (rand() < 0.45) {
        const min = q.peekTime();
        const item = q.pop()!;
        expect(want[item]).toBe(min);
        want[item] = Number.NaN;
        popped++;
        // nothing held is earlier than what was popped
        expect(
          Math.min(...want.filter((x) => !Number.isNaN(x)), Number.POSITIVE_INFINITY),
        ).toBeGreaterThanOrEqual(min);
      }
    }
    expect(q.size).toBe(4000 - popped);
    let last = Number.NEGATIVE_INFINITY;
    while (q.size > 0) {
      const min = q.peekTime();
      expect(min).toBeGreaterThanOrEqual(last);
      expect(want[q.pop()!]).toBe(min);
      last = min;
    }
    expect(q.peekTime()).toBe(Number.POSITIVE_INFINITY);
    expect(q.pop()).toBe(undefined);
  });
});

describe('a record’s seqs per gateway (KeyRecord.setSeq, seqOf)', () => {
  it('keeps each gateway’s last seq apart: the first two inline, the rest in a map', () => {
    const rec = new KeyRecord('k', policy, new RecordTable<KeyRecord>());
    const gws = ['g0', 'g1', 'g2', 'g3', 'g4'];
    for (const gw of gws) expect(rec.seqOf(gw)).toBe(undefined);
    // each pushes in turn, twice round: a later seq replaces the gateway's own, no other's
    for (let round = 1; round <= 2; round++)
      gws.forEach((gw, i) => {
        rec.setSeq(gw, 10 * round + i);
        for (let j = 0; j < gws.length; j++)
          expect(rec.seqOf(gws[j])).toBe(j <= i ? 10 * round + j : round === 1 ? undefined : 10 + j);
      });
    const fields = rec as unknown as { seqs: Map<string, number> | null };
    expect([...(fields.seqs ?? new Map()).keys()]).toEqual(['g2', 'g3', 'g4']);
  });
});
