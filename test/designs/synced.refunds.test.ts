/**
 * SyncedKey's refunds and resets one key at a time (issue 32: Stryker found `takeBack`'s store path,
 * `dropLate` and `forget` reached by no test of their own): with reads that follow requests, an admit
 * the store counts past a reply's horizon is kept in `late` (its expiry is known here only), and a
 * refund of it must leave `late` exactly, run by run, so that the view does not drop it a second time.
 */
import { describe, expect, it } from 'vitest';
import { makePolicy } from '../../src/config.js';
import { ALLOW, DENY } from '../../src/designs/key-limiter.js';
import type { SyncReply } from '../../src/store/contract.js';
import { DELTA, Probe, params, W } from './late-probe.js';

/** A sync at `now` whose reply counts `count`, lists nothing, and has its horizon Δ later. */
function sync(lim: Probe, now: number, count: number): void {
  lim.syncEntry('k', now);
  const reply: SyncReply = { count, expiries: [], horizon: now + DELTA, granted: 0, grantExpiresAt: 0 };
  lim.applySync(reply, now);
}

/** Two pushes: 3 at 100 and 1 at 200, then 2 at 400; each counted past its reply's horizon. */
function twoPushes(): Probe {
  const lim = new Probe(params(true));
  lim.decide(100, 3);
  lim.decide(200, 1);
  sync(lim, 300, 4);
  lim.decide(400, 2);
  sync(lim, 500, 6);
  expect(lim.lateRuns()).toEqual([
    [
      [100, 200],
      [3, 1],
    ],
    [[400], [2]],
  ]);
  return lim;
}

describe('SyncedKey: a refund of an admit the store counts (reads on request)', () => {
  it('takes the cost out of its run, leaving the others', () => {
    const lim = twoPushes();
    expect(lim.takeBack(100, 2, 600)).toBe('store');
    expect(lim.lateRuns()).toEqual([
      [[100, 200], undefined],
      [[400], [2]],
    ]);
    expect(lim.takeBack(200, 1, 600)).toBe('store');
    expect(lim.lateRuns()).toEqual([
      [[100], undefined],
      [[400], [2]],
    ]);
  });

  it('a push left empty goes; with none left, late is null', () => {
    const lim = twoPushes();
    expect(lim.takeBack(400, 2, 600)).toBe('store');
    expect(lim.lateRuns()).toEqual([
      [
        [100, 200],
        [3, 1],
      ],
    ]);
    expect(lim.takeBack(100, 3, 600)).toBe('store');
    expect(lim.lateRuns()).toEqual([[[200], undefined]]);
    expect(lim.takeBack(200, 1, 600)).toBe('store');
    expect(lim.lateRuns()).toBeNull();
  });

  it('a cost over the run’s takes the run only; an instant not in late leaves it as it was', () => {
    const lim = twoPushes();
    expect(lim.takeBack(400, 5, 600)).toBe('store');
    expect(lim.lateRuns()).toEqual([
      [
        [100, 200],
        [3, 1],
      ],
    ]);
    expect(lim.takeBack(150, 1, 600)).toBe('store');
    expect(lim.lateRuns()).toEqual([
      [
        [100, 200],
        [3, 1],
      ],
    ]);
  });

  it('a push of one admit at each instant (no counts): a refund takes one, the rest stay', () => {
    const lim = new Probe(params(true));
    lim.decide(100, 1);
    lim.decide(200, 1);
    sync(lim, 300, 2);
    expect(lim.lateRuns()).toEqual([[[100, 200], undefined]]);
    expect(lim.takeBack(100, 1, 400)).toBe('store');
    expect(lim.lateRuns()).toEqual([[[200], undefined]]);
  });

  it('one instant in two pushes: the older push gives first, then the newer', () => {
    const lim = new Probe(params(true));
    lim.decide(100, 2);
    sync(lim, 100, 2);
    // a clock gone back: an admit at the same instant again, pushed by the next sync
    lim.decide(100, 1);
    sync(lim, 300, 3);
    // a push of one admit per instant carries no counts (one each)
    expect(lim.lateRuns()).toEqual([
      [[100], [2]],
      [[100], undefined],
    ]);
    expect(lim.takeBack(100, 2, 400)).toBe('store');
    expect(lim.lateRuns()).toEqual([[[100], undefined]]);
    const both = new Probe(params(true));
    both.decide(100, 2);
    sync(both, 100, 2);
    both.decide(100, 1);
    sync(both, 300, 3);
    expect(both.takeBack(100, 3, 400)).toBe('store');
    expect(both.lateRuns()).toBeNull();
  });

  it('counts a sync and asks for a read; without reads on request it leaves late and the syncs alone', () => {
    const lim = twoPushes();
    lim.syncEntry('k', 600);
    lim.applySync({ count: 6, expiries: [], horizon: 700, granted: 0, grantExpiresAt: 0 }, 600);
    expect(lim.readDue(650)).toBe(false);
    const after = lim.syncsSoFar();
    expect(lim.takeBack(100, 1, 650)).toBe('store');
    expect(lim.syncsSoFar()).toBe(after + 1);
    expect(lim.readDue(650)).toBe(true);
    const every = new Probe(params(false));
    every.decide(100, 3);
    sync(every, 300, 3);
    const s = every.syncsSoFar();
    const late = every.lateRuns();
    expect(every.takeBack(100, 1, 400)).toBe('store');
    expect(every.syncsSoFar()).toBe(s);
    expect(every.lateRuns()).toEqual(late);
  });
});

describe('SyncedKey: takeBack’s other answers', () => {
  it('gone at its expiry, not before; local while pending; wait while its sync is out', () => {
    const lim = new Probe(params(false));
    lim.decide(100, 2);
    expect(lim.takeBack(100, 1, 100 + W)).toBe('gone');
    expect(lim.takeBack(100, 1, 100 + W - 1)).toBe('local');
    lim.syncEntry('k', 200);
    expect(lim.takeBack(100, 1, 300)).toBe('wait');
    // an instant the sync does not carry is the store's
    expect(lim.takeBack(150, 1, 300)).toBe('store');
  });
});

describe('SyncedKey: forget (a reset)', () => {
  it('takes back every live pending admit, counts them, and asks for a read', () => {
    const lim = new Probe(params(true));
    lim.decide(100, 2);
    sync(lim, 150, 2);
    expect(lim.readDue(160)).toBe(false);
    lim.decide(200, 3);
    lim.decide(300, 1);
    expect(lim.unsyncedAdmits()).toBe(4);
    expect(lim.forget(400)).toBe(4);
    expect(lim.unsyncedAdmits()).toBe(0);
    expect(lim.readDue(400)).toBe(true);
    // the pushed ones are the store's: forget leaves them to it
    expect(lim.estimate(400)).toBe(2);
    // nothing pending: nothing taken back, and still a read (the store's count changes with the reset)
    sync(lim, 500, 2);
    expect(lim.readDue(510)).toBe(false);
    expect(lim.forget(520)).toBe(0);
    expect(lim.readDue(520)).toBe(true);
  });

  it('an admit in a sync out is not taken back here', () => {
    const lim = new Probe(params(false));
    lim.decide(100, 2);
    lim.syncEntry('k', 150);
    lim.decide(200, 1);
    expect(lim.forget(300)).toBe(1);
    expect(lim.unsyncedAdmits()).toBe(2);
  });
});

describe('SyncedKey: what a request and a reply change', () => {
  it('a decide or a rejection since the last read asks for the next (reads on request)', () => {
    const lim = new Probe(params(true));
    sync(lim, 0, 0);
    expect(lim.readDue(10)).toBe(false);
    lim.decide(20, 1);
    expect(lim.readDue(30)).toBe(true);
    sync(lim, 100, 1);
    expect(lim.readDue(110)).toBe(false);
    lim.noteRejected(1, 120);
    expect(lim.readDue(130)).toBe(true);
  });

  it('the estimate and decide use the reply just applied, and age it as time passes', () => {
    const lim = new Probe({ ...params(false), policy: makePolicy(3, W) });
    lim.syncEntry('k', 0);
    lim.applySync({ count: 3, expiries: [50, 60, 70], horizon: 100, granted: 0, grantExpiresAt: 0 }, 0);
    expect(lim.estimate(10)).toBe(3);
    expect(lim.estimate(50)).toBe(2);
    const full = new Probe({ ...params(false), policy: makePolicy(3, W) });
    full.syncEntry('k', 0);
    full.applySync({ count: 3, expiries: [50, 60, 70], horizon: 100, granted: 0, grantExpiresAt: 0 }, 0);
    expect(full.decide(10, 1)).toBe(DENY);
    expect(full.decide(50, 1)).toBe(ALLOW);
  });

  it('remaining rises when an admit is taken back here', () => {
    const lim = new Probe(params(false));
    for (let i = 0; i < 3; i++) lim.decide(100, 1);
    expect(lim.remaining(100)).toBe(97);
    expect(lim.takeBack(100, 1, 150)).toBe('local');
    expect(lim.remaining(150)).toBe(98);
  });

  it('a refund of an admit a reply listed (none late) leaves late empty', () => {
    const lim = new Probe(params(true));
    lim.decide(100, 1);
    lim.syncEntry('k', 200);
    lim.applySync({ count: 1, expiries: [100 + W], horizon: 200 + W, granted: 0, grantExpiresAt: 0 }, 200);
    expect(lim.lateRuns()).toBeNull();
    expect(lim.takeBack(100, 1, 300)).toBe('store');
    expect(lim.lateRuns()).toBeNull();
  });
});
