/**
 * adaptive-early's reading of the others' admits and its lone rule, driven one key at a time with
 * chosen sync replies (issue 32: Stryker found these reached only through the simulator's worst
 * windows). The thinning admits a request finding headroom h with probability min(1, h / (R · B)),
 * B the blind span and R the fleet's rate: at least the others' admit rate read from the store's
 * count (its lower bound n − 1.3·√n over the time since the last read that found growth, decaying
 * over Δ, standing for 4 Δ of the blind span) plus the gateway's own arrival rate.
 */
import { describe, expect, it } from 'vitest';
import { makePolicy } from '../../src/config.js';
import { ADAPTIVE_EARLY, AdaptiveEarlyKey } from '../../src/designs/adaptive-early.js';
import { ALLOW, DENY, type FleetParams } from '../../src/designs/key-limiter.js';
import type { SyncReply } from '../../src/store/contract.js';

const DELTA = 1000;
// W = 12 Δ: the blind span is W/6 = 2 Δ, not 4 Δ, so the others' rate counts twice in it
const W = 12 * DELTA;
const BLIND = W / 6;
const p: FleetParams = {
  policy: makePolicy(100, W),
  gateways: 2,
  syncMs: DELTA,
  leaseTtlMs: 3 * DELTA,
  horizonMs: DELTA,
};

function sync(lim: AdaptiveEarlyKey, now: number, count: number, expiries: number[] = []): void {
  lim.syncEntry('k', now);
  const reply: SyncReply = { count, expiries, horizon: now + DELTA, granted: 0, grantExpiresAt: 0 };
  lim.applySync(reply, now);
}

/** The others' rate per ms read from `n` admits over `ms`: its lower bound n − 1.3·√n. */
const othersRate = (n: number, ms: number) => (n - ADAPTIVE_EARLY.zOthers * Math.sqrt(n)) / ms;
/** The thinning's probability for headroom h with fleet rate r (per ms). */
const prob = (h: number, r: number) => Math.min(1, h / (r * BLIND));
/** The others' rate as the thinning counts it: 4 Δ of it over the blind span. */
const scaled = (r: number) => (r * ADAPTIVE_EARLY.othersBlindSyncs * DELTA) / BLIND;

describe('adaptive-early: the others’ admit rate, read from the store’s count', () => {
  it('the first read sets where growth is measured from: no rate from it', () => {
    const lim = new AdaptiveEarlyKey(p, 0);
    sync(lim, 0, 20);
    expect(lim.admitProbability(0, 10)).toBe(1);
    expect(lim.admitProbability(500, 10)).toBe(1);
  });

  it('growth at the next read is the others’ rate, taken as n − 1.3·√n over the time since', () => {
    const lim = new AdaptiveEarlyKey(p, 0);
    sync(lim, 0, 0);
    sync(lim, DELTA, 20);
    const r = othersRate(20, DELTA);
    expect(lim.admitProbability(DELTA, 10)).toBeCloseTo(prob(10, scaled(r)), 12);
    // it decays with a time constant of Δ
    expect(lim.admitProbability(2 * DELTA, 10)).toBeCloseTo(prob(10, scaled(r) * Math.exp(-1)), 12);
    expect(lim.admitProbability(3 * DELTA, 10)).toBeCloseTo(prob(10, scaled(r) * Math.exp(-2)), 12);
  });

  it('a read that finds no growth leaves the rate, and the next one measures from the last growth', () => {
    const lim = new AdaptiveEarlyKey(p, 0);
    sync(lim, 0, 0);
    sync(lim, DELTA, 0);
    expect(lim.admitProbability(DELTA, 10)).toBe(1);
    sync(lim, 2 * DELTA, 20);
    // 20 over 2 Δ (from the first read), not over Δ
    const r = othersRate(20, 2 * DELTA);
    expect(lim.admitProbability(2 * DELTA, 10)).toBeCloseTo(prob(10, scaled(r)), 12);
    // a later read without growth keeps that rate, decaying from when it was read
    sync(lim, 3 * DELTA, 20);
    expect(lim.admitProbability(3 * DELTA, 10)).toBeCloseTo(prob(10, scaled(r) * Math.exp(-1)), 12);
    // and the next growth is measured from 2 Δ, the last read that found some
    sync(lim, 4 * DELTA, 40);
    const r2 = othersRate(20, 2 * DELTA);
    expect(lim.admitProbability(4 * DELTA, 10)).toBeCloseTo(prob(10, scaled(r2)), 12);
  });

  it('a read at the instant of the one before gives no rate (no time to divide by)', () => {
    const lim = new AdaptiveEarlyKey(p, 0);
    sync(lim, 0, 0);
    sync(lim, 0, 20);
    expect(lim.admitProbability(0, 10)).toBe(1);
  });

  it('a growth of one or two admits is no rate: its lower bound is not above 0', () => {
    const lim = new AdaptiveEarlyKey(p, 0);
    sync(lim, 0, 0);
    sync(lim, DELTA, 1);
    expect(lim.admitProbability(DELTA, 1)).toBe(1);
    sync(lim, 2 * DELTA, 21);
    // a rate is read from 20 over Δ once there is one
    expect(lim.admitProbability(2 * DELTA, 10)).toBeCloseTo(prob(10, scaled(othersRate(20, DELTA))), 12);
  });

  it('the growth is the count less the known admits still counting and less own pushes', () => {
    const lim = new AdaptiveEarlyKey(p, 0);
    // 20 at the first read, 10 of them leaving at 600
    sync(
      lim,
      0,
      20,
      Array.from({ length: 10 }, () => 600),
    );
    for (let i = 0; i < 3; i++) expect(lim.decide(500, 1)).toBe(ALLOW);
    // the count at Δ: 10 known still counting, 3 pushed, 15 of the others'
    sync(lim, DELTA, 28);
    const r = othersRate(15, DELTA);
    // 3 own arrivals at 500 have a lower bound of 0: the rate is the others' alone
    expect(lim.arrivalRate(DELTA)).toBe(0);
    expect(lim.admitProbability(DELTA, 4)).toBeCloseTo(prob(4, scaled(r)), 12);
  });

  it('the fleet rate is the others’ plus own arrivals, or own alone over the share when that is more', () => {
    const lim = new AdaptiveEarlyKey(p, 0);
    sync(lim, 0, 0);
    sync(lim, DELTA, 20);
    const others = scaled(othersRate(20, DELTA));
    lim.noteRejected(50, DELTA);
    const own = lim.arrivalRate(DELTA);
    expect(own).toBeCloseTo((50 - 2 * Math.sqrt(50)) / (2.5 * DELTA), 12);
    // own / max(share, 1/K) = 2 · own is less than others + own here
    expect(2 * own).toBeLessThan(others + own);
    expect(lim.admitProbability(DELTA, 10)).toBeCloseTo(prob(10, others + own), 12);

    const few = new AdaptiveEarlyKey(p, 0);
    sync(few, 0, 0);
    sync(few, DELTA, 3);
    const fewOthers = scaled(othersRate(3, DELTA));
    few.noteRejected(50, DELTA);
    expect(2 * own).toBeGreaterThan(fewOthers + own);
    expect(few.admitProbability(DELTA, 10)).toBeCloseTo(prob(10, 2 * own), 12);
  });

  it('with one gateway there is nothing to thin: every draw admits', () => {
    const lim = new AdaptiveEarlyKey({ ...p, gateways: 1 }, 0);
    sync(lim, 0, 0);
    sync(lim, DELTA, 50);
    lim.noteRejected(50, DELTA);
    expect(lim.admitProbability(DELTA, 1)).toBe(1);
  });
});

describe('adaptive-early: a gateway alone, then joined (gateways: auto)', () => {
  it('reads no others’ rate and moves no part while K = 1; from K = 2 on, from its next read', () => {
    // the runtime sets K in the params its keys read (LiveFleetParams)
    const live = { ...p, gateways: 1 };
    const lim = new AdaptiveEarlyKey(live, 0);
    sync(lim, 0, 0);
    sync(lim, DELTA, 20);
    live.gateways = 2;
    // the first read at K = 2 sets where growth is measured from: no rate, p = 1
    sync(lim, DELTA, 20);
    expect(lim.measuredShare).toBe(1 / 8);
    expect(lim.admitProbability(DELTA, 10)).toBe(1);
  });

  it('moves no part while K = 1: from K = 2 on, the part’s share moves from its first read there', () => {
    const live = { ...p, policy: makePolicy(30, 60_000), gateways: 1 };
    const lim = new AdaptiveEarlyKey(live, 0);
    sync(lim, 0, 0);
    sync(lim, DELTA, 20);
    live.gateways = 2;
    // half a window later, the first read at K = 2 (share measured 1/8): the part's share is still 1,
    // the share the key was made with; part (30 − 20) · 1 / 1.5 = 6.7, not 4.4 (moved toward 1/8)
    sync(lim, 30_000, 20);
    expect(lim.measuredShare).toBe(1 / 8);
    let n = 0;
    while (n < 10 && lim.decide(30_001, 1) === ALLOW) n++;
    expect(n).toBe(6);
  });
});

describe('adaptive-early: a lone request (own = 0 past a part below one)', () => {
  // L = 4, K = 2: τ = 0.005 · W / (max(share, 1/K) · L)
  const q: FleetParams = { ...p, policy: makePolicy(4, 60_000) };
  const tauAt = (share: number) => (ADAPTIVE_EARLY.loneChance * 60_000) / (Math.max(share, 0.5) * 4);

  it('is refused within τ of the arrival before it when the part is below one', () => {
    const lim = new AdaptiveEarlyKey(q, 0);
    // the others' 2: part (4 − 2) · 0.5 / 1.5 = 0.67; share measured 1/8, τ = 150 ms
    sync(lim, 0, 2);
    expect(tauAt(lim.measuredShare)).toBe(150);
    lim.noteRejected(1, 10);
    expect(lim.decide(10 + 149, 1)).toBe(DENY);
    const later = new AdaptiveEarlyKey(q, 0);
    sync(later, 0, 2);
    later.noteRejected(1, 10);
    expect(later.decide(10 + 151, 1)).toBe(ALLOW);
    // τ after it exactly: lone
    const at = new AdaptiveEarlyKey(q, 0);
    sync(at, 0, 2);
    at.noteRejected(1, 10);
    expect(at.decide(10 + 150, 1)).toBe(ALLOW);
  });

  it('a part of exactly one is no lone case: the request is admitted however close', () => {
    const lim = new AdaptiveEarlyKey(q, 0);
    // the others' 1: part (4 − 1) · 0.5 / 1.5 = 1
    sync(lim, 0, 1);
    lim.noteRejected(1, 10);
    expect(lim.decide(11, 1)).toBe(ALLOW);
  });

  it('a round of one pushed admit holds back the others’ parts too: the part falls below one', () => {
    // K = 8, L = 100: τ = 0.005 · 60,000 / (1/8 · 100) = 24 ms
    const k8: FleetParams = { ...p, policy: makePolicy(100, 60_000), gateways: 8 };
    const lim = new AdaptiveEarlyKey(k8, 0);
    // the others' 84: part 16 / 12 = 1.33; one lone admit spends it (1 + 1 > 1.33)
    sync(lim, 0, 84);
    expect(lim.decide(100, 1)).toBe(ALLOW);
    // a round 10 ms later: held back 7 · 1 − 0, part (100 − 85 − 7) / 12 = 0.67 < 1 (15 / 12 ≥ 1 without)
    sync(lim, 110, 85);
    // a request 20 ms after the one before is not lone: refused
    expect(lim.decide(120, 1)).toBe(DENY);
  });

  it('τ shrinks as the measured share grows past 1/K', () => {
    // every admit the store counts is this gateway's: share 1, τ = 75 ms (150 ms at 1/K)
    const lim = new AdaptiveEarlyKey(q, 0);
    sync(lim, 0, 0);
    expect(lim.decide(10, 1)).toBe(ALLOW);
    sync(lim, 10 + DELTA, 1);
    expect(lim.measuredShare).toBe(1);
    // part (4 − 1) · ~0.508 / 1.5 ≥ 1
    expect(lim.decide(20 + DELTA, 1)).toBe(ALLOW);
    sync(lim, 30 + DELTA, 2);
    expect(lim.measuredShare).toBe(1);
    // part (4 − 2 − 1) · ~0.5 / 1.5 < 1, the last arrival at 20 + Δ: refused within 75 ms of it
    expect(lim.decide(20 + DELTA + 74, 1)).toBe(DENY);
    expect(lim.decide(20 + DELTA + 74 + 100, 1)).toBe(ALLOW);
  });
});
