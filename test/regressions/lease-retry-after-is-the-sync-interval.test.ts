import { afterEach, describe, expect, it, vi } from 'vitest';
import type { DesignId } from '../../src/config.js';
import type { Decision } from '../../src/gateway/decision.js';
import { Gateway } from '../../src/gateway/gateway.js';
import { createAsyncGateway } from '../../src/gateway/runtime/index.js';
import { MemoryStore } from '../../src/store/memory-store.js';

/**
 * Issue 31 ("Retry-After and remaining tell the truth for every design"): a lease gateway with no
 * slot answered its next sync as Retry-After whatever the store held (retryAt was Infinity: "slots
 * come only from the store"), so a login policy (5 per minute) said `Retry-After: 1` where the true
 * wait was 35–60 s, and in a small fleet (K = 3, L = 5 per 10 s, Δ = 200 ms) 56–196 ms where it was
 * ~8.8 s. The store knows when its oldest admit leaves: the grant reply and the sync now say so, and
 * the gateway answers with it (leases: at its first sync from then; leases-ask: then, or at its next
 * sync if it may not ask before).
 *
 * A client sends every 300 ms, round robin over three gateways, until five are admitted (a leases
 * gateway refuses a key's first request: it holds a slot for it from its next sync); its next request
 * on each gateway is refused. The central log would admit again W after the first admit, when it
 * leaves: every gateway's Retry-After is within Δ of that, and never before it.
 */
const opts = { limit: 5, windowMs: 10_000, gateways: 3, syncMs: 200 };
const LEASES: DesignId[] = ['leases', 'leases-ask'];

function fleet(design: DesignId) {
  const store = new MemoryStore();
  const gws = [0, 1, 2].map((g) => new Gateway({ id: `g${g}`, design, ...opts }, store));
  // spread phases, as a fleet's timers fall: g at 50 + 67·g, then every Δ
  const next = gws.map((_, g) => 50 + 67 * g);
  const at = (t: number, g: number): Decision => {
    for (;;) {
      let h = -1;
      for (let i = 0; i < 3; i++) if (next[i] <= t && (h < 0 || next[i] < next[h])) h = i;
      if (h < 0) break;
      gws[h].sync(next[h]);
      next[h] += opts.syncMs;
    }
    return gws[g].admit('login', t);
  };
  return at;
}

describe('a lease gateway answers the wait the store knows, not its next sync (Gateway)', () => {
  for (const design of LEASES) {
    it(`${design}: Retry-After is within Δ after the oldest admit leaves`, () => {
      const at = fleet(design);
      const admits: number[] = [];
      let t = 0;
      for (let i = 0; admits.length < 5; i++, t += 300) if (at(t, i % 3).allowed) admits.push(t);
      for (let g = 0; g < 3; g++) {
        const r = t + g;
        const d = at(r, g);
        expect(d.allowed).toBe(false);
        const trueWait = admits[0] + 10_000 - r;
        expect(d.retryAfterMs).toBeGreaterThanOrEqual(trueWait);
        expect(d.retryAfterMs).toBeLessThanOrEqual(trueWait + opts.syncMs);
      }
    });

    it(`${design}: a client pinned to one gateway that obeys it is admitted at its first retry`, () => {
      const at = fleet(design);
      const admits: number[] = [];
      let t = 0;
      for (; admits.length < 5; t += 300) if (at(t, 0).allowed) admits.push(t);
      const d = at(t, 0);
      expect(d.allowed).toBe(false);
      const trueWait = admits[0] + 10_000 - t;
      expect(d.retryAfterMs).toBeGreaterThanOrEqual(trueWait);
      expect(d.retryAfterMs).toBeLessThanOrEqual(trueWait + opts.syncMs);
      expect(at(t + (d.retryAfterMs ?? 0), 0).allowed).toBe(true);
    });
  }
});

describe('a lease gateway answers the wait the store knows (AsyncGateway)', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  for (const design of LEASES) {
    it(`${design} on a MemoryStore, fake timers: 5 per minute, Retry-After within Δ of the true wait`, async () => {
      vi.useFakeTimers({ now: 0 });
      const gw = createAsyncGateway({
        id: 'g0',
        design,
        limit: 5,
        windowMs: 60_000,
        gateways: 3,
        syncMs: 1_000,
        store: new MemoryStore(),
        clock: () => Date.now(),
        random: () => 0.25,
      });
      gw.start();
      // every 2 s until five are admitted (leases refuses the first: no slot before its next sync)
      const admits: number[] = [];
      while (admits.length < 5) {
        const d = await gw.admit('login');
        if (d.allowed) admits.push(d.at ?? Date.now());
        await vi.advanceTimersByTimeAsync(2_000);
      }
      const refused = await gw.admit('login');
      expect(refused.allowed).toBe(false);
      const trueWait = admits[0] + 60_000 - (refused.at ?? Date.now());
      expect(refused.retryAfterMs).toBeGreaterThanOrEqual(trueWait);
      expect(refused.retryAfterMs).toBeLessThanOrEqual(trueWait + 1_000);
      await vi.advanceTimersByTimeAsync(refused.retryAfterMs ?? 0);
      expect((await gw.admit('login')).allowed).toBe(true);
      await gw.stop();
    });
  }
});
