/**
 * SyncedKey's view between syncs (issue 32: Stryker found lines 1–240 of src/designs/synced.ts tested
 * only through whole designs): `known` and `ownSinceSync` exact at the instant an admit leaves (the
 * cached inputs are good only before it), a walk done outside decide dropping the cache, the view's
 * end with reads on request (a window after the reply, or the last expiry it lists if later), the
 * first sync of a key never decided on, and `remaining` rising when a listed, pending or in-flight
 * admit ages out (each walk says a slot freed).
 */
import { describe, expect, it } from 'vitest';
import { makePolicy } from '../../src/config.js';
import { ALLOW, type FleetParams } from '../../src/designs/key-limiter.js';
import { SharedCounterKey } from '../../src/designs/synced.js';
import type { SyncReply } from '../../src/store/contract.js';

const W = 10_000;
const DELTA = 100;

function params(limit: number, readsOnRequest = false): FleetParams {
  return {
    policy: makePolicy(limit, W),
    gateways: 2,
    syncMs: DELTA,
    leaseTtlMs: 3 * DELTA,
    horizonMs: DELTA,
    readsOnRequest,
  };
}

/** A sync at `now` whose reply counts `count` and lists `expiries` (its horizon past all of them). */
function sync(lim: SharedCounterKey, now: number, count: number, expiries: number[] = []): void {
  lim.syncEntry('k', now);
  const horizon = Math.max(now + DELTA, ...expiries.map((e) => e + 1));
  const reply: SyncReply = { count, expiries, horizon, granted: 0, grantExpiresAt: 0 };
  lim.applySync(reply, now);
}

/** The admits the sync in flight pushed that still count (adaptive-early's reading of the others). */
class Probe extends SharedCounterKey {
  pushed(): number {
    return this.pushedLive();
  }
}

describe('SyncedKey: known, at and after the instants the view changes', () => {
  it('a listed expiry leaves at its instant, after the inputs were cached before it', () => {
    const lim = new SharedCounterKey(params(10));
    sync(lim, 0, 3, [500, 700]);
    // cached until 500
    expect(lim.estimate(100)).toBe(3);
    expect(lim.known(499)).toBe(3);
    expect(lim.known(500)).toBe(2);
    expect(lim.known(700)).toBe(1);
  });

  it('a walk by known() drops the cache: an earlier instant (a clock that went back) sees it', () => {
    const lim = new SharedCounterKey(params(10));
    sync(lim, 0, 3, [500, 700]);
    expect(lim.estimate(100)).toBe(3);
    expect(lim.known(600)).toBe(2);
    // the admit left at 500 is not counted again (the logs only age forward)
    expect(lim.estimate(400)).toBe(2);
  });
});

describe('SyncedKey: ownSinceSync, at the instant an own admit leaves', () => {
  it('a pending admit leaves at its expiry, though the inputs were cached before', () => {
    const lim = new SharedCounterKey(params(10));
    sync(lim, 0, 0);
    expect(lim.decide(100, 1)).toBe(ALLOW);
    expect(lim.decide(100, 1)).toBe(ALLOW);
    expect(lim.ownSinceSync(100 + W - 1)).toBe(2);
    expect(lim.ownSinceSync(100 + W)).toBe(0);
  });

  it('an admit pushed by the sync in flight leaves at its expiry', () => {
    const lim = new Probe(params(10));
    sync(lim, 0, 0);
    lim.decide(100, 2);
    lim.decide(150, 1);
    lim.syncEntry('k', 200);
    expect(lim.pushed()).toBe(3);
    expect(lim.ownSinceSync(200)).toBe(3);
    expect(lim.ownSinceSync(100 + W - 1)).toBe(3);
    expect(lim.ownSinceSync(100 + W)).toBe(1);
    expect(lim.pushed()).toBe(1);
    expect(lim.ownSinceSync(150 + W)).toBe(0);
    expect(lim.pushed()).toBe(0);
  });
});

describe('SyncedKey: remaining rises when an admit it knows of leaves', () => {
  it('a listed expiry', () => {
    const lim = new SharedCounterKey(params(10));
    sync(lim, 0, 3, [500, 700, 900]);
    expect(lim.remaining(100)).toBe(7);
    expect(lim.remaining(500)).toBe(8);
  });

  it('a pending own admit', () => {
    const lim = new SharedCounterKey(params(10));
    sync(lim, 0, 0);
    lim.decide(100, 3);
    expect(lim.remaining(100)).toBe(7);
    expect(lim.remaining(100 + W)).toBe(10);
  });

  it('an own admit in flight', () => {
    const lim = new SharedCounterKey(params(10));
    sync(lim, 0, 0);
    lim.decide(100, 3);
    lim.syncEntry('k', 200);
    expect(lim.remaining(200)).toBe(7);
    expect(lim.remaining(100 + W)).toBe(10);
  });
});

describe('SyncedKey: the view’s end with reads on request', () => {
  it('admits the reply counted without listing leave a window after it, not before', () => {
    const lim = new SharedCounterKey(params(10, true));
    sync(lim, 0, 5);
    expect(lim.remaining(100)).toBe(5);
    // what changes next: the view's end (without reads on request, nothing until a sync)
    expect(lim.nextChangeAt(100)).toBe(W);
    expect(lim.known(W - 1)).toBe(5);
    expect(lim.known(W)).toBe(0);
    // all five left: a slot freed, shown
    expect(lim.remaining(W)).toBe(10);
    expect(lim.isIdle(W)).toBe(true);
  });

  it('so does a count, some of it listed: the listed leave at their instants, the rest at the end', () => {
    const lim = new SharedCounterKey(params(10, true));
    sync(lim, 0, 3, [5000]);
    expect(lim.nextChangeAt(100)).toBe(5000);
    expect(lim.known(5000)).toBe(2);
    expect(lim.nextChangeAt(5000)).toBe(W);
    expect(lim.known(W - 1)).toBe(2);
    expect(lim.known(W)).toBe(0);
  });

  it('a view that counts nothing changes at no instant', () => {
    const lim = new SharedCounterKey(params(10, true));
    sync(lim, 0, 0);
    expect(lim.nextChangeAt(100)).toBe(Number.POSITIVE_INFINITY);
  });

  it('a listed expiry past a window after the reply (the store’s clock ahead) ends the view', () => {
    const lim = new SharedCounterKey(params(10, true));
    sync(lim, 0, 3, [5000, 10_500]);
    expect(lim.known(5000)).toBe(2);
    // the unlisted one stays until the last listed expiry, not a window after the reply
    expect(lim.known(W)).toBe(2);
    expect(lim.known(10_499)).toBe(2);
    expect(lim.known(10_500)).toBe(0);
  });

  it('without reads on request an unlisted admit stays in the view until a sync', () => {
    const lim = new SharedCounterKey(params(10));
    sync(lim, 0, 5);
    expect(lim.known(2 * W)).toBe(5);
    expect(lim.nextChangeAt(100)).toBe(Number.POSITIVE_INFINITY);
  });
});

describe('SyncedKey: reads on request, the first sync', () => {
  it('a key made by a request is read at the next sync though it pushes nothing', () => {
    const lim = new SharedCounterKey(params(10, true));
    const entry = lim.syncEntry('k', 0);
    expect(entry).toEqual({ key: 'k', admits: [], counts: undefined, read: true, release: false, ask: 0 });
    lim.applySync({ count: 0, expiries: [], horizon: DELTA, granted: 0, grantExpiresAt: 0 }, 0);
    // no request since: not read
    expect(lim.syncEntry('k', DELTA)).toBeNull();
  });
});
