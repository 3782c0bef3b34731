/**
 * Bug (issue 36, found in review of resetAll): MemoryStore's reset scan passed over all of the
 * policy's keys and sorted those after the cursor at every chunk, so a scan of n keys in chunks of c
 * cost about n²/c: minutes of one event loop at a million keys. The first chunk now sorts once and the
 * next chunks hand the keys out in turn. Counted as work (comparisons made by the sort), not as time.
 */
import { afterEach, expect, it, vi } from 'vitest';
import type { Policy } from '../../src/config.js';
import { MemoryStore } from '../../src/store/memory-store.js';

const p: Policy = { limit: 5, windowMs: 60_000, windowKind: 'sliding' };

afterEach(() => vi.restoreAllMocks());

it('a reset scan of 2,000 keys in chunks of 20 sorts the keys once, and resets every key', () => {
  const s = new MemoryStore();
  const n = 2_000;
  const entries = Array.from({ length: n }, (_, i) => ({
    key: `k${i}`,
    admits: [100],
    counts: undefined,
    read: false,
    release: false,
    ask: 0,
  }));
  s.sync({ gatewayId: 'a', policy: p, seq: 1, leaseTtlMs: 0, horizonMs: 60_000, entries }, 100);
  const sort = vi.spyOn(Array.prototype, 'sort');
  let cursor: string | null = '';
  let removed = 0;
  let chunks = 0;
  while (cursor !== null) {
    const r = s.resetScan({ gatewayId: 'a', policy: p, at: 200, cursor, count: 20 }, 200);
    removed += r.removed;
    cursor = r.cursor;
    chunks++;
  }
  expect(removed).toBe(n);
  expect(chunks).toBeGreaterThanOrEqual(n / 20);
  // one sort for the scan, and one of the empty rest after a last full chunk; per chunk it was 100
  expect(sort.mock.calls.length).toBeLessThanOrEqual(2);
});
