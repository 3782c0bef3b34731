/**
 * The floor under adaptive-early's worst window at a fast flood's onset on a busy key
 * (docs/worst-window.md, "The local bound"): a design that decides ≥ 99 % of requests locally and
 * keeps honest rejections within 0.5 pp of the central log's admits each gateway's first flood
 * request while its view shows headroom, so the window holds at least n₀ + K, n₀ the admits in it
 * when the flood comes. Per seed the bound is max(L, n₀ + K)/L, computed from the same run cut at the
 * onset, as scripts/worst-window.ts prints it ("local bound").
 *
 * K = 32, L = 100 per sliding minute, Δ = 1 s, an honest client at 80 %, a 1,000× flood spread evenly
 * from t = 2W, seeds 1–3 (fixed: each figure is deterministic). Measured (worst / bound): 1.15 / 1.15,
 * 1.11 / 1.13, 1.04 / 1.00; with 10 ms store delay 1.16 / 1.15, 1.12 / 1.13, 1.04 / 1.00. A seed's
 * worst window more than 0.06 × L above its bound means the design lets through more than the
 * argument forces: before the lone-request rule and the 2.5-Δ rate memory, 1.26 / 1.16, 1.19 / 1.13,
 * 1.20 / 1.00 (this test failed on it).
 */
import { describe, expect, it } from 'vitest';
import { ONSET_AFTER_WINDOWS } from '../../src/sim/engine/traffic.js';
import { runSimulation } from '../../src/sim/engine.js';
import type { RunParams } from '../../src/sim/types.js';

const MARGIN = 0.06;
const busy = {
  design: 'adaptive-early',
  gateways: 32,
  limit: 100,
  windowS: 60,
  windowKind: 'sliding',
  syncS: 1,
  alignedSyncs: false,
  routing: 'even',
  traffic: 'onset',
  load: 0.8,
  floodLoad: 1000,
  attack: 'even',
  minutes: 4,
} as const satisfies Omit<RunParams, 'seed'>;

/** max(L, n₀ + K)/L, n₀ the admits in [onset − W, onset): the run cut at the onset and a window before. */
function localBound(p: RunParams): number {
  const onsetMin = (ONSET_AFTER_WINDOWS * p.windowS) / 60;
  const upTo = (minutes: number) => runSimulation({ ...p, minutes }).admitted;
  const n0 = upTo(onsetMin) - upTo(onsetMin - p.windowS / 60);
  return Math.max(p.limit, n0 + p.gateways) / p.limit;
}

describe('adaptive-early at K = 32, a fast flood on a busy key: the worst window at the local bound', () => {
  for (const [what, extra] of [
    ['instant store', {}],
    ['store delay 10 ms (jitter 5 ms)', { storeDelayMs: 10, storeJitterMs: 5 }],
  ] as const) {
    it(`within ${MARGIN} × L of max(L, n₀ + K)/L, seed by seed (${what})`, () => {
      for (const seed of [1, 2, 3]) {
        const p: RunParams = { ...busy, ...extra, seed };
        const bound = localBound(p);
        const worst = runSimulation(p).worstWindow;
        expect(worst, `seed ${seed}: worst ${worst}, bound ${bound}`).toBeLessThanOrEqual(bound + MARGIN);
        // and the argument holds in the simulator: the design does not beat the floor by much either
        expect(worst, `seed ${seed}: worst ${worst}, bound ${bound}`).toBeGreaterThanOrEqual(bound - MARGIN);
      }
    });
  }

  it('the cut runs see the same decisions before the onset as the whole run', () => {
    const p: RunParams = { ...busy, seed: 3 };
    const cut = runSimulation({ ...p, minutes: 2 }, { recordDecisions: true }).decisions!;
    const whole = runSimulation(p, { recordDecisions: true }).decisions!;
    expect(cut.length).toBeGreaterThan(100);
    expect(Buffer.from(whole.subarray(0, cut.length)).equals(Buffer.from(cut))).toBe(true);
  });
});
