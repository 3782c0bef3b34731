// The memory store's record pool (KeyRecords' `idle`, for a replay's quiet keys) kept every record the
// sweep let go, up to 131,072: after a spike of keys had expired, the store held ~68 MB of idle records
// (test/gateway/idle-reclaim-million-keys.live.test.ts: central-log 11 MB → 79 MB after, where the
// bound is 10 MB). Once a sweep lets records go, the pool keeps no more than the records still live,
// or RECORD_POOL_FLOOR.
import { describe, expect, it } from 'vitest';
import type { Policy } from '../../src/config.js';
import { RECORD_POOL_FLOOR } from '../../src/store/memory/key-records.js';
import { MemoryStore } from '../../src/store/memory-store.js';

const policy: Policy = { limit: 50, windowMs: 1000, windowKind: 'sliding' };

describe('the memory store after a spike of keys', () => {
  it('keeps no pool of the spike’s size once its keys have expired', () => {
    const s = new MemoryStore();
    const N = 4 * RECORD_POOL_FLOOR;
    for (let i = 0; i < N; i++) s.logAdmit({ key: `spike:${i}`, policy, cost: 1 }, i / 1000);
    expect(s.keyCount).toBe(N);
    s.sweepDue(10_000);
    expect(s.keyCount).toBe(0);
    expect(s.idleRecords).toBeLessThanOrEqual(RECORD_POOL_FLOOR);
  });

  it('keeps one for each key still live when many are', () => {
    const s = new MemoryStore();
    const N = 4 * RECORD_POOL_FLOOR;
    // half the keys at 0 s, half at 0.5 s: the sweep at 1.2 s lets the first half go (W = 1 s), the
    // second half lives on
    for (let i = 0; i < N; i++) s.logAdmit({ key: `k:${i}`, policy, cost: 1 }, i < N / 2 ? 0 : 500);
    s.sweepDue(1200);
    expect(s.keyCount).toBe(N / 2);
    expect(s.idleRecords).toBe(N / 2);
    // new keys take the pooled records first
    for (let i = 0; i < N / 2; i++) s.logAdmit({ key: `new:${i}`, policy, cost: 1 }, 1300);
    expect(s.idleRecords).toBe(0);
  });
});
