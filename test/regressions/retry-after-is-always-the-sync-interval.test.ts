import { afterEach, describe, expect, it, vi } from 'vitest';
import type { DesignId } from '../../src/config.js';
import type { Decision } from '../../src/gateway/decision.js';
import { Gateway } from '../../src/gateway/gateway.js';
import { createAsyncGateway } from '../../src/gateway/runtime/index.js';
import { MemoryStore } from '../../src/store/memory-store.js';

/**
 * Issue 20 ("The 429 is yours"): Retry-After was the sooner of the next sync and the next expiry the
 * gateway knew of, whether or not either could admit the request, so it was about Δ: a client that
 * waited exactly that long and retried was rejected again and again (nine times in ten seconds). Now
 * it is the first instant the key admits the request on what the gateway knows: here its own admits,
 * pushed to the store past the reply's horizon (W = 10 s, horizon 4 s), age out one by one from 10 s.
 *
 * One client on one gateway of three (L = 10 per 10 s, Δ = 1 s): ten admits 500 ms apart from 0, the
 * eleventh at 5 s is refused; the first admit ages out at 10 s, so Retry-After is 5 s and a retry then
 * is admitted. A client obeying it retries once in the 10 s after its 429, and is admitted.
 */
const opts = { limit: 10, windowMs: 10_000, gateways: 3, syncMs: 1_000 };
const DESIGNS: DesignId[] = ['shared-counter', 'track-share', 'adaptive', 'split'];

describe('Retry-After is when the key admits again, not the next sync (Gateway)', () => {
  for (const design of DESIGNS) {
    it(`${design}: a client obeying Retry-After is admitted at its first retry`, () => {
      const store = new MemoryStore();
      const gw = new Gateway({ id: 'g0', design, ...opts, limit: design === 'split' ? 30 : 10 }, store);
      let nextSync = 250;
      const at = (t: number, cost = 1): Decision => {
        while (nextSync <= t) {
          gw.sync(nextSync);
          nextSync += opts.syncMs;
        }
        return gw.admit('client', t, cost);
      };
      for (let t = 0; t < 5_000; t += 500) expect(at(t).allowed).toBe(true);
      const refused = at(5_000);
      expect(refused.allowed).toBe(false);
      expect(refused.retryAfterMs).toBe(5_000);
      expect(at(5_000 + (refused.retryAfterMs ?? 0)).allowed).toBe(true);
    });
  }

  it('counts the request: two units wait for the second admit to age out', () => {
    const gw = new Gateway({ id: 'g0', design: 'shared-counter', ...opts }, new MemoryStore());
    for (let t = 0; t < 5_000; t += 500) gw.admit('client', t);
    gw.sync(5_000);
    const refused = gw.admit('client', 5_000, 2);
    expect(refused.retryAfterMs).toBe(5_500);
    expect(gw.admit('client', 10_499, 2).allowed).toBe(false);
    gw.sync(10_400);
    expect(gw.admit('client', 10_500, 2).allowed).toBe(true);
  });

  it('with a horizon shorter than Δ, its own admits are not promised before a reply lists them', () => {
    const gw = new Gateway(
      { id: 'g0', design: 'shared-counter', ...opts, horizonMs: 500 },
      new MemoryStore(),
    );
    let nextSync = 250;
    const at = (t: number): Decision => {
      while (nextSync <= t) {
        gw.sync(nextSync);
        nextSync += opts.syncMs;
      }
      return gw.admit('client', t);
    };
    for (let t = 0; t < 5_000; t += 500) at(t);
    // the admit at 0 ages out at 10 s, but the syncs at 9.25 s and 10.25 s list only to 9.75 s and
    // 10.75 s: at 10 s the gateway still counts it, so it cannot promise 10 s; it answers its next sync
    expect(at(5_000).retryAfterMs).toBe(250);
    expect(at(10_000).allowed).toBe(false);
    expect(at(10_250).allowed).toBe(true);
  });
});

describe('Retry-After is when the key admits again, not the next sync (AsyncGateway)', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('shared-counter on a MemoryStore, fake timers: the retry at Retry-After is admitted', async () => {
    vi.useFakeTimers({ now: 0 });
    const gw = createAsyncGateway({
      id: 'g0',
      design: 'shared-counter',
      ...opts,
      store: new MemoryStore(),
      clock: () => Date.now(),
      random: () => 0.25,
    });
    gw.start();
    for (let i = 0; i < 10; i++) {
      expect((await gw.admit('client')).allowed).toBe(true);
      await vi.advanceTimersByTimeAsync(500);
    }
    const refused = await gw.admit('client');
    expect(refused.allowed).toBe(false);
    expect(refused.retryAfterMs).toBe(5_000);
    await vi.advanceTimersByTimeAsync(refused.retryAfterMs ?? 0);
    expect((await gw.admit('client')).allowed).toBe(true);
    await gw.stop();
  });
});
