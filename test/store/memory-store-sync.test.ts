import { describe, expect, it } from 'vitest';
import type { Policy } from '../../src/config.js';
import type { SyncEntry, SyncReply, SyncRequest } from '../../src/store/contract.js';
import { boundedSweep } from '../support/bounded-sweep.js';
import { listed } from '../support/store-contract.js';

/**
 * MemoryStore's syncs beyond the store contract: pushes out of order (in process, so Stryker sees it:
 * test/regressions/memory-store-unsorted-push-hangs.live.test.ts runs a child process), resends of large
 * syncs, the seq a key remembers, the simulator's single-key path (syncKey) with its reused reply,
 * and records that leave. Found by Stryker (issue 32, docs/testing.md).
 */
const p: Policy = { limit: 20, windowMs: 100, windowKind: 'sliding' };

const req = (seq: number, entries: SyncEntry[], over: Partial<SyncRequest> = {}): SyncRequest => ({
  gatewayId: 'a',
  seq,
  policy: p,
  leaseTtlMs: 50,
  horizonMs: 100,
  entries,
  ...over,
});
const push = (key: string, admits: number[], read = true, counts?: number[]): SyncEntry => ({
  key,
  admits,
  counts,
  read,
  release: false,
  ask: 0,
});

describe('MemoryStore sync', () => {
  it('admits pushed out of order are counted and aged as if sorted (the sweep bounded: a hang throws)', () => {
    const s = boundedSweep();
    const fixed: Policy = { limit: 5, windowMs: 94, windowKind: 'fixed' };
    const a = s.sync(req(1, [push('k', [1033, 1050, 1026])], { policy: fixed, horizonMs: 26 }), 1033);
    // a fixed window of 94 ms: 1026 and 1033 count until 1034, 1050 until 1128
    expect(a.replies[0].count).toBe(3);
    expect(listed(a.replies[0])).toEqual([1034, 1034]);
    const b = s.sync(req(2, [push('k', [])], { policy: fixed, horizonMs: 26 }), 1041);
    expect(b.replies[0]).toMatchObject({ count: 1, expiries: [] });
  });

  it('runs pushed out of order keep their counts', () => {
    const s = boundedSweep();
    const r = s.sync(req(1, [push('k', [50, 30, 40], true, [1, 2, 3])]), 60);
    expect(r.replies[0].count).toBe(6);
    expect(listed(r.replies[0])).toEqual([130, 130, 140, 140, 140, 150]);
    expect(s.sync(req(2, [push('k', [])]), 135).replies[0].count).toBe(4);
  });

  it('a resent sync of many keys pushes none of them twice', () => {
    const s = boundedSweep();
    const keys = Array.from({ length: 200 }, (_, i) => `k${i}`);
    const sent = req(
      1,
      keys.map((k) => push(k, [10])),
    );
    s.sync(sent, 20);
    expect(s.sync(sent, 30).replies.map((r) => r.count)).toEqual(keys.map(() => 1));
  });

  it('a resent part whose keys follow more new ones than any sync before it had pushes none of them twice', () => {
    const s = boundedSweep();
    const old = Array.from({ length: 100 }, (_, i) => push(`k${i}`, [10]));
    s.sync(req(1, old), 20);
    // (a store that sized its per-key replay flags for the calls before it would miss the last ones)
    const fresh = Array.from({ length: 200 }, (_, i) => push(`n${i}`, [25]));
    const r = s.sync(req(1, [...fresh, ...old]), 30);
    expect(r.replies.map((x) => x.count)).toEqual([...fresh, ...old].map(() => 1));
  });

  it('a sync that pushes nothing that counts to a key leaves its seq off it: an older part still lands there', () => {
    const s = boundedSweep();
    // (both keys hold another gateway's admit, so their records stay)
    s.logAdmit({ key: 'a', policy: p, cost: 1 }, 150);
    s.logAdmit({ key: 'b', policy: p, cost: 1 }, 150);
    // sync 6 reads a and pushes b an admit already aged out; sync 5's part for a and b is resent after it
    s.sync(req(6, [push('a', []), push('b', [0])]), 200);
    const late = s.sync(req(5, [push('a', [190]), push('b', [195])]), 210);
    expect(late.replies.map((r) => r.count)).toEqual([2, 2]);
  });

  it('a read with release still says when the oldest admit leaves, though it lists expiries', () => {
    const s = boundedSweep();
    const entry: SyncEntry = { key: 'k', admits: [100, 120], read: true, release: true, ask: 0 };
    const r = s.sync(req(1, [entry]), 150);
    expect(listed(r.replies[0])).toEqual([200, 220]);
    expect(r.replies[0]).toMatchObject({ count: 2, oldestExpiry: 200, free: 18 });
  });

  it('a read of a key nobody admitted to leaves no record behind', () => {
    const s = boundedSweep();
    const r = s.sync(
      req(
        1,
        ['x', 'y', 'z'].map((k) => push(k, [])),
      ),
      10,
    );
    expect(r.replies.map((x) => x.count)).toEqual([0, 0, 0]);
    expect(s.keyCount).toBe(0);
  });
});

describe('MemoryStore syncKey (the simulator’s single-key path)', () => {
  it('checks seqs per gateway: a retry pushes nothing again, an older seq is refused', () => {
    const s = boundedSweep();
    const e = (admits: number[]) => push('k', admits);
    expect(s.syncKey(req(1, []), e([10, 20]), 30).count).toBe(2);
    expect(s.syncKey(req(1, []), e([10, 20]), 40).count).toBe(2);
    expect(s.syncKey(req(2, []), e([35]), 50).count).toBe(3);
    expect(s.syncKey(req(3, []), e([]), 51).count).toBe(3);
    expect(() => s.syncKey(req(2, []), e([45]), 60)).toThrow(RangeError);
    // another gateway's seqs are its own
    expect(s.syncKey(req(1, [], { gatewayId: 'b' }), e([55]), 60).count).toBe(4);
  });

  it('a reply object reused from key to key carries nothing over from the last', () => {
    const s = boundedSweep();
    const out: SyncReply = { count: 0, expiries: [], horizon: 0, granted: 0, grantExpiresAt: 0 };
    s.syncKey(req(1, []), push('k', [10, 10, 20]), 50, out);
    expect(listed(out)).toEqual([110, 110, 120]);
    // a push without a read lists nothing
    s.syncKey(req(2, []), push('q', [40], false), 60, out);
    expect(out).toMatchObject({ count: 1, expiries: [], expiryCounts: undefined, oldestExpiry: undefined });
    // a read that lists no expiry says when the oldest leaves; the next entry without read does not
    s.syncKey(req(3, [], { horizonMs: 10 }), push('k', []), 70, out);
    expect(out).toMatchObject({ count: 3, expiries: [], oldestExpiry: 110 });
    s.syncKey(req(4, []), push('q', [75], false), 80, out);
    expect(out.oldestExpiry).toBeUndefined();
  });
});
