import { describe, expect, it } from 'vitest';
import type { DesignId } from '../../src/config.js';
import type { Decision } from '../../src/gateway/decision.js';
import { Gateway } from '../../src/gateway/gateway.js';
import { MemoryStore } from '../../src/store/memory-store.js';

/**
 * Issue 31 ("Retry-After and remaining tell the truth for every design"), the shared-counter family,
 * the early side, the case the store could tell and did not. A read's reply under L said when the
 * oldest admit it counted leaves (SyncReply.oldestExpiry) and nothing of the next; a gateway whose own
 * admits since took the key to L, refused a request that needs two admits to leave, could only say
 * when the oldest did (its next sync at the earliest): early until that sync, by up to a window.
 * Fixed: a read of L − 2 or more also says when the two oldest admits it does not list leave
 * (SyncReply.pastHorizonAt), and the walk lets the others' among them leave then.
 *
 * K = 3, L = 5 per 10 s, Δ = 200 ms (horizon 800 ms), one MemoryStore, syncs in time order. g2 admits
 * one at 0, g0 three (300, 600, 700); g2's read at 984 counts four, lists none (horizon 1 784). g2
 * admits one more at 1 000: its view is at L. Refused at 1 050, cost 1 waits for the oldest (its own,
 * 10 000), cost 2 for the next (g0's, 10 300): it said 10 000 for cost 2, 300 ms early (more than Δ).
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

describe('a synced gateway whose own admits took the key to L waits for the admit ranked n − L + cost (issue 31)', () => {
  for (const design of FAMILY) {
    for (const [cost, leaves] of [
      [1, 10_000],
      [2, 10_300],
    ]) {
      it(`${design}: g2's one and g0's three counted of L = 5, one own since, refused at 1050 for cost ${cost}: the true wait`, () => {
        const at = fleet(design);
        expect(at(0, 2).allowed).toBe(true);
        for (const t of [300, 600, 700]) expect(at(t, 0).allowed).toBe(true);
        expect(at(1_000, 2).allowed).toBe(true);
        const r = 1_050;
        const d = at(r, 2, cost);
        expect(d.allowed).toBe(false);
        expect(d.retryAfterMs).toBe(leaves - r);
      });
    }
  }
});
