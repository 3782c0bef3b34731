import { describe, expect, it } from 'vitest';
import { StoreHealth } from '../../../src/gateway/runtime/store-health.js';

describe('StoreHealth', () => {
  it('is down once a call failed and the last good reply (or the start, before any) is older than staleAfterMs', () => {
    const h = new StoreHealth(1_000, 500, false);
    h.failing = true;
    expect(h.down(1_500)).toBe(false);
    expect(h.down(1_501)).toBe(true);
    expect(h.ageMs(1_200)).toBe(200);
    h.answered(1_400);
    h.failing = true;
    expect(h.down(1_900)).toBe(false);
    expect(h.down(1_901)).toBe(true);
    // a late reply read earlier never moves the last good time back
    h.answered(1_300);
    expect(h.lastGoodAt).toBe(1_400);
    expect(h.ageMs(1_350)).toBe(0);
  });

  it('is never down without a failed call, however old the last reply: nothing asked went unanswered (issue 32)', () => {
    for (const onRequest of [false, true]) {
      const h = new StoreHealth(1_000, 500, onRequest);
      expect(h.down(1_000_000)).toBe(false);
      h.answered(2_000);
      expect(h.down(1_000_000)).toBe(false);
      expect(h.ageMs(1_000_000)).toBe(998_000);
      h.failing = true;
      expect(h.down(1_000_000)).toBe(true);
    }
  });

  it('a failed call puts request-path designs down at once, until a reply; others ride it out', () => {
    const onRequest = new StoreHealth(0, 500, true);
    const synced = new StoreHealth(0, 500, false);
    for (const h of [onRequest, synced]) {
      h.answered(10);
      h.failing = true;
    }
    expect(onRequest.down(20)).toBe(true);
    expect(synced.down(20)).toBe(false);
    onRequest.answered(30);
    expect(onRequest.failing).toBe(false);
    expect(onRequest.down(40)).toBe(false);
  });
});
