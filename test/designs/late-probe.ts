/**
 * What the tests of SyncedKey's `late` (synced.late.test.ts, synced.refunds.test.ts) share: the fleet
 * they run in, and a SharedCounterKey that shows its protected state, `late` decoded push by push.
 */
import { makePolicy } from '../../src/config.js';
import type { FleetParams } from '../../src/designs/key-limiter.js';
import { SharedCounterKey } from '../../src/designs/synced.js';

export const W = 10_000;
export const DELTA = 100;

/** Two gateways, L = `limit` per W, a sync every Δ; reads on request or at every sync. */
export function params(readsOnRequest: boolean, limit = 100): FleetParams {
  return {
    policy: makePolicy(limit, W),
    gateways: 2,
    syncMs: DELTA,
    leaseTtlMs: 3 * DELTA,
    horizonMs: DELTA,
    readsOnRequest,
  };
}

/** The pushes kept past a reply's horizon, the view's listed expiries, the syncs taken. */
export class Probe extends SharedCounterKey {
  lateRuns(): [number[], number[] | undefined][] | null {
    // `late` holds (time, count) pairs, the count negated on each push's last run: per push, its
    // times and counts (undefined when every run holds one, as a push without counts)
    const late = this.late;
    if (late === null) return null;
    const out: [number[], number[] | undefined][] = [];
    let t: number[] = [];
    let n: number[] = [];
    for (let r = this.lateFrom; r < late.length; r += 2) {
      t.push(late[r]);
      n.push(Math.abs(late[r + 1]));
      if (late[r + 1] > 0) continue;
      out.push([t, n.every((k) => k === 1) ? undefined : n]);
      t = [];
      n = [];
    }
    return out;
  }

  view(): { expiries: number[]; counts: number[] | undefined } {
    // the whole list: the late runs the view reads in place after the reply's expiries too
    const w = this.wholeView();
    return { expiries: [...w.t], counts: w.n === undefined ? undefined : [...w.n] };
  }

  syncsSoFar(): number {
    return this.syncs;
  }
}
