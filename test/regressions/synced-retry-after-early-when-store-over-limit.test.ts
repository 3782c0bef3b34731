import { describe, expect, it } from 'vitest';
import type { DesignId } from '../../src/config.js';
import type { Decision } from '../../src/gateway/decision.js';
import { Gateway } from '../../src/gateway/gateway.js';
import { MemoryStore } from '../../src/store/memory-store.js';

/**
 * Issue 31 ("Retry-After and remaining tell the truth for every design"), the shared-counter family,
 * the early side. Deciding on views up to Δ old, the fleet may admit past L: the store then counts n
 * > L, and the key admits a request of cost c only once n − L + c admits have left. A synced gateway
 * was told the count and when the oldest admit leaves (SyncReply.oldestExpiry), and its Retry-After
 * walk let every admit of the others it knew only as a count leave then: it answered when one admit
 * left. Early by up to a window (−8.6 s at W = 10 s in scripts/retry-after-random.ts; a quarter of
 * the rejections early by more than Δ). Fixed: a read's reply over the limit says when the count falls
 * below L and L − 1 (SyncReply.belowLimitAt), and the walk keeps enough of those admits until then.
 *
 * K = 3, L = 5 per 10 s, Δ = 200 ms, one MemoryStore, syncs in time order. g0 admits three (0, 1000,
 * 2000); at 3000, 3001 and 3002 g1, g2 and g0 each admit one on a view of three: six counted. g2
 * refuses at 5000. The central log admits one more at 11 000 (two have left), two more at 12 000.
 * g2 said 10 000 for both: when the oldest leaves.
 */
const opts = { limit: 5, windowMs: 10_000, gateways: 3, syncMs: 200 };
const FAMILY: DesignId[] = ['shared-counter', 'assume-others', 'track-share', 'adaptive', 'adaptive-early'];

function fleet(design: DesignId) {
  const store = new MemoryStore();
  const gws = [0, 1, 2].map((g) => new Gateway({ id: `g${g}`, design, ...opts }, store));
  const next = gws.map((_, g) => 50 + 67 * g);
  return (t: number, g: number, cost = 1): Decision => {
    for (;;) {
      let h = -1;
      for (let i = 0; i < 3; i++) if (next[i] <= t && (h < 0 || next[i] < next[h])) h = i;
      if (h < 0) break;
      gws[h].sync(next[h]);
      next[h] += opts.syncMs;
    }
    return gws[g].admit('login', t, cost);
  };
}

describe('a synced gateway waits until the store count falls below L, not for its oldest admit (issue 31)', () => {
  for (const design of FAMILY) {
    for (const [cost, leaves] of [
      [1, 11_000],
      [2, 12_000],
    ]) {
      it(`${design}: six counted of L = 5, refused at 5000 for cost ${cost}: within Δ of the true wait`, () => {
        const at = fleet(design);
        for (const t of [0, 1_000, 2_000]) expect(at(t, 0).allowed).toBe(true);
        expect(at(3_000, 1).allowed).toBe(true);
        expect(at(3_001, 2).allowed).toBe(true);
        expect(at(3_002, 0).allowed).toBe(true);
        const r = 5_000;
        const d = at(r, 2, cost);
        expect(d.allowed).toBe(false);
        const trueWait = leaves - r;
        expect(d.retryAfterMs).toBeGreaterThanOrEqual(trueWait);
        expect(d.retryAfterMs).toBeLessThanOrEqual(trueWait + opts.syncMs);
      });
    }
  }
});
