import { afterEach, describe, expect, it, vi } from 'vitest';
import type { DesignId } from '../../src/config.js';
import { Gateway } from '../../src/gateway/gateway.js';
import { createAsyncGateway } from '../../src/gateway/runtime/index.js';
import { MemoryStore } from '../../src/store/memory-store.js';

/**
 * Issue 20 ("The 429 is yours"): `remaining` rose between two decisions of one gateway on one key
 * although no slot had freed (9, 9, 9, 7, 7, 6, 4, 5, 3…). assume-others counts each own admit since
 * the last sync K times, track-share 1/share times (K before its first measured share); the sync swaps
 * them for the store's count, which counts each once, and the headroom shown jumped up. Nothing aged
 * out and no one else admitted: the admit decision may use the new count, the header must not rise.
 *
 * L = 10 per 60 s, K = 3: three admits at 0, 100, 200 count 9, so 1 left; the sync at 300 reads 3.
 */
const opts = { limit: 10, windowMs: 60_000, gateways: 3, syncMs: 1_000 };
const WEIGHTED: DesignId[] = ['assume-others', 'track-share'];

describe('remaining does not rise without a freed slot (Gateway)', () => {
  for (const design of WEIGHTED) {
    it(`${design}: a sync that only replaces the own admits' weight shows no rise`, () => {
      const gw = new Gateway({ id: 'g0', design, ...opts }, new MemoryStore());
      const shown = [0, 100, 200].map((t) => gw.admit('k', t).remaining);
      expect(shown).toEqual([7, 4, 1]);
      gw.sync(300);
      const next = gw.admit('k', 400);
      // the store's count admits it (3 + 1 <= 10): the decision changes, the header does not rise
      expect(next.allowed).toBe(true);
      expect(next.remaining).toBeLessThanOrEqual(1);
    });
  }

  it('a slot that really frees still shows: an own admit aging out lets remaining rise', () => {
    const gw = new Gateway({ id: 'g0', design: 'assume-others', ...opts }, new MemoryStore());
    for (const t of [0, 100, 200]) gw.admit('k', t);
    gw.sync(300);
    expect(gw.admit('k', 400).remaining).toBeLessThanOrEqual(1);
    // the admit at 0 ages out at 60 s: the store's count it was in is now lower by one
    gw.sync(59_500);
    const after = gw.admit('k', 60_000);
    expect(after.remaining).toBeGreaterThan(1);
  });
});

describe('remaining does not rise without a freed slot (AsyncGateway)', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('assume-others on a MemoryStore, fake timers', async () => {
    vi.useFakeTimers({ now: 0 });
    const gw = createAsyncGateway({
      id: 'g0',
      design: 'assume-others',
      ...opts,
      store: new MemoryStore(),
      clock: () => Date.now(),
      random: () => 0.5,
    });
    gw.start();
    const shown: number[] = [];
    for (let i = 0; i < 3; i++) {
      shown.push((await gw.admit('k')).remaining);
      await vi.advanceTimersByTimeAsync(100);
    }
    expect(shown).toEqual([7, 4, 1]);
    // the first sync (at 500 ms) reads a count of 3
    await vi.advanceTimersByTimeAsync(300);
    expect(gw.stats().syncs).toBe(1);
    const next = await gw.admit('k');
    expect(next.allowed).toBe(true);
    expect(next.remaining).toBeLessThanOrEqual(1);
    await gw.stop();
  });
});
