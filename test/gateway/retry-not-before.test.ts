import { describe, expect, it } from 'vitest';
import type { DesignId } from '../../src/config.js';
import type { Decision } from '../../src/gateway/decision.js';
import { Gateway } from '../../src/gateway/gateway.js';
import { MemoryStore } from '../../src/store/memory-store.js';

/**
 * A synced gateway that cannot know when it admits (KeyLimiter.retryAt says Infinity) still knows
 * before when it surely does not (KeyLimiter.retryNotBefore): Retry-After is the later of that and its
 * next sync, not its next sync alone (a client obeying that retried every Δ until then).
 *
 * Issue 31's small fleet (K = 3, L = 5 per 10 s, Δ = 200 ms, one MemoryStore, syncs in time order): g0
 * admits four (0, 300, 600, 900), g2 the fifth at 3 000; g2 refuses a request of cost 2 at 3 300. Two
 * must leave: g0's at 0 (the reply's oldest, leaving at 10 000) and one more of g0's, which g2 knew
 * only as a count, or its own at 3 000. It said 10 000, the soonest with the oldest expiry alone; the
 * reply, at the limit, now also says when the count falls below L − 1 (SyncReply.belowLimitAt): 10 300,
 * the true wait. It did not know when the rest leave (retryAt: Infinity); the reply, at L − 2 or more, now
 * also says when the two oldest admits it does not list leave (SyncReply.pastHorizonAt, 10 000 and
 * 10 300): it knows. A request of cost 3 waits for a third, g0's at 600, which it knows only as a count
 * leaving no sooner than 10 300: it cannot know, and says 10 300 (the true wait is 10 600).
 */
const opts = { limit: 5, windowMs: 10_000, gateways: 3, syncMs: 200 };
const FAMILY: DesignId[] = ['shared-counter', 'assume-others', 'track-share', 'adaptive', 'adaptive-early'];

function fleet(design: DesignId) {
  const store = new MemoryStore();
  const gws = [0, 1, 2].map((g) => new Gateway({ id: `g${g}`, design, ...opts }, store));
  const next = gws.map((_, g) => 50 + 67 * g);
  const at = (t: number, g: number, cost = 1): Decision => {
    for (;;) {
      let h = -1;
      for (let i = 0; i < 3; i++) if (next[i] <= t && (h < 0 || next[i] < next[h])) h = i;
      if (h < 0) break;
      gws[h].sync(next[h]);
      next[h] += opts.syncMs;
    }
    return gws[g].admit('login', t, cost);
  };
  return { at, gws };
}

describe('Retry-After when a synced gateway cannot know: not before what it waits for', () => {
  for (const design of FAMILY) {
    it(`${design}: cost 3 refused at 3 300 says 10 300, not its next sync (cost 2: 10 300, known)`, () => {
      const { at, gws } = fleet(design);
      for (const t of [0, 300, 600, 900]) expect(at(t, 0).allowed).toBe(true);
      expect(at(3_000, 2).allowed).toBe(true);
      const d = at(3_300, 2, 3);
      expect(d.allowed).toBe(false);
      const lim = gws[2].limiterFor('login')!;
      expect(lim.retryAt(3_300, 3, 3_384)).toBe(Number.POSITIVE_INFINITY);
      expect(d.retryAfterMs).toBe(10_300 - 3_300);
      // cost 2: the true wait, known
      expect(lim.retryAt(3_300, 2, 3_384)).toBe(10_300);
      expect(at(3_301, 2, 2).retryAfterMs).toBe(10_300 - 3_301);
      // and it is a bound: 1 ms sooner (past its next syncs) the same request is refused
      expect(at(10_299, 2, 3).allowed).toBe(false);
    });
  }
});
