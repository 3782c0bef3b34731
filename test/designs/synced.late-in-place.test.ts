/**
 * With reads on request the view reads its late runs in place (SyncedView.tail), where it copied
 * them after the reply's expiries at every read: it must decide as that copy did, also where `late`
 * is written into while the view stands (a refund the store takes back) and where the list is wanted
 * whole (Retry-After, materialize).
 */
import { describe, expect, it } from 'vitest';
import type { SharedCounterKey } from '../../src/designs/synced.js';
import type { SyncReply } from '../../src/store/contract.js';
import { Probe, params } from './late-probe.js';

/** A sync at `now` whose reply counts `count`, lists nothing, with horizon `horizon`. */
function sync(lim: SharedCounterKey, now: number, count: number, horizon: number): void {
  lim.syncEntry('k', now);
  const reply: SyncReply = { count, expiries: [], horizon, granted: 0, grantExpiresAt: 0 };
  lim.applySync(reply, now);
}

describe('SyncedKey: late runs read in place (reads on request)', () => {
  it('a refund the store takes back leaves the standing view as it was', () => {
    const lim = new Probe(params(true));
    lim.decide(100, 1);
    lim.decide(200, 1);
    sync(lim, 300, 2, 400);
    expect(lim.takeBack(100, 1, 500)).toBe('store');
    expect(lim.lateRuns()).toEqual([[[200], undefined]]);
    // the view still holds the refunded admit until a reply no longer counts it
    expect(lim.view()).toEqual({ expiries: [10_100, 10_200], counts: undefined });
    expect(lim.known(10_100)).toBe(1);
    expect(lim.known(10_200)).toBe(0);
  });

  it('a refund after the walk went into them: the copied list goes on where the walk was', () => {
    const lim = new Probe(params(true));
    lim.decide(100, 1);
    lim.decide(200, 1);
    lim.decide(300, 1);
    sync(lim, 400, 3, 500);
    expect(lim.known(10_100)).toBe(2);
    expect(lim.takeBack(300, 1, 10_150)).toBe('store');
    expect(lim.known(10_199)).toBe(2);
    expect(lim.known(10_200)).toBe(1);
    expect(lim.known(10_300)).toBe(0);
  });

  it('the last of them ends the view when later than a window after the reply (a clock that went back)', () => {
    const lim = new Probe(params(true));
    lim.decide(5000, 1);
    sync(lim, 300, 1, 400);
    expect(lim.known(10_300)).toBe(1);
    expect(lim.known(14_999)).toBe(1);
    expect(lim.known(15_000)).toBe(0);
  });
});
