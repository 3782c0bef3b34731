import { describe, expect, it } from 'vitest';
import { runSimulation } from '../../src/sim/engine.js';
import type { RunParams } from '../../src/sim/types.js';

const base: RunParams = {
  design: 'shared-counter',
  gateways: 4,
  syncS: 1,
  limit: 20,
  windowS: 10,
  windowKind: 'sliding',
  alignedSyncs: false,
  traffic: 'flood',
  load: 30,
  routing: 'even',
  minutes: 2,
  seed: 3,
};

function same(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && Buffer.from(a).equals(Buffer.from(b));
}

describe('real-world syncs in the simulator', () => {
  it('a request-path round trip waits the store delay: central-log waits exactly d, plus jitter U[0, J) on average J/2', () => {
    const d = runSimulation({
      ...base,
      design: 'central-log',
      traffic: 'steady',
      load: 0.8,
      storeDelayMs: 7,
    });
    expect(d.roundTripsPerRequest).toBe(1);
    expect(d.latencyMs).toBeCloseTo(7, 9);
    const j = runSimulation({
      ...base,
      design: 'central-log',
      traffic: 'steady',
      load: 0.8,
      minutes: 20,
      storeDelayMs: 7,
      storeJitterMs: 4,
    });
    expect(Math.abs(j.latencyMs - 9)).toBeLessThan(0.2);
    // designs that decide locally never wait
    expect(runSimulation({ ...base, storeDelayMs: 7 }).latencyMs).toBe(0);
  });

  it('with K = 1 the shared counter still decides exactly like the central log when replies are late or lost (resent with the same seq, never pushed twice)', () => {
    const p = { ...base, gateways: 1, minutes: 3 };
    const want = runSimulation({ ...p, design: 'central-log' }, { recordDecisions: true }).decisions!;
    for (const real of [
      { storeDelayMs: 300, storeJitterMs: 200 },
      { syncLoss: 0.3 },
      { storeDelayMs: 50, syncLoss: 0.5 },
    ] as Partial<RunParams>[]) {
      for (const design of ['shared-counter', 'adaptive'] as const) {
        const got = runSimulation({ ...p, ...real, design }, { recordDecisions: true }).decisions!;
        expect(same(got, want), `${design} ${JSON.stringify(real)}`).toBe(true);
      }
    }
  });

  it('a flood sent to one gateway: the shared counter sees every admit at once and decides like the central log', () => {
    const p = { ...base, attack: 'pick' as const };
    const want = runSimulation({ ...p, design: 'central-log' }, { recordDecisions: true }).decisions!;
    const got = runSimulation({ ...p, design: 'shared-counter' }, { recordDecisions: true }).decisions!;
    expect(same(got, want)).toBe(true);
    // spread evenly, the same flood gets through the shared counter
    const even = runSimulation({ ...base, minutes: 5 });
    expect(even.admittedPerWindow).toBeGreaterThan(1.1);
  });

  it('a store delay lengthens the blind span: the shared counter lets more of a flood through, about in proportion to Δ + d', () => {
    // over-admission ≈ c × (flood arrivals in the blind span); a delay of Δ/2 makes the span ~1.5× as long
    const p = { ...base, gateways: 8, limit: 100, windowS: 60, load: 10, minutes: 10 };
    let x0 = 0;
    let x1 = 0;
    for (const seed of [1, 2, 3]) {
      x0 += runSimulation({ ...p, seed }).admittedPerWindow - 1;
      x1 += runSimulation({ ...p, seed, storeDelayMs: 500 }).admittedPerWindow - 1;
    }
    expect(x0).toBeGreaterThan(0);
    expect(x1 / x0).toBeGreaterThan(1.2);
    expect(x1 / x0).toBeLessThan(2.2);
  });

  it('lost syncs hold lease slots back: honest rejections rise with the loss rate', () => {
    const p = {
      ...base,
      design: 'leases' as const,
      traffic: 'steady' as const,
      load: 0.8,
      gateways: 2,
      minutes: 20,
    };
    const r0 = runSimulation(p).rejectedPct;
    const r3 = runSimulation({ ...p, syncLoss: 0.3 }).rejectedPct;
    expect(r3).toBeGreaterThan(r0);
  });

  it('pulsed and onset traffic count the honest client apart from the flood', () => {
    const p = { ...base, limit: 100, windowS: 60, traffic: 'pulsed' as const, load: 0.8, minutes: 6 };
    const r = runSimulation({ ...p, design: 'central-log' });
    // pulses at 120 s and 240 s, 2 s at 1,000× ≈ 2 × 3,333 flood requests, on top of ≈ 480 honest ones
    expect(r.requests).toBeGreaterThan(6500);
    expect(r.requests).toBeLessThan(7800);
    expect(r.honestRejectedPct).toBeGreaterThan(0);
    expect(r.honestRejectedPct).toBeLessThan(r.rejectedPct);
    const o = runSimulation({ ...p, traffic: 'onset', minutes: 3 });
    expect(o.onsetWorst).toBeGreaterThan(1);
  });
});
