/**
 * adaptive, one key at a time with chosen sync replies (issue 32: Stryker found its rate estimate, its
 * share and its cap reached only through the simulator's totals). A request finding headroom h is
 * admitted with probability min(1, h / A), A = (own arrival rate) / max(share, 1/K) × B, the rate a
 * lower bound (n − 1.3·√n) / τ of a count decaying over τ = 6 Δ, B = min(4 Δ, W/6); and at most
 * max(1, 4 · max(share, 1/K) · (L − known)) own admits between two syncs.
 */
import { describe, expect, it } from 'vitest';
import { makePolicy } from '../../src/config.js';
import { ADAPTIVE, AdaptiveKey } from '../../src/designs/adaptive.js';
import { ALLOW, DENY, type FleetParams } from '../../src/designs/key-limiter.js';
import type { SyncReply } from '../../src/store/contract.js';

const DELTA = 1000;
const TAU = ADAPTIVE.rateSyncs * DELTA;

function params(limit: number, gateways: number, windowMs = 60 * DELTA): FleetParams {
  return {
    policy: makePolicy(limit, windowMs),
    gateways,
    syncMs: DELTA,
    leaseTtlMs: 3 * DELTA,
    horizonMs: DELTA,
  };
}

function sync(lim: AdaptiveKey, now: number, count: number): void {
  lim.syncEntry('k', now);
  const reply: SyncReply = { count, expiries: [], horizon: now + DELTA, granted: 0, grantExpiresAt: 0 };
  lim.applySync(reply, now);
}

/** The rate's lower bound for a count n, per ms. */
const rate = (n: number) => Math.max(0, n - ADAPTIVE.z * Math.sqrt(n)) / TAU;

describe('adaptive: the arrival rate', () => {
  it('is the count’s lower bound n − 1.3·√n over τ, decaying with time constant τ', () => {
    const lim = new AdaptiveKey(params(100, 4), 0);
    expect(lim.arrivalRate(0)).toBe(0);
    lim.noteRejected(50, 1000);
    expect(lim.arrivalRate(1000)).toBeCloseTo(rate(50), 15);
    expect(lim.arrivalRate(1000 + TAU)).toBeCloseTo(rate(50 * Math.exp(-1)), 15);
    // more arrivals later add to the decayed count
    lim.noteRejected(10, 1000 + TAU);
    expect(lim.arrivalRate(1000 + TAU)).toBeCloseTo(rate(50 * Math.exp(-1) + 10), 15);
    // a few arrivals are not a flood: 1 − 1.3 < 0
    const one = new AdaptiveKey(params(100, 4), 0);
    one.noteRejected(1, 0);
    expect(one.arrivalRate(0)).toBe(0);
  });

  it('a clock that went back adds arrivals without decaying, and decays from the latest instant', () => {
    const lim = new AdaptiveKey(params(100, 4), 0);
    lim.noteRejected(30, 5000);
    lim.noteRejected(20, 4000);
    expect(lim.arrivalRate(5000)).toBeCloseTo(rate(50), 15);
    expect(lim.arrivalRate(5000 + TAU)).toBeCloseTo(rate(50 * Math.exp(-1)), 15);
  });
});

describe('adaptive: the share and the draw', () => {
  it('the share is own admits in the window over the store’s count, within [1/(4K), 1]', () => {
    const lim = new AdaptiveKey(params(100, 4), 0);
    expect(lim.measuredShare).toBe(0.25);
    for (let i = 0; i < 3; i++) expect(lim.decide(100, 1)).toBe(ALLOW);
    sync(lim, 200, 10);
    expect(lim.measuredShare).toBeCloseTo(0.3, 15);
    sync(lim, 300, 100);
    expect(lim.measuredShare).toBe(1 / 16);
    sync(lim, 400, 2);
    expect(lim.measuredShare).toBe(1);
    // a read of nothing leaves it
    sync(lim, 500, 0);
    expect(lim.measuredShare).toBe(1);
    const none = new AdaptiveKey(params(100, 4), 0);
    sync(none, 0, 40);
    expect(none.measuredShare).toBe(1 / 16);
    sync(none, 100, 0);
    expect(none.measuredShare).toBe(1 / 16);
  });

  it('admits made after the sync was taken are not in its count', () => {
    const lim = new AdaptiveKey(params(100, 4), 0);
    for (let i = 0; i < 3; i++) expect(lim.decide(100, 1)).toBe(ALLOW);
    lim.syncEntry('k', 200);
    // two more while the sync is out: the reply counts 3 of own and 3 of the others'
    expect(lim.decide(250, 1)).toBe(ALLOW);
    expect(lim.decide(250, 1)).toBe(ALLOW);
    lim.applySync({ count: 6, expiries: [], horizon: 1200, granted: 0, grantExpiresAt: 0 }, 300);
    expect(lim.measuredShare).toBeCloseTo(0.5, 15);
  });

  it('with one gateway the share is 1 whatever a reply says: every draw admits', () => {
    const lim = new AdaptiveKey(params(100, 1), 0);
    sync(lim, 0, 50);
    expect(lim.measuredShare).toBe(1);
    lim.noteRejected(200, 100);
    expect(lim.admitProbability(100, 1)).toBe(1);
  });

  it('p = h / (rate / max(share, 1/K) × B), B = min(4 Δ, W/6)', () => {
    // W = 12 Δ: B = 2 Δ
    const lim = new AdaptiveKey(params(100, 4, 12 * DELTA), 0);
    sync(lim, 0, 40);
    // share 1/16 counts as 1/4
    lim.noteRejected(100, 500);
    const fleet = (rate(100) / 0.25) * 2 * DELTA;
    expect(lim.admitProbability(500, 10)).toBeCloseTo(10 / fleet, 12);
    expect(lim.admitProbability(500, 2 * fleet)).toBe(1);
    expect(lim.admitProbability(500, fleet)).toBe(1);
    // W = 60 Δ: B = 4 Δ
    const wide = new AdaptiveKey(params(100, 4), 0);
    sync(wide, 0, 40);
    wide.noteRejected(100, 500);
    expect(wide.admitProbability(500, 10)).toBeCloseTo(10 / ((rate(100) / 0.25) * 4 * DELTA), 12);
  });

  it('a thinned request is a DENY that says the next one may differ; the draws are the key’s own stream', () => {
    const lim = new AdaptiveKey(params(100, 4), 0);
    sync(lim, 0, 50);
    // a flood at this gateway: p well below 1
    lim.noteRejected(400, 1000);
    const verdicts: number[] = [];
    for (let i = 0; i < 40; i++) verdicts.push(lim.decide(1000, 1));
    const admitted = verdicts.filter((v) => v === ALLOW).length;
    expect(admitted).toBeGreaterThan(0);
    expect(admitted).toBeLessThan(20);
    // the same key made at the same instant draws the same
    const twin = new AdaptiveKey(params(100, 4), 0);
    sync(twin, 0, 50);
    twin.noteRejected(400, 1000);
    for (const v of verdicts) expect(twin.decide(1000, 1)).toBe(v);
    // the last DENY was a draw: the next arrival may be decided otherwise at once
    const last = new AdaptiveKey(params(100, 4), 0);
    sync(last, 0, 50);
    last.noteRejected(400, 1000);
    let v = last.decide(1000, 1);
    while (v === ALLOW) v = last.decide(1000, 1);
    expect(last.nextChangeAt(1000)).toBe(1000);
    expect(last.nextChangeAt(1001)).toBeGreaterThan(1001);
  });
});

describe('adaptive: the cap between two syncs', () => {
  it('4 × max(share, 1/K) of the headroom seen, at least 1, while the key is shared', () => {
    // K = 8, L = 100: 4 · 1/8 · (100 − 60) = 20
    const lim = new AdaptiveKey(params(100, 8), 0);
    sync(lim, 0, 60);
    let n = 0;
    while (lim.decide(5000 + n * 1000, 1) === ALLOW) n++;
    expect(n).toBe(20);
    // the key full but for a little: at least 1, 4 · 1/8 · 1 = 0.5
    const tight = new AdaptiveKey(params(100, 8), 0);
    sync(tight, 0, 99);
    expect(tight.decide(5000, 1)).toBe(ALLOW);
    expect(tight.decide(6000, 1)).toBe(DENY);
  });

  it('Retry-After: after a sync whose share is not known yet, the cap at 1/K', () => {
    const lim = new AdaptiveKey(params(100, 8), 0);
    sync(lim, 0, 60);
    for (let i = 0; i < 20; i++) expect(lim.decide(5000 + i * 1000, 1)).toBe(ALLOW);
    expect(lim.decide(25_000, 1)).toBe(DENY);
    // over the cap, headroom left: the next sync lets it admit
    expect(lim.retryAt(25_000, 1, 26_000)).toBe(26_000);
    // a cost the headroom after the sync cannot hold waits for the store's admits to leave
    // after the sync the cap is 4 · 1/8 · (100 − 80) = 10 (not at the share measured, 1/32)
    expect(lim.retryAt(25_000, 10, 26_000)).toBe(26_000);
    expect(lim.retryAt(25_000, 11, 26_000)).toBe(Number.POSITIVE_INFINITY);
    expect(lim.retryAt(25_000, 21, 26_000)).toBe(Number.POSITIVE_INFINITY);
    // one own admit short of the cap: now
    const short = new AdaptiveKey(params(100, 8), 0);
    sync(short, 0, 60);
    for (let i = 0; i < 19; i++) expect(short.decide(5000 + i * 1000, 1)).toBe(ALLOW);
    expect(short.retryAt(24_000, 1, 26_000)).toBe(24_000);
    expect(short.retryAt(24_000, 2, 26_000)).toBe(26_000);
  });

  it('Retry-After with one gateway: now while the headroom holds the cost', () => {
    const lim = new AdaptiveKey(params(10, 1), 0);
    sync(lim, 0, 7);
    expect(lim.decide(100, 1)).toBe(ALLOW);
    expect(lim.decide(100, 1)).toBe(ALLOW);
    expect(lim.retryAt(200, 1, 1000)).toBe(200);
    expect(lim.retryAt(200, 2, 1000)).toBe(Number.POSITIVE_INFINITY);
  });

  it('no cap with one gateway', () => {
    const lim = new AdaptiveKey(params(10, 1), 0);
    sync(lim, 0, 0);
    for (let i = 0; i < 10; i++) expect(lim.decide(100, 1)).toBe(ALLOW);
    expect(lim.decide(100, 1)).toBe(DENY);
  });

  it('is idle only once a sync found its own admits out of the window', () => {
    const lim = new AdaptiveKey(params(10, 2, 10 * DELTA), 0);
    expect(lim.decide(100, 1)).toBe(ALLOW);
    sync(lim, 200, 0);
    expect(lim.isIdle(100 + 10 * DELTA - 1)).toBe(false);
    sync(lim, 100 + 10 * DELTA - 1, 0);
    expect(lim.isIdle(100 + 10 * DELTA - 1)).toBe(false);
    sync(lim, 100 + 10 * DELTA, 0);
    expect(lim.isIdle(100 + 10 * DELTA)).toBe(true);
  });
});
