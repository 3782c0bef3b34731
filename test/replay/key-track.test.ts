import { describe, expect, it } from 'vitest';
import type { KeyLimiter } from '../../src/designs/key-limiter.js';
import { ReplayFleet } from '../../src/replay/run/fleet.js';
import { firstAt, KeyTrack } from '../../src/replay/run/key-track.js';

/** A limiter stand-in: KeyTrack only keeps it and tells null from not. */
const lim = (n: number) => ({ n }) as unknown as KeyLimiter;

const K = 4;
/** The clock's order of a round: place p has gateway byPlace[p]. */
const byPlace = Int32Array.from([2, 0, 3, 1]);

function held(tr: KeyTrack): number[] {
  const hs = new Int32Array(K);
  return Array.from(hs.subarray(0, tr.heldInPlaceOrder(byPlace, hs)));
}

/** What KeyCheckpoints.restore does to a slot a checked chunk made: out of `others`. */
function dropSlot(tr: KeyTrack, g: number): void {
  const o = tr.others;
  if (o !== null) o[g] = null;
}

describe('a key’s slots in its arrays (KeyTrack)', () => {
  it('the home’s fields move into the arrays over every gateway when a second gateway comes', () => {
    const tr = new KeyTrack(0, 0, K);
    const home = tr.slot(1);
    home.lim = lim(1);
    home.from = 10;
    home.ahead = 20;
    home.parkFrom = 5;
    home.parkStop = 9;
    expect([tr.limOf(1), tr.fromOf(1), tr.aheadOf(1), tr.parkFromOf(1), tr.parkStopOf(1)]).toEqual([
      lim(1),
      10,
      20,
      5,
      9,
    ]);
    expect(held(tr)).toEqual([1]);
    const other = tr.slot(3);
    // the home's as they were, by its gateway now; the new one's as a fresh slot's
    expect([tr.limOf(1), tr.fromOf(1), tr.aheadOf(1), tr.parkFromOf(1), tr.parkStopOf(1)]).toEqual([
      lim(1),
      10,
      20,
      5,
      9,
    ]);
    expect([home.lim, home.from, home.ahead, home.parkFrom, home.parkStop]).toEqual([lim(1), 10, 20, 5, 9]);
    expect([other.lim, other.from, other.ahead, other.parkFrom, other.parkStop]).toEqual([
      null,
      Number.NEGATIVE_INFINITY,
      Number.NEGATIVE_INFINITY,
      -1,
      0,
    ]);
    other.lim = lim(3);
    other.from = 30;
    tr.setFrom(1, 11);
    tr.expect(3, 40);
    expect([home.from, other.from, other.ahead, tr.fromOf(3), tr.aheadOf(3)]).toEqual([11, 30, 40, 30, 40]);
    // in place order: gateway 3 is at place 2, gateway 1 at place 3
    expect(held(tr)).toEqual([3, 1]);
    expect(tr.heldCount()).toBe(2);
    home.lim = null;
    expect(held(tr)).toEqual([3]);
  });

  it('a slot a checked chunk made and its restore dropped is held nowhere (restored)', () => {
    const tr = new KeyTrack(0, 0, K);
    tr.slot(0).lim = lim(0);
    // the chunk widens the key: a save had no other slot
    tr.slot(2).lim = lim(2);
    tr.others = null;
    tr.restored();
    expect(held(tr)).toEqual([0]);
    expect(tr.limOf(0)).toEqual(lim(0));
    // a save with gateway 2's slot, a chunk that made gateway 3's
    const s2 = tr.slot(2);
    expect(s2.lim).toBe(null);
    s2.lim = lim(2);
    const s3 = tr.slot(3);
    s3.lim = lim(3);
    s3.from = 7;
    dropSlot(tr, 3);
    tr.restored();
    expect(held(tr)).toEqual([2, 0]);
    // made again: a fresh slot, nothing of the dropped one's
    const again = tr.slot(3);
    expect([again.lim, again.from]).toEqual([null, Number.NEGATIVE_INFINITY]);
  });
});

describe('firstAt reads the instants as the fleet’s clock computes them', () => {
  it('as a walk over syncAt finds it, for fleets of 1 to 32 gateways', () => {
    for (let seed = 1; seed <= 40; seed++) {
      const K = [1, 2, 3, 4, 7, 32][seed % 6];
      const fleet = new ReplayFleet({
        design: 'shared-counter',
        gateways: K,
        limit: 5,
        windowMs: 60_000,
        syncMs: 1000 + seed * 37.3,
        seed,
        origin: 1_700_000_000_123.5 + seed,
      });
      // the first of i's gateway's indices from i at or after x, any past end + K standing for none
      const walk = (i: number, x: number, end: number) => {
        let j = i;
        while (j < end + K && fleet.syncAt(j) < x) j += K;
        return Math.min(j, end + K);
      };
      for (let n = 0; n < 200; n++) {
        const i = (seed * 7919 + n * 104_729) % 5000;
        const end = i + ((n * 31) % 300);
        // instants on the schedule (exact ties), between them, before i and past end
        const x = n % 3 === 0 ? fleet.syncAt(i + (n % 50)) : fleet.syncAt(i) + (n - 20) * 97.1;
        const got = firstAt(fleet, i, x, end);
        expect(Math.min(got, end + K), `seed ${seed} i ${i} x ${x} end ${end}`).toBe(walk(i, x, end));
      }
    }
  });
});
