/**
 * leases and leases-ask, one key at a time with chosen replies (issue 32: Stryker found the ask's size,
 * the grant's lapse and the idle run reached only through the simulator and the stores' tests).
 * A sync asks ceil(1.5 · m) + 1, m the mean arrivals per interval, m ← m + α · (arrivals − m) with
 * α = 1 − e^(−Δ/W); leases-ask asks nothing after an interval without arrivals.
 */

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { makePolicy } from '../../src/config.js';
import { ALLOW, DENY, type FleetParams, NEED_STORE } from '../../src/designs/key-limiter.js';
import { LeaseKey } from '../../src/designs/leases.js';
import type { SyncReply } from '../../src/store/contract.js';
import { seeded } from '../support/fc-seed.js';

const DELTA = 1000;
const W = 10 * DELTA;
const p: FleetParams = {
  policy: makePolicy(50, W),
  gateways: 2,
  syncMs: DELTA,
  leaseTtlMs: 3 * DELTA,
  horizonMs: DELTA,
};
const DECAY = Math.exp(-DELTA / W);
const ALPHA = 1 - DECAY;

function grantReply(granted: number, now: number, extra: Partial<SyncReply> = {}): SyncReply {
  return {
    count: 0,
    expiries: [],
    horizon: now,
    granted,
    grantExpiresAt: granted > 0 ? now + p.leaseTtlMs : now,
    ...extra,
  };
}

/** n arrivals at `now` that find no slot (counted toward the mean all the same). */
function arrive(k: LeaseKey, now: number, n: number): void {
  for (let i = 0; i < n; i++) k.noteRejected(1, now);
}

describe('leases: what a sync asks for', () => {
  it('ceil(1.5 · m) + 1 with m the arrivals per interval, smoothed over W (leases: at every sync)', () => {
    fc.assert(
      fc.property(fc.array(fc.nat({ max: 30 }), { minLength: 1, maxLength: 40 }), (perInterval) => {
        const k = new LeaseKey(p, false, 0);
        // the mean after the last interval with arrivals, and the idle intervals since
        let base = 0;
        let idle = 0;
        perInterval.forEach((a, i) => {
          const t = (i + 1) * DELTA;
          arrive(k, t - 1, a);
          if (a === 0) idle++;
          else {
            const m = base * DECAY ** idle;
            base = m + ALPHA * (a - m);
            idle = 0;
          }
          const e = k.syncEntry('k', t);
          expect(e.ask).toBe(Math.ceil(1.5 * base * DECAY ** idle) + 1);
          expect(e.release).toBe(true);
          expect(e.read).toBe(false);
          k.applySync(grantReply(0, t), t);
        });
      }),
      seeded({ numRuns: 300 }),
    );
  });

  it('leases-ask asks nothing after an interval without arrivals, and the rule after one with', () => {
    const k = new LeaseKey(p, true, 0);
    expect(k.syncEntry('k', DELTA).ask).toBe(0);
    arrive(k, 1500, 10);
    // m = α · 10 = 0.95: ceil(1.43) + 1
    expect(k.syncEntry('k', 2 * DELTA).ask).toBe(3);
    expect(k.syncEntry('k', 3 * DELTA).ask).toBe(0);
    // the idle interval decayed the mean: m = 0.95 · e^−0.1 + α · (20 − 0.86) = 2.68
    arrive(k, 3500, 20);
    expect(k.syncEntry('k', 4 * DELTA).ask).toBe(
      Math.ceil(1.5 * (0.9516 * 0.9048 + ALPHA * (20 - 0.861))) + 1,
    );
    const lease = new LeaseKey(p, false, 0);
    expect(lease.syncEntry('k', DELTA).ask).toBe(1);
  });

  it('a request-path ask: the rule on the mean so far, at least the cost', () => {
    const k = new LeaseKey(p, true, 0);
    expect(k.decide(10, 1)).toBe(NEED_STORE);
    expect(k.askSize(1)).toBe(1);
    expect(k.askSize(4)).toBe(4);
    arrive(k, 500, 20);
    k.syncEntry('k', DELTA);
    k.applySync(grantReply(0, DELTA), DELTA);
    // m = α · 21 = 2.0: ceil(3.0) + 1
    expect(k.askSize(1)).toBe(Math.ceil(1.5 * ALPHA * 21) + 1);
  });
});

describe('leases: slots granted, spent, lapsed', () => {
  it('spends what the store granted, until the lease lapses', () => {
    const k = new LeaseKey(p, false, 0);
    k.syncEntry('k', 0);
    k.applySync(grantReply(3, 0), 0);
    expect(k.slots(0)).toBe(3);
    expect(k.decide(10, 2)).toBe(ALLOW);
    expect(k.decide(10, 2)).toBe(DENY);
    expect(k.decide(10, 1)).toBe(ALLOW);
    expect(k.decide(10, 1)).toBe(DENY);
    expect(k.unsyncedAdmits()).toBe(3);
    const lapse = new LeaseKey(p, false, 0);
    lapse.syncEntry('k', 0);
    lapse.applySync(grantReply(3, 0), 0);
    expect(lapse.decide(p.leaseTtlMs - 1, 1)).toBe(ALLOW);
    expect(lapse.decide(p.leaseTtlMs, 1)).toBe(DENY);
    expect(lapse.slots(p.leaseTtlMs)).toBe(0);
  });

  it('slots still held lapse with the latest grant, whichever came last', () => {
    const k = new LeaseKey(p, true, 0);
    k.syncEntry('k', 0);
    k.applySync(grantReply(1, 0, { grantExpiresAt: 5000 }), 0);
    expect(k.decide(10, 2)).toBe(NEED_STORE);
    k.askSize(2);
    // the ask's grant lapses earlier than the slot held: both lapse at 5000
    expect(k.onAskReply({ granted: 3, grantExpiresAt: 2000, now: 10 }, 10, 2)).toBe(true);
    expect(k.slots(4999)).toBe(2);
    expect(k.slots(5000)).toBe(0);
    // holding none, a grant lapses when it says
    const none = new LeaseKey(p, true, 0);
    none.syncEntry('k', 0);
    none.applySync(grantReply(0, 0, { grantExpiresAt: 9000 }), 0);
    expect(none.decide(10, 1)).toBe(NEED_STORE);
    none.askSize(1);
    expect(none.onAskReply({ granted: 2, grantExpiresAt: 2000, now: 10 }, 10, 1)).toBe(true);
    expect(none.slots(1999)).toBe(1);
    expect(none.slots(2000)).toBe(0);
  });

  it('leases-ask: a refused ask rejects until the next sync, then asks again', () => {
    const k = new LeaseKey(p, true, 0);
    expect(k.decide(10, 1)).toBe(NEED_STORE);
    k.askSize(1);
    expect(k.onAskReply({ granted: 0, grantExpiresAt: 10, now: 10 }, 10, 1)).toBe(false);
    expect(k.decide(20, 1)).toBe(DENY);
    k.syncEntry('k', DELTA);
    expect(k.decide(DELTA + 1, 1)).toBe(NEED_STORE);
    // an ask that a later sync may have released spends nothing
    k.askSize(1);
    k.syncEntry('k', 2 * DELTA);
    expect(k.onAskReply({ granted: 1, grantExpiresAt: 9000, now: 2 * DELTA }, 2 * DELTA, 1)).toBe(false);
  });

  it('a sync hands back what is held and pushes the admits; a failed one keeps them for the next', () => {
    const k = new LeaseKey(p, false, 0);
    k.syncEntry('k', 0);
    k.applySync(grantReply(4, 0), 0);
    expect(k.decide(100, 1)).toBe(ALLOW);
    expect(k.decide(200, 1)).toBe(ALLOW);
    const e = k.syncEntry('k', 500);
    expect(k.lastReturned).toBe(2);
    expect(e.admits).toEqual([100, 200]);
    expect(k.slots(500)).toBe(0);
    k.syncFailed(600);
    expect(k.unsyncedAdmits()).toBe(2);
    k.applySync(grantReply(2, 700), 700);
    expect(k.decide(800, 1)).toBe(ALLOW);
    const again = k.syncEntry('k', 900);
    expect(again.admits).toEqual([100, 200, 800]);
    k.applySync(grantReply(0, 900), 900);
    expect(k.unsyncedAdmits()).toBe(0);
  });

  it('idle once it holds nothing, pushes nothing and had no arrival for W', () => {
    const k = new LeaseKey(p, false, 0);
    k.syncEntry('k', 0);
    k.applySync(grantReply(1, 0), 0);
    expect(k.decide(100, 1)).toBe(ALLOW);
    expect(k.isIdle(100 + W)).toBe(false);
    k.syncEntry('k', DELTA);
    expect(k.isIdle(100 + W)).toBe(false);
    k.applySync(grantReply(0, DELTA), DELTA);
    expect(k.isIdle(100 + W - 1)).toBe(false);
    expect(k.isIdle(100 + W)).toBe(true);
    // a slot held keeps it
    const held = new LeaseKey(p, false, 0);
    held.syncEntry('k', 0);
    held.applySync(grantReply(1, 0, { grantExpiresAt: 2 * W }), 0);
    expect(held.isIdle(W)).toBe(false);
    expect(held.isIdle(2 * W)).toBe(true);
  });
});

describe('leases: headers from the store’s last view', () => {
  it('remaining: what it holds, plus what the store had free once a reply said so, at most L', () => {
    const k = new LeaseKey(p, false, 0);
    k.syncEntry('k', 0);
    // a reply without the store's view: what it holds alone
    k.applySync(grantReply(3, 0), 0);
    expect(k.remaining(10)).toBe(3);
    k.syncEntry('k', DELTA);
    // its 3 handed back, no view yet: it holds none
    expect(k.remaining(DELTA)).toBe(0);
    k.applySync(grantReply(2, DELTA, { count: 20, oldestExpiry: 5000, free: 28 }), DELTA);
    expect(k.remaining(DELTA)).toBe(30);
    expect(k.decide(DELTA + 1, 1)).toBe(ALLOW);
    expect(k.remaining(DELTA + 1)).toBe(29);
    // a sync in flight hands back the one it holds: the fleet's while it is out
    k.syncEntry('k', 2 * DELTA);
    expect(k.remaining(2 * DELTA)).toBe(29);
    const full = new LeaseKey(p, false, 0);
    full.syncEntry('k', 0);
    full.applySync(grantReply(5, 0, { count: 0, oldestExpiry: Number.POSITIVE_INFINITY, free: 50 }), 0);
    expect(full.remaining(0)).toBe(50);
  });

  it('an ask’s reply missing any of count, oldest or free leaves the view as it was', () => {
    const partials = [
      { count: 1, oldestExpiry: 5000 },
      { count: 1, free: 9 },
      { oldestExpiry: 5000, free: 9 },
    ];
    for (const partial of partials) {
      const k = new LeaseKey(p, true, 0);
      expect(k.decide(10, 1)).toBe(NEED_STORE);
      k.askSize(1);
      expect(k.onAskReply({ granted: 2, grantExpiresAt: 5000, now: 10, ...partial }, 10, 1)).toBe(true);
      expect(k.remaining(10)).toBe(1);
    }
    const whole = new LeaseKey(p, true, 0);
    expect(whole.decide(10, 1)).toBe(NEED_STORE);
    whole.askSize(1);
    whole.onAskReply(
      { granted: 2, grantExpiresAt: 5000, now: 10, count: 1, oldestExpiry: 5000, free: 9 },
      10,
      1,
    );
    expect(whole.remaining(10)).toBe(10);
  });

  it('resetAt: the store’s oldest admit or its own oldest not yet counted, whichever leaves first; else the next sync', () => {
    const k = new LeaseKey(p, false, 0);
    k.syncEntry('k', 0);
    k.applySync(grantReply(2, 0, { count: 5, oldestExpiry: 7000, free: 10 }), 0);
    expect(k.resetAt(100)).toBe(7000);
    expect(k.decide(200, 1)).toBe(ALLOW);
    // own admit at 200 leaves at 200 + W, after 7000
    expect(k.resetAt(300)).toBe(7000);
    // once the store's oldest has left: the own admit's
    expect(k.resetAt(7000)).toBe(200 + W);
    // nothing known to leave: the next sync
    const quiet = new LeaseKey(p, false, 0);
    quiet.syncEntry('k', 500);
    quiet.applySync(grantReply(1, 500, { count: 0, oldestExpiry: Number.POSITIVE_INFINITY, free: 49 }), 500);
    expect(quiet.resetAt(600)).toBe(500 + DELTA);
    // an own admit leaving now is no reset ahead: the next sync
    expect(quiet.decide(600, 1)).toBe(ALLOW);
    expect(quiet.resetAt(600 + W - 1)).toBe(600 + W);
    expect(quiet.resetAt(600 + W)).toBe(500 + DELTA);
    // an own admit pushed by a sync in flight counts as not yet counted
    const flying = new LeaseKey(p, false, 0);
    flying.syncEntry('k', 0);
    flying.applySync(grantReply(1, 0, { count: 0, oldestExpiry: Number.POSITIVE_INFINITY, free: 49 }), 0);
    expect(flying.decide(100, 1)).toBe(ALLOW);
    flying.syncEntry('k', 200);
    expect(flying.resetAt(300)).toBe(100 + W);
  });
});

describe('leases: an idle gateway’s syncs skipped in a run (the simulator)', () => {
  /** A leases key after `arrivals` in its first interval and a sync granting `held`, then quiet. */
  function quietKey(arrivals: number, held: number, ask = false): LeaseKey {
    const k = new LeaseKey(p, ask, 0);
    // at 0: the quiet window ends at W, on one of the syncs below (at(8))
    arrive(k, 0, arrivals);
    k.syncEntry('k', DELTA);
    k.applySync(grantReply(held, DELTA, { grantExpiresAt: DELTA + 100 * W }), DELTA);
    return k;
  }

  it('counts the syncs whose ask is exactly what the gateway holds, and applying them is the same as running them', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 60 }),
        fc.integer({ min: 0, max: 8 }),
        fc.integer({ min: 1, max: 200 }),
        fc.boolean(),
        fc.boolean(),
        (a, held, count, ask, storeFull) => {
          const at = (i: number) => 2 * DELTA + i * DELTA;
          const k = quietKey(a, held, ask);
          const n = k.idleRun(at, count, storeFull);
          // the reference: sync one at a time while the store's answer is what the gateway holds (it
          // asks that, or at least that of a full store) and the key is not left idle
          const ref = quietKey(a, held, ask);
          let m = 0;
          let nextAsk = Number.NaN;
          while (m < count) {
            const h = ref.slots(at(m));
            const e = ref.syncEntry('k', at(m));
            nextAsk = e.ask;
            if (storeFull ? e.ask < h : e.ask !== h) break;
            ref.applySync(grantReply(h, at(m)), at(m));
            if (h === 0 && ref.isIdle(at(m))) break;
            m++;
          }
          expect(n).toBe(m);
          if (storeFull) return;
          // fastForwardIdle applies them: the next sync then asks what the reference's does
          const f = quietKey(a, held, ask);
          expect(f.fastForwardIdle(at, count)).toBe(n);
          if (n > 0) expect(f.lastReturned).toBe(held);
          if (n < count) expect(f.syncEntry('k', at(n)).ask).toBe(nextAsk);
        },
      ),
      seeded({ numRuns: 300 }),
    );
  });

  it('none with an arrival, an admit or a push since the last sync', () => {
    const at = (i: number) => 2 * DELTA + i * DELTA;
    const k = quietKey(20, 2);
    expect(k.idleRun(at, 5, true)).toBe(5);
    expect(k.idleRun(at, 0, true)).toBe(0);
    k.noteRejected(1, 1500);
    expect(k.idleRun(at, 5, true)).toBe(0);
    const admit = quietKey(20, 2);
    expect(admit.decide(1500, 1)).toBe(ALLOW);
    admit.syncEntry('k', 1600);
    expect(admit.idleRun(at, 5, true)).toBe(0);
    admit.applySync(grantReply(2, 1600), 1600);
    // once that sync has landed it is quiet again
    expect(admit.idleRun(at, 5, true)).toBe(5);
    // a failed sync leaves its admits to push: no arrival since, but not idle
    const failed = quietKey(20, 2);
    expect(failed.decide(1500, 1)).toBe(ALLOW);
    failed.syncEntry('k', 1600);
    failed.syncFailed(1700);
    expect(failed.idleRun(at, 5, true)).toBe(0);
  });
});
