/**
 * SyncedKey's own admits a reply counts past its horizon (`late`; issue 32: Stryker found `keepLate`,
 * `listLate` and `liveInflight` tested only through whole designs): which pushes are kept and when
 * they are dropped, the view's list with reads on request (the reply's expiries, then the late ones at
 * or past its horizon, with counts only where one is not 1, sorted when a clock went back), and the
 * in-flight admits a reply is weighed against (a slot freed, or only weights swapped).
 */
import { describe, expect, it } from 'vitest';
import { AssumeOthersKey, type SharedCounterKey } from '../../src/designs/synced.js';
import type { SyncReply } from '../../src/store/contract.js';
import { Probe, params, W } from './late-probe.js';

/** A sync at `now` whose reply counts `count`, lists `expiries` (`counts`), with horizon `horizon`. */
function sync(
  lim: SharedCounterKey,
  now: number,
  count: number,
  horizon: number,
  expiries: number[] = [],
  counts?: number[],
): void {
  lim.syncEntry('k', now);
  const reply: SyncReply = { count, expiries, horizon, granted: 0, grantExpiresAt: 0 };
  if (counts !== undefined) reply.expiryCounts = counts;
  lim.applySync(reply, now);
}

describe('SyncedKey: the pushes kept past the horizon', () => {
  it('a push is kept while its last expiry is at or past a reply’s horizon, dropped once before it', () => {
    const lim = new Probe(params(false));
    lim.decide(100, 1);
    lim.decide(200, 2);
    sync(lim, 300, 3, 400);
    expect(lim.lateRuns()).toEqual([
      [
        [100, 200],
        [1, 2],
      ],
    ]);
    lim.decide(500, 1);
    sync(lim, 600, 4, 700);
    expect(lim.lateRuns()).toEqual([
      [
        [100, 200],
        [1, 2],
      ],
      [[500], undefined],
    ]);
    // a horizon at the first push's last expiry: kept
    sync(lim, 700, 4, 10_200);
    expect(lim.lateRuns()).toEqual([
      [
        [100, 200],
        [1, 2],
      ],
      [[500], undefined],
    ]);
    // past it: dropped, the second kept
    sync(lim, 800, 4, 10_201);
    expect(lim.lateRuns()).toEqual([[[500], undefined]]);
    // past every one: none
    sync(lim, 900, 4, 10_501);
    expect(lim.lateRuns()).toBeNull();
  });

  it('a push whose last expiry is the reply’s horizon is kept; one before it, not', () => {
    const lim = new Probe(params(false));
    lim.decide(100, 1);
    sync(lim, 300, 1, 100 + W);
    expect(lim.lateRuns()).toEqual([[[100], undefined]]);
    const before = new Probe(params(false));
    before.decide(100, 1);
    sync(before, 300, 1, 101 + W, [100 + W]);
    expect(before.lateRuns()).toBeNull();
    // a sync with nothing to push keeps nothing
    const none = new Probe(params(false));
    sync(none, 300, 0, 400);
    expect(none.lateRuns()).toBeNull();
  });
});

describe('SyncedKey: the view lists its late admits (reads on request)', () => {
  it('after the reply’s expiries, without counts when every run holds one', () => {
    const lim = new Probe(params(true));
    lim.decide(100, 1);
    lim.decide(200, 1);
    sync(lim, 300, 4, 6000, [5000, 5500]);
    expect(lim.view()).toEqual({ expiries: [5000, 5500, 10_100, 10_200], counts: undefined });
    expect(lim.known(5000)).toBe(3);
    expect(lim.known(10_100)).toBe(1);
  });

  it('with counts: the late runs’, or the reply’s', () => {
    const own = new Probe(params(true));
    own.decide(100, 1);
    own.decide(200, 2);
    sync(own, 300, 4, 6000, [5000]);
    expect(own.view()).toEqual({ expiries: [5000, 10_100, 10_200], counts: [1, 1, 2] });
    const store = new Probe(params(true));
    store.decide(100, 1);
    sync(store, 300, 3, 6000, [5000], [2]);
    expect(store.view()).toEqual({ expiries: [5000, 10_100], counts: [2, 1] });
    expect(store.known(5000)).toBe(1);
  });

  it('a run of one with counts told (after a refund) lists no counts', () => {
    const lim = new Probe(params(true));
    lim.decide(100, 2);
    expect(lim.takeBack(100, 1, 150)).toBe('local');
    sync(lim, 300, 1, 400);
    expect(lim.lateRuns()).toEqual([[[100], undefined]]);
    expect(lim.view()).toEqual({ expiries: [10_100], counts: undefined });
  });

  it('only those at or past the horizon: the reply lists the others', () => {
    const lim = new Probe(params(true));
    lim.decide(100, 1);
    lim.decide(5000, 1);
    sync(lim, 5100, 2, 5200);
    sync(lim, 6000, 2, 12_000, [10_100]);
    expect(lim.view()).toEqual({ expiries: [10_100, 15_000], counts: undefined });
    // at the horizon: listed as its own
    const at = new Probe(params(true));
    at.decide(100, 1);
    at.decide(5000, 1);
    sync(at, 5100, 2, 5200);
    sync(at, 6000, 2, 15_000, [10_100]);
    expect(at.view()).toEqual({ expiries: [10_100, 15_000], counts: undefined });
    // a reply that lists them all: the view is the reply's
    const all = new Probe(params(true));
    all.decide(100, 1);
    sync(all, 300, 1, 400);
    sync(all, 500, 1, 10_101, [10_100], [1]);
    expect(all.view()).toEqual({ expiries: [10_100], counts: [1] });
  });

  it('sorted when the clock went back between two pushes', () => {
    const lim = new Probe(params(true));
    lim.decide(5000, 1);
    sync(lim, 5100, 1, 5200);
    lim.decide(3000, 2);
    sync(lim, 5200, 4, 5300, [4000]);
    expect(lim.view()).toEqual({ expiries: [4000, 13_000, 15_000], counts: [1, 2, 1] });
    expect(lim.known(13_000)).toBe(1);
    const ones = new Probe(params(true));
    ones.decide(5000, 1);
    sync(ones, 5100, 1, 5200);
    ones.decide(3000, 1);
    sync(ones, 5200, 2, 5300);
    expect(ones.view()).toEqual({ expiries: [13_000, 15_000], counts: undefined });
  });

  it('none when the reply counts fewer than its list and them (a reset): the view holds what it counts', () => {
    const lim = new Probe(params(true));
    lim.decide(100, 2);
    sync(lim, 300, 1, 400);
    expect(lim.lateRuns()).toBeNull();
    expect(lim.view()).toEqual({ expiries: [], counts: undefined });
    expect(lim.known(100 + W)).toBe(1);
    // a count that holds them: listed
    const all = new Probe(params(true));
    all.decide(100, 2);
    sync(all, 300, 2, 400);
    expect(all.view()).toEqual({ expiries: [10_100], counts: [2] });
  });

  it('without reads on request the view is the reply’s list', () => {
    const lim = new Probe(params(false));
    lim.decide(100, 1);
    sync(lim, 300, 2, 6000, [5000]);
    expect(lim.view()).toEqual({ expiries: [5000], counts: undefined });
  });
});

describe('SyncedKey: a reply weighed against the admits it carried', () => {
  // assume-others at K = 2: 4 own admits count 8 until a reply counts them once. The admits at 0 and
  // 10 (3 of them) age out by W + 10; the reply then counts the one at 50 alone
  function carried(): AssumeOthersKey {
    const lim = new AssumeOthersKey(params(false, 20));
    lim.decide(0, 2);
    lim.decide(10, 1);
    lim.decide(50, 1);
    lim.syncEntry('k', 100);
    expect(lim.remaining(100)).toBe(12);
    expect(lim.remaining(W + 10)).toBe(18);
    return lim;
  }

  it('counting what it carried that still counts: only weights swapped, no rise shown', () => {
    const lim = carried();
    lim.applySync({ count: 1, expiries: [], horizon: W + 110, granted: 0, grantExpiresAt: 0 }, W + 10);
    expect(lim.estimate(W + 10)).toBe(1);
    expect(lim.remaining(W + 10)).toBe(18);
  });

  it('counting fewer: a slot freed, shown', () => {
    const lim = carried();
    lim.applySync({ count: 0, expiries: [], horizon: W + 110, granted: 0, grantExpiresAt: 0 }, W + 10);
    expect(lim.remaining(W + 10)).toBe(20);
  });
});
