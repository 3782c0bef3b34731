/**
 * adaptive's edges that Stryker found no test of (issue 32): the draw stream (seed and values, and no
 * draw taken at p = 1), the cap at the share measured rather than 1/K, ADAPTIVE.capShares = 0 (no cap),
 * a refund leaving the own log the share is measured from, and reads that follow requests (a decide
 * or a rejection makes the next sync read the key; a key whose own admits still count is not idle).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { makePolicy } from '../../src/config.js';
import { ADAPTIVE, AdaptiveKey } from '../../src/designs/adaptive.js';
import { ALLOW, type FleetParams } from '../../src/designs/key-limiter.js';
import type { SyncReply } from '../../src/store/contract.js';

const DELTA = 1000;

function params(limit: number, gateways: number, windowMs = 60 * DELTA, readsOnRequest = false): FleetParams {
  return {
    policy: makePolicy(limit, windowMs),
    gateways,
    syncMs: DELTA,
    leaseTtlMs: 3 * DELTA,
    horizonMs: DELTA,
    readsOnRequest,
  };
}

function reply(now: number, count: number): SyncReply {
  return { count, expiries: [], horizon: now + DELTA, granted: 0, grantExpiresAt: 0 };
}

function sync(lim: AdaptiveKey, now: number, count: number): void {
  lim.syncEntry('k', now);
  lim.applySync(reply(now, count), now);
}

/** The key's draws, one at a time. */
class Probe extends AdaptiveKey {
  draw(): number {
    return this.uniform();
  }
}

describe('adaptive: the draws', () => {
  it('a key made at 0 draws this fixed stream (a simulation is reproducible from it)', () => {
    const p = new Probe(params(100, 4), 0);
    // splitmix32 of 0 seeds xorshift32; each draw is (x + 0.5) / 2³²
    expect([p.draw(), p.draw(), p.draw()]).toEqual([
      0.1967024792684242, 0.2663523278897628, 0.6196988202864304,
    ]);
  });

  it('keys made a millisecond apart draw different streams', () => {
    const a = new Probe(params(100, 4), 0);
    const b = new Probe(params(100, 4), 1);
    expect(b.draw()).not.toBe(a.draw());
    // a fraction of a millisecond apart too (the instant is taken at 1/1024 ms)
    const c = new Probe(params(100, 4), 0.5);
    expect(c.draw()).not.toBe(new Probe(params(100, 4), 0).draw());
  });

  it('a request admitted at p = 1 takes no draw: the stream is where it was', () => {
    const twin = new Probe(params(100, 4), 0);
    const p = new Probe(params(100, 4), 0);
    // no arrivals counted before: the rate is 0, p = 1
    expect(p.admitProbability(0, 100)).toBe(1);
    for (let i = 0; i < 3; i++) expect(p.decide(i * DELTA, 1)).toBe(ALLOW);
    expect(p.draw()).toBe(twin.draw());
  });
});

describe('adaptive: the cap', () => {
  afterEach(() => {
    ADAPTIVE.capShares = 4;
  });

  it('between two syncs, at the share measured when it is above 1/K', () => {
    // K = 8, W = 600 s, L = 100: 2 own admits of the store's 10, share 0.2 (above 1/8)
    const lim = new AdaptiveKey(params(100, 8, 600 * DELTA), 0);
    expect(lim.decide(0, 1)).toBe(ALLOW);
    expect(lim.decide(0, 1)).toBe(ALLOW);
    sync(lim, 100, 10);
    expect(lim.measuredShare).toBeCloseTo(0.2, 15);
    // cap 4 · 0.2 · (100 − 10) = 72 (at 1/K it would be 45); arrivals 2 s apart stay far below a
    // flood, so no request is thinned
    let n = 0;
    while (n < 100 && lim.decide(2 * DELTA * (n + 1), 1) === ALLOW) n++;
    expect(n).toBe(72);
  });

  it('capShares 0: no cap, the headroom alone decides', () => {
    ADAPTIVE.capShares = 0;
    // the cap test's key, K = 8, L = 100, 60 seen: the cap would stop it at 20
    const lim = new AdaptiveKey(params(100, 8, 600 * DELTA), 0);
    sync(lim, 0, 60);
    let n = 0;
    while (n < 100 && lim.decide(5 * DELTA * (n + 1), 1) === ALLOW) n++;
    expect(n).toBe(40);
    expect(lim.retryAt(5 * DELTA * 41, 1, 5 * DELTA * 41 + DELTA)).toBe(Number.POSITIVE_INFINITY);
  });
});

describe('adaptive: refunds and reads that follow requests', () => {
  it('an own admit taken back before its push leaves the log the share is measured from', () => {
    const lim = new AdaptiveKey(params(100, 4), 0);
    for (let i = 0; i < 3; i++) expect(lim.decide(100, 1)).toBe(ALLOW);
    expect(lim.takeBack(100, 1, 150)).toBe('local');
    sync(lim, 200, 10);
    expect(lim.measuredShare).toBeCloseTo(0.2, 15);
  });

  it('a decide or a rejection since the last read makes the next sync read a quiet key', () => {
    const lim = new AdaptiveKey(params(100, 4, 60 * DELTA, true), 0);
    sync(lim, 0, 10);
    expect(lim.readDue(10)).toBe(false);
    expect(lim.decide(20, 1)).toBe(ALLOW);
    expect(lim.readDue(30)).toBe(true);
    sync(lim, 1000, 11);
    expect(lim.readDue(1010)).toBe(false);
    lim.noteRejected(1, 1020);
    expect(lim.readDue(1030)).toBe(true);
    sync(lim, 2000, 11);
    expect(lim.readDue(2010)).toBe(false);
  });

  it('reads on request: a key is idle once its own admits age out, with no sync to age them', () => {
    const W = 10 * DELTA;
    const lim = new AdaptiveKey(params(10, 2, W, true), 0);
    expect(lim.decide(100, 1)).toBe(ALLOW);
    sync(lim, 200, 1);
    expect(lim.isIdle(300)).toBe(false);
    expect(lim.isIdle(100 + W - 1)).toBe(false);
    // the key is read no more: isIdle ages the own log (a sync would, with every read)
    expect(lim.isIdle(100 + W)).toBe(true);
  });
});
