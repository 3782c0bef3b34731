import { describe, expect, it } from 'vitest';
import type { DesignId } from '../../src/config.js';
import type { Decision } from '../../src/gateway/decision.js';
import { Gateway } from '../../src/gateway/gateway.js';
import { MemoryStore } from '../../src/store/memory-store.js';

/**
 * Issue 31 ("Retry-After and remaining tell the truth for every design"), the shared-counter family.
 * Past its reply's horizon (min(W, 4Δ) after the sync) a synced gateway was told only the store's
 * count, not when the other gateways' admits leave. SyncedKey.retryAt's after-sync walk counted those
 * as never leaving and answered the first instant its own counted admits (`late`) freed enough: when
 * its own oldest admit left, however much earlier the others' did. Late by up to a window: here by
 * T − 900 ms. Fixed: a read's reply says when its oldest counted admit leaves (SyncReply.oldestExpiry),
 * and the walk bounds the others' admits by it.
 *
 * K = 3, L = 5 per 10 s, Δ = 200 ms, one MemoryStore, syncs in time order. g0 admits four (0, 300,
 * 600, 900), g2 the fifth at T; g2 refuses at T + 300. The central log admits again at 10 000 (the
 * admit at 0 leaves): true wait 9 700 − T. g2 said 9 700 (its own admit at T leaves), for every T.
 */
const opts = { limit: 5, windowMs: 10_000, gateways: 3, syncMs: 200 };
const FAMILY: DesignId[] = ['shared-counter', 'assume-others', 'track-share', 'adaptive', 'adaptive-early'];

function fleet(design: DesignId) {
  const store = new MemoryStore();
  const gws = [0, 1, 2].map((g) => new Gateway({ id: `g${g}`, design, ...opts }, store));
  const next = gws.map((_, g) => 50 + 67 * g);
  return (t: number, g: number): Decision => {
    for (;;) {
      let h = -1;
      for (let i = 0; i < 3; i++) if (next[i] <= t && (h < 0 || next[i] < next[h])) h = i;
      if (h < 0) break;
      gws[h].sync(next[h]);
      next[h] += opts.syncMs;
    }
    return gws[g].admit('login', t);
  };
}

describe('a synced gateway waits for the admits that leave first, not for its own (issue 31)', () => {
  for (const design of FAMILY) {
    for (const T of [3_000, 6_000]) {
      it(`${design}: fifth admit at ${T} on g2, refused at ${T + 300}: within Δ of the true wait`, () => {
        const at = fleet(design);
        for (const t of [0, 300, 600, 900]) expect(at(t, 0).allowed).toBe(true);
        expect(at(T, 2).allowed).toBe(true);
        const r = T + 300;
        const d = at(r, 2);
        expect(d.allowed).toBe(false);
        const trueWait = 10_000 - r;
        expect(d.retryAfterMs).toBeGreaterThanOrEqual(trueWait);
        expect(d.retryAfterMs).toBeLessThanOrEqual(trueWait + opts.syncMs);
      });
    }
  }
});
