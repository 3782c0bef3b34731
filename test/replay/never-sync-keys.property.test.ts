// split's keys kept by the replay fleet (src/replay/run/never-sync-keys.ts: dropped at the sweeps, a
// dropped state kept for the gateway's next new key) against the walk they replace (`walk: true`:
// every gateway's Gateway.sync over its held keys, every Δ): on random streams, K = 1–32, random,
// round-robin and hashed routing, shares L/K below and above 1, keys going idle on a gateway and
// coming back, decided in time order and key-grouped (as ReplayRun's chunks decide, the sweeps held
// until each chunk is decided): the same decision on every request, and at the end the same figures
// and the same keys held.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ReplayFleet } from '../../src/replay/run/fleet.js';
import { FC_SEED, seeded } from '../support/fc-seed.js';
import { oneIn, type Step, stepsOf } from './support.js';

type Route = 'random' | 'round-robin' | 'hash';

interface Case {
  K: number;
  limit: number;
  windowMs: number;
  syncMs: number;
  seed: number;
  keys: number;
  route: Route;
  /** [gap ms before, key, gateway (random routing), the chunk ends after it] */
  steps: Step[];
}

// gaps from none (requests at one instant) to beyond a window (keys go idle, are dropped, come back)
const gap = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: 0, max: 400 }) },
  { weight: 2, arbitrary: fc.constant(0) },
  { weight: 2, arbitrary: fc.integer({ min: 400, max: 3000 }) },
  { weight: 1, arbitrary: fc.integer({ min: 3000, max: 25_000 }) },
);

const aCase: fc.Arbitrary<Case> = fc
  .record({
    K: fc.oneof(fc.integer({ min: 1, max: 4 }), fc.integer({ min: 5, max: 32 })),
    // L/K from below 1 (one admit per gateway and window) to several
    limit: fc.oneof(
      { weight: 3, arbitrary: fc.integer({ min: 1, max: 8 }) },
      fc.integer({ min: 9, max: 120 }),
    ),
    windowMs: fc.constantFrom(2000, 5000, 10_000),
    syncMs: fc.constantFrom(250, 700, 1000),
    seed: fc.integer({ min: 1, max: 1000 }),
    keys: fc.integer({ min: 1, max: 40 }),
    route: fc.constantFrom<Route>('random', 'round-robin', 'hash'),
  })
  .chain((c) =>
    stepsOf(
      gap,
      c.keys,
      fc.integer({ min: 0, max: c.K - 1 }),
      [oneIn(30)],
      // long streams (fast-check's bias keeps arrays short otherwise): keys come back, shares run out
      { minLength: 1, maxLength: 400, size: 'max' },
    ).map((steps) => ({ ...c, steps })),
  );

interface Request {
  key: string;
  g: number;
  t: number;
}

/** The requests of a case: its route picks each one's gateway (round-robin: by the request's number). */
function requests(c: Case): Request[] {
  let t = 1000;
  return c.steps.map(([dt, k, gw], i) => {
    t += dt;
    const g = c.route === 'random' ? gw : c.route === 'round-robin' ? i % c.K : k % c.K;
    return { key: `key${k}`, g, t };
  });
}

type Mode = 'walk' | 'time' | 'grouped';

/** Each request's decision, then the figures and the keys held, through one fleet. */
function run(c: Case, list: readonly Request[], mode: Mode) {
  const fleet = new ReplayFleet({
    design: 'split',
    gateways: c.K,
    limit: c.limit,
    windowMs: c.windowMs,
    syncMs: c.syncMs,
    seed: c.seed,
    origin: 1000,
    walk: mode === 'walk',
  });
  const decided: boolean[] = [];
  if (mode !== 'grouped') for (const r of list) decided.push(fleet.arrive(r.key, r.g, r.t));
  else {
    // ReplayRun's chunks: the clock in time order at each push, the decisions key by key at the flush
    expect(fleet.keyGrouped).toBe(true);
    fleet.holdSweeps();
    let chunk = new Map<string, [number, number][]>();
    const flush = () => {
      for (const held of chunk.values())
        for (const [i, end] of held) decided[i] = fleet.decideAt(list[i].key, list[i].g, list[i].t, end);
      chunk = new Map();
      fleet.sweepHeld();
    };
    for (const [i, r] of list.entries()) {
      const end = fleet.clockTo(r.t);
      const held = chunk.get(r.key);
      if (held === undefined) chunk.set(r.key, [[i, end]]);
      else held.push([i, end]);
      if (c.steps[i][3]) flush();
    }
    flush();
  }
  return {
    decided,
    keySyncs: fleet.keySyncs(),
    storeCalls: fleet.storeCalls(),
    onPath: fleet.requestPathCalls(),
    early: fleet.earlySyncs(),
    storeKeys: fleet.storeKeys,
    // once the figures are taken: every gateway's syncs up to the last request run, its idle keys dropped
    held: fleet.keysHeld,
  };
}

/** Whether some key comes back to a gateway more than W after its last request there (dropped between). */
function comesBack(c: Case, list: readonly Request[]): boolean {
  const last = new Map<string, number>();
  let back = false;
  for (const r of list) {
    const at = `${r.key}@${r.g}`;
    const before = last.get(at);
    if (before !== undefined && r.t - before > c.windowMs + c.syncMs) back = true;
    last.set(at, r.t);
  }
  return back;
}

// fixed unless FC_SEED asks for another (a failure names it)
const SEED = process.env.FC_SEED ? FC_SEED : 4201;

describe("replay fleet: split's keys, dropped at the sweeps, decide and count as the walk", () => {
  it('random streams, K = 1–32, every route, in time order and key-grouped', () => {
    let back = 0;
    let denied = 0;
    let wide = 0;
    fc.assert(
      fc.property(aCase, (c) => {
        const list = requests(c);
        const walk = run(c, list, 'walk');
        for (const mode of ['time', 'grouped'] as const) {
          const ours = run(c, list, mode);
          expect(ours.decided).toEqual(walk.decided);
          expect(ours).toEqual(walk);
        }
        if (comesBack(c, list)) back++;
        if (walk.decided.includes(false)) denied++;
        if (c.K > 4) wide++;
      }),
      { ...seeded({ numRuns: 800 }), seed: SEED },
    );
    // the cases reach what the sweeps change: keys dropped and back, denials, many gateways
    // (of 800 at seed 4201: 722 come back, 428 deny some request, 409 at K > 4; seeds 1–5 alike)
    expect(back).toBeGreaterThan(600);
    expect(denied).toBeGreaterThan(300);
    expect(wide).toBeGreaterThan(300);
  }, 60_000);
});
