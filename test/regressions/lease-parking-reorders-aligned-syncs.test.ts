import { describe, expect, it } from 'vitest';
import { runSimulation } from '../../src/sim/engine.js';
import type { RunParams } from '../../src/sim/types.js';

/**
 * Parked lease gateways (src/sim/engine/lease-parking.ts) changed decisions with aligned syncs (found
 * by test/sim/engine-vs-reference.test.ts on a fixed window). With aligned syncs every gateway syncs
 * at the same instants; running every sync, the syncs at one instant run in gateway order, and the
 * first that asks for more than it holds gets a freed slot. Parking broke that order twice:
 *
 * - fixed window: the window's edge, where the store's admits expire, is a sync instant. The store
 *   watch that wakes a parked gateway on that expiry ran after every gateway's event at the same
 *   instant (its leaf comes last on a tie), so a higher-numbered gateway's sync took the slot first.
 * - either window: a slot handed back by gateway g's sync woke a lower-numbered parked gateway for
 *   its sync at that same instant, which (running every sync) came before g's and found no slot.
 *
 * Parking is a shortcut: the run with it must make exactly the decisions of the run with every sync.
 */
const BASE: RunParams = {
  design: 'leases',
  gateways: 2,
  syncS: 0.01,
  limit: 1,
  windowS: 1,
  windowKind: 'fixed',
  alignedSyncs: true,
  traffic: 'steady',
  load: 0.3,
  routing: 'even',
  minutes: 3,
  seed: 21,
};

const SLIDING: RunParams = { ...BASE, windowKind: 'sliding', syncS: 0.1, limit: 10 };

const CASES: [string, RunParams][] = [
  // the watch after the syncs at the window's edge; the report: decision 36 of 48 differed
  ['fixed, Δ 10 ms, K 2, L 1, load 0.3, seed 21', BASE],
  ['fixed, Δ 10 ms, K 2, L 1, load 0.3, seed 25', { ...BASE, seed: 25 }],
  ['fixed, Δ 10 ms, K 3, L 1, load 0.3, seed 3', { ...BASE, gateways: 3, seed: 3 }],
  ['fixed, Δ 10 ms, K 2, L 3, load 0.8, seed 2', { ...BASE, limit: 3, load: 0.8, seed: 2 }],
  ['fixed, Δ 10 ms, K 3, L 3, load 0.8, seed 1', { ...BASE, gateways: 3, limit: 3, load: 0.8, seed: 1 }],
  // a release waking a lower-numbered gateway at the same instant
  ['sliding, Δ 100 ms, K 3, L 10, load 1.2, seed 9', { ...SLIDING, gateways: 3, load: 1.2, seed: 9 }],
  ['sliding, Δ 100 ms, K 4, L 10, load 3, seed 2', { ...SLIDING, gateways: 4, load: 3, seed: 2 }],
];

describe('lease parking makes the decisions of running every sync, with aligned syncs', () => {
  it.each(CASES)('leases, W 1 s %s', (_name, p) => {
    const every = runSimulation(p, { everySync: true, skip: false, recordDecisions: true }).decisions!;
    const fast = runSimulation(p, { recordDecisions: true }).decisions!;
    expect(every.length).toBeGreaterThan(20);
    const first = every.findIndex((d, i) => d !== fast[i]);
    expect({ count: fast.length, firstDifference: first }).toEqual({
      count: every.length,
      firstDifference: -1,
    });
  });
});
