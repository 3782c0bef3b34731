/**
 * adaptive-early's lone request (ADAPTIVE_EARLY.loneChance): with own = 0 a request passes the part
 * only if the gateway's previous arrival on the key is at least τ = loneChance · W / (max(share, 1/K) · L)
 * old. At K = 32, L = 100, W = 60 s: τ = 0.005 · 60,000 · 32 / 100 = 96 ms.
 */
import { describe, expect, it } from 'vitest';
import { makePolicy } from '../../src/config.js';
import { ADAPTIVE_EARLY, AdaptiveEarlyKey } from '../../src/designs/adaptive-early.js';
import { ALLOW, DENY, type FleetParams } from '../../src/designs/key-limiter.js';
import { MemoryStore } from '../../src/store/memory-store.js';

const K = 32;
const p: FleetParams = {
  policy: makePolicy(100, 60_000, 'sliding'),
  gateways: K,
  syncMs: 1000,
  leaseTtlMs: 3000,
  horizonMs: 1000,
};
const tau = (ADAPTIVE_EARLY.loneChance * 60_000 * K) / 100;

/** A key at one gateway whose store already counts 90 admits (part (100 − 90)/(1.5 K) < 1), synced at t. */
function nearTheLimit(store: MemoryStore, t: number): AdaptiveEarlyKey {
  const req = (gatewayId: string) => ({
    gatewayId,
    seq: 1,
    policy: p.policy,
    leaseTtlMs: p.leaseTtlMs,
    horizonMs: p.horizonMs,
  });
  const others = Array.from({ length: 90 }, (_, i) => t - 50_000 + i);
  store.sync(
    { ...req('other'), entries: [{ key: 'k', admits: others, read: false, release: false, ask: 0 }] },
    t,
  );
  const lim = new AdaptiveEarlyKey(p, t);
  lim.applySync(store.sync({ ...req('me'), entries: [lim.syncEntry('k', t)!] }, t).replies[0], t);
  return lim;
}

/** The lone request admitted at t, a sync right after it (an early one), then a request `gap` later. */
function secondAfter(gap: number): number {
  const store = new MemoryStore();
  const t = 100_000;
  const lim = nearTheLimit(store, t);
  expect(lim.decide(t + 1, 1)).toBe(ALLOW);
  expect(lim.wantsEarlySync(t + 1)).toBe(true);
  const req = { gatewayId: 'me', seq: 2, policy: p.policy, leaseTtlMs: p.leaseTtlMs, horizonMs: p.horizonMs };
  lim.applySync(store.sync({ ...req, entries: [lim.syncEntry('k', t + 1)!] }, t + 1).replies[0], t + 1);
  return lim.decide(t + 1 + gap, 1);
}

describe('adaptive-early: a lone request is one the gateway has not just had another of', () => {
  it('τ is 96 ms at K = 32, L = 100, W = 60 s', () => {
    expect(tau).toBeCloseTo(96, 9);
  });

  it('a second request within τ of the first, own = 0 again after a sync, is held to the part', () => {
    expect(secondAfter(19)).toBe(DENY);
    expect(secondAfter(tau - 1)).toBe(DENY);
  });

  it('one at least τ after the one before is lone again, and admitted', () => {
    expect(secondAfter(tau + 1)).toBe(ALLOW);
    expect(secondAfter(500)).toBe(ALLOW);
  });

  it('a refused one does not stop the next request τ later (arrivals count, not admits)', () => {
    const store = new MemoryStore();
    const t = 100_000;
    const lim = nearTheLimit(store, t);
    expect(lim.decide(t + 200, 1)).toBe(ALLOW);
    const req = {
      gatewayId: 'me',
      seq: 2,
      policy: p.policy,
      leaseTtlMs: p.leaseTtlMs,
      horizonMs: p.horizonMs,
    };
    lim.applySync(
      store.sync({ ...req, entries: [lim.syncEntry('k', t + 200)!] }, t + 200).replies[0],
      t + 200,
    );
    expect(lim.decide(t + 210, 1)).toBe(DENY);
    // within τ of the refused one: still refused; τ after it: lone again
    expect(lim.decide(t + 210 + tau - 1, 1)).toBe(DENY);
    expect(lim.decide(t + 210 + tau - 1 + tau + 1, 1)).toBe(ALLOW);
  });
});
