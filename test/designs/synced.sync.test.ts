/**
 * SyncedKey's syncs one key at a time (issue 32: Stryker found lines 504–900 of src/designs/synced.ts
 * tested only through whole designs): what a sync pushes (a sync taken while another is in flight
 * pushes both), what a failed one leaves, which keys a sync reads with reads on request, `remaining`
 * after a reply that counts fewer, `isIdle`, and track-share's share (its floor, its own admits aging
 * out and taken back).
 */
import { describe, expect, it } from 'vitest';
import { makePolicy } from '../../src/config.js';
import { ALLOW, DENY, type FleetParams } from '../../src/designs/key-limiter.js';
import {
  AssumeOthersKey,
  SharedCounterKey,
  type SyncedKey,
  TrackShareKey,
} from '../../src/designs/synced.js';
import type { SyncReply } from '../../src/store/contract.js';

const W = 10_000;
const DELTA = 100;

function params(limit: number, gateways = 2, readsOnRequest = false): FleetParams {
  return {
    policy: makePolicy(limit, W),
    gateways,
    syncMs: DELTA,
    leaseTtlMs: 3 * DELTA,
    horizonMs: DELTA,
    readsOnRequest,
  };
}

function reply(now: number, count: number, expiries: number[] = []): SyncReply {
  return {
    count,
    expiries,
    horizon: Math.max(now + DELTA, ...expiries.map((e) => e + 1)),
    granted: 0,
    grantExpiresAt: 0,
  };
}

function sync(lim: SyncedKey, now: number, count: number, expiries: number[] = []): void {
  lim.syncEntry('k', now);
  lim.applySync(reply(now, count, expiries), now);
}

/** The admits the sync in flight pushed that still count. */
class Probe extends SharedCounterKey {
  pushed(): number {
    return this.pushedLive();
  }
}

describe('SyncedKey: what a sync pushes', () => {
  it('its own admits since the last sync, as runs, and the entry reads', () => {
    const lim = new SharedCounterKey(params(10));
    sync(lim, 0, 0);
    lim.decide(100, 1);
    lim.decide(100, 2);
    lim.decide(150, 1);
    expect(lim.unsyncedAdmits()).toBe(4);
    expect(lim.syncEntry('k', 200)).toEqual({
      key: 'k',
      admits: [100, 150],
      counts: [3, 1],
      read: true,
      release: false,
      ask: 0,
    });
    expect(lim.unsyncedAdmits()).toBe(4);
  });

  it('a sync taken while another is in flight pushes both (the first’s reply never came)', () => {
    const lim = new Probe(params(10));
    sync(lim, 0, 0);
    lim.decide(100, 1);
    expect(lim.syncEntry('k', 200)).toMatchObject({ admits: [100], counts: undefined });
    expect(lim.pushed()).toBe(1);
    lim.decide(300, 2);
    expect(lim.syncEntry('k', 400)).toMatchObject({ admits: [100, 300], counts: [1, 2] });
    expect(lim.pushed()).toBe(3);
    expect(lim.unsyncedAdmits()).toBe(3);
    // nothing new: the in-flight admits again
    expect(lim.syncEntry('k', 500)).toMatchObject({ admits: [100, 300], counts: [1, 2] });
    expect(lim.pushed()).toBe(3);
    lim.applySync(reply(600, 3), 600);
    expect(lim.unsyncedAdmits()).toBe(0);
    expect(lim.pushed()).toBe(0);
    expect(lim.syncEntry('k', 700)).toMatchObject({ admits: [], counts: undefined });
    expect(lim.pushed()).toBe(0);
  });

  it('with reads on request, a read whose reply has not come is not asked again', () => {
    const lim = new SharedCounterKey(params(10, 2, true));
    expect(lim.syncEntry('k', 0)).toMatchObject({ admits: [], read: true });
    expect(lim.syncEntry('k', 100)).toBeNull();
  });

  it('with reads on request, a sync in flight is taken again though no read is due', () => {
    const lim = new SharedCounterKey(params(10, 2, true));
    sync(lim, 0, 0);
    lim.decide(100, 1);
    lim.syncEntry('k', 200);
    expect(lim.readDue(300)).toBe(false);
    expect(lim.syncEntry('k', 300)).toMatchObject({ admits: [100] });
  });
});

describe('SyncedKey: a failed sync', () => {
  it('puts the admits it pushed back before those made since, and counts them', () => {
    const lim = new SharedCounterKey(params(10));
    sync(lim, 0, 0);
    lim.decide(100, 2);
    lim.syncEntry('k', 200);
    lim.decide(300, 1);
    lim.syncFailed(400);
    expect(lim.unsyncedAdmits()).toBe(3);
    expect(lim.estimate(400)).toBe(3);
    expect(lim.syncEntry('k', 500)).toMatchObject({ admits: [100, 300], counts: [2, 1] });
  });

  it('drops the pushed admits that aged out while it was in flight', () => {
    const lim = new SharedCounterKey(params(10));
    sync(lim, 0, 0);
    lim.decide(0, 1);
    lim.decide(50, 1);
    lim.syncEntry('k', 100);
    expect(lim.ownSinceSync(W)).toBe(1);
    lim.syncFailed(W);
    expect(lim.estimate(W)).toBe(1);
    expect(lim.syncEntry('k', W + 1)).toMatchObject({ admits: [50] });
  });

  it('with nothing in flight leaves the pending admits as they are, aged out ones too', () => {
    const lim = new SharedCounterKey(params(10));
    sync(lim, 0, 0);
    lim.syncEntry('k', 50);
    lim.decide(100, 1);
    lim.decide(200, 1);
    // the admit at 100 no longer counts, but is still to be pushed (the store drops it)
    expect(lim.ownSinceSync(100 + W)).toBe(1);
    lim.syncFailed(100 + W);
    expect(lim.unsyncedAdmits()).toBe(2);
    expect(lim.syncEntry('k', 150 + W)).toMatchObject({ admits: [100, 200] });
  });

  it('with reads on request, the read it missed is due at the next sync', () => {
    const lim = new SharedCounterKey(params(10, 2, true));
    sync(lim, 0, 0);
    expect(lim.syncEntry('k', 100)).toBeNull();
    lim.decide(150, 1);
    lim.syncEntry('k', 200);
    lim.applySync(reply(200, 1), 200);
    expect(lim.syncEntry('k', 300)).toBeNull();
    // a key never decided on here, read and failed: read again
    const fresh = new SharedCounterKey(params(10, 2, true));
    expect(fresh.syncEntry('k', 0)).not.toBeNull();
    fresh.syncFailed(0);
    expect(fresh.readDue(100)).toBe(true);
    expect(fresh.syncEntry('k', 100)).not.toBeNull();
  });
});

describe('SyncedKey: readDue with reads on request', () => {
  function quiet(count: number): SharedCounterKey {
    const lim = new SharedCounterKey(params(10, 2, true));
    sync(lim, 0, count);
    return lim;
  }

  it('a quiet key at half of L or more is read; below half, not', () => {
    expect(quiet(5).readDue(100)).toBe(true);
    expect(quiet(4).readDue(100)).toBe(false);
    expect(quiet(4).syncEntry('k', 100)).toBeNull();
    expect(quiet(6).syncEntry('k', 100)).not.toBeNull();
  });

  it('after a request or a rejection, read', () => {
    const lim = quiet(0);
    expect(lim.readDue(100)).toBe(false);
    lim.noteRejected(1, 100);
    expect(lim.readDue(100)).toBe(true);
  });

  it('without reads on request every key is read', () => {
    const lim = new SharedCounterKey(params(10));
    sync(lim, 0, 0);
    expect(lim.onRequest).toBe(false);
    expect(lim.readDue(100)).toBe(true);
    expect(lim.syncEntry('k', 100)).not.toBeNull();
  });
});

describe('SyncedKey: remaining after a reply', () => {
  it('rises when the store counts fewer than it knew of (an admit it had no expiry of left)', () => {
    const lim = new SharedCounterKey(params(10));
    sync(lim, 0, 5);
    expect(lim.remaining(100)).toBe(5);
    sync(lim, 200, 3);
    expect(lim.remaining(200)).toBe(7);
  });

  it('rises when its own pushed admits are counted fewer (taken back at the store)', () => {
    const lim = new SharedCounterKey(params(10));
    sync(lim, 0, 2);
    lim.decide(100, 3);
    expect(lim.remaining(100)).toBe(5);
    lim.syncEntry('k', 200);
    lim.applySync(reply(200, 4), 200);
    expect(lim.remaining(200)).toBe(6);
  });

  it('is 0, not below, when the store counts more than L', () => {
    const lim = new SharedCounterKey(params(10));
    sync(lim, 0, 12);
    expect(lim.remaining(100)).toBe(0);
    expect(lim.resetAt(100)).toBe(Number.POSITIVE_INFINITY);
  });

  it('resetAt is the next instant the view changes', () => {
    const lim = new SharedCounterKey(params(10));
    sync(lim, 0, 2, [300, 400]);
    expect(lim.resetAt(100)).toBe(300);
    expect(lim.resetAt(300)).toBe(400);
  });
});

describe('SyncedKey: isIdle', () => {
  it('not while the view counts an admit, one is pending or one is in flight', () => {
    const lim = new SharedCounterKey(params(10));
    expect(lim.isIdle(0)).toBe(true);
    sync(lim, 0, 1, [500]);
    expect(lim.isIdle(499)).toBe(false);
    expect(lim.isIdle(500)).toBe(true);
    lim.decide(600, 1);
    expect(lim.isIdle(700)).toBe(false);
    lim.syncEntry('k', 700);
    expect(lim.isIdle(800)).toBe(false);
    lim.applySync(reply(900, 0), 900);
    expect(lim.isIdle(900)).toBe(true);
  });
});

describe('SyncedKey: the decision rule of each weight', () => {
  it('shared-counter counts an own admit once, assume-others K times', () => {
    const shared = new SharedCounterKey(params(10, 4));
    const others = new AssumeOthersKey(params(10, 4));
    for (const lim of [shared, others]) {
      sync(lim, 0, 2);
      lim.decide(100, 2);
    }
    expect(shared.estimate(100)).toBe(4);
    expect(others.estimate(100)).toBe(10);
    // 2 + 8 + 1 > 10; with exactly L left it admits: 2 + 2 + 6 = 10
    expect(others.decide(100, 1)).toBe(DENY);
    expect(shared.decide(100, 6)).toBe(ALLOW);
    expect(shared.decide(100, 1)).toBe(DENY);
  });
});

describe('track-share: the share', () => {
  function at(k: number, readsOnRequest = false): TrackShareKey {
    return new TrackShareKey(params(100, k, readsOnRequest));
  }

  it('is 1/K before any sync finds admits, and weighs each own admit 1/share', () => {
    const lim = at(4);
    expect(lim.measuredShare).toBe(0.25);
    lim.decide(100, 2);
    expect(lim.estimate(100)).toBe(8);
    // a reply that counts nothing measures nothing
    sync(lim, 200, 0);
    expect(lim.measuredShare).toBe(0.25);
  });

  it('is its own admits over the store’s count, in the window', () => {
    const lim = at(4);
    lim.decide(100, 3);
    sync(lim, 200, 6);
    expect(lim.measuredShare).toBe(0.5);
    lim.decide(300, 1);
    expect(lim.estimate(300)).toBe(8);
  });

  it('is clamped to 1 and to 1/(4K)', () => {
    const over = at(4);
    over.decide(100, 5);
    sync(over, 200, 2);
    expect(over.measuredShare).toBe(1);
    const none = at(4);
    sync(none, 200, 10);
    expect(none.measuredShare).toBe(1 / 16);
  });

  it('counts its own admits still in the window at the sync (one aged out at its instant)', () => {
    const lim = at(2);
    lim.decide(0, 1);
    lim.decide(100, 1);
    sync(lim, 200, 4);
    expect(lim.measuredShare).toBe(0.5);
    sync(lim, W - 1, 4);
    expect(lim.measuredShare).toBe(0.5);
    sync(lim, W, 4);
    expect(lim.measuredShare).toBe(0.25);
  });

  it('counts an admit taken back no more', () => {
    const lim = at(2);
    lim.decide(100, 3);
    expect(lim.takeBack(100, 2, 150)).toBe('local');
    sync(lim, 200, 4);
    expect(lim.measuredShare).toBe(0.25);
  });

  it('is not idle while the view counts the others’ admits, though it has none of its own', () => {
    const lim = at(2);
    sync(lim, 100, 3, [5000, 6000, 7000]);
    expect(lim.isIdle(200)).toBe(false);
    expect(lim.isIdle(7000)).toBe(true);
  });

  it('with reads on request, not idle while its own log holds an admit the view no longer counts', () => {
    const lim = at(2, true);
    lim.decide(100, 1);
    // the store was reset: its count holds nothing
    sync(lim, 200, 0);
    expect(lim.isIdle(300)).toBe(false);
    expect(lim.isIdle(100 + W)).toBe(true);
  });

  it('is idle only once its own admits have left its log', () => {
    const lim = at(2);
    lim.decide(100, 1);
    sync(lim, 200, 1, [100 + W]);
    // the view and the logs are empty at 100 + W; the share's log is aged at syncs only
    expect(lim.isIdle(100 + W)).toBe(false);
    sync(lim, 200 + W, 0);
    expect(lim.isIdle(200 + W)).toBe(true);
    // with reads on request there may be no next sync: it is aged here
    const quiet = at(2, true);
    quiet.decide(100, 1);
    sync(quiet, 200, 1, [100 + W]);
    expect(quiet.isIdle(100 + W - 1)).toBe(false);
    expect(quiet.isIdle(100 + W)).toBe(true);
  });
});
