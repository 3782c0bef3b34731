import { describe, expect, it } from 'vitest';
import { DESIGN_IDS } from '../../src/config.js';
import { runSimulation } from '../../src/sim/engine.js';
import { Random } from '../../src/sim/random.js';
import type { RunParams } from '../../src/sim/types.js';

const base: RunParams = {
  design: 'shared-counter',
  gateways: 8,
  syncS: 1,
  limit: 100,
  windowS: 60,
  windowKind: 'sliding',
  alignedSyncs: false,
  traffic: 'flood',
  load: 100,
  routing: 'even',
  minutes: 10,
  seed: 1,
};

function stats(xs: number[]) {
  const m = xs.reduce((a, b) => a + b, 0) / xs.length;
  const v = xs.reduce((a, b) => a + (b - m) ** 2, 0) / (xs.length - 1);
  return { m, se: Math.sqrt(v / xs.length) };
}

describe('the simulator', () => {
  it('the same seed gives the same numbers bit for bit', () => {
    for (const design of DESIGN_IDS) {
      const a = runSimulation({ ...base, design, seed: 7 });
      const b = runSimulation({ ...base, design, seed: 7 });
      expect(b).toEqual(a);
    }
  });

  it('Poisson draws have the right mean and variance, small and large means (fixed seed)', () => {
    const rng = new Random(3);
    for (const mu of [0.3, 5, 11.9, 12, 40, 1000, 1e6]) {
      const n = 20_000;
      let s = 0;
      let s2 = 0;
      for (let i = 0; i < n; i++) {
        const k = rng.poisson(mu);
        s += k;
        s2 += k * k;
      }
      const mean = s / n;
      const variance = s2 / n - mean * mean;
      // mean within 4 standard errors; variance within 10 %
      expect(Math.abs(mean - mu)).toBeLessThan(4 * Math.sqrt(mu / n));
      expect(Math.abs(variance / mu - 1)).toBeLessThan(0.1);
    }
  });

  it('counting forced rejections in one draw matches the per-arrival run in distribution (fixed seeds)', () => {
    const cases: Partial<RunParams>[] = [
      { design: 'shared-counter', load: 30 },
      { design: 'assume-others', load: 10, gateways: 4 },
      { design: 'central-log', load: 10 },
      { design: 'leases-ask', load: 10, syncS: 0.3 },
      { design: 'track-share', load: 3, routing: 'uneven' },
      { design: 'adaptive', load: 100, gateways: 4 },
    ];
    for (const c of cases) {
      const skip: number[] = [];
      const each: number[] = [];
      const rejSkip: number[] = [];
      const rejEach: number[] = [];
      for (let seed = 1; seed <= 8; seed++) {
        const p = { ...base, ...c, seed };
        const a = runSimulation(p);
        const b = runSimulation(p, { skip: false });
        skip.push(a.admittedPerWindow);
        each.push(b.admittedPerWindow);
        rejSkip.push(a.rejectedPct);
        rejEach.push(b.rejectedPct);
      }
      const s = stats(skip);
      const e = stats(each);
      const tol = 4 * Math.hypot(s.se, e.se) + 1e-9;
      expect(Math.abs(s.m - e.m), `${c.design} admitted/window ${s.m} vs ${e.m}`).toBeLessThanOrEqual(tol);
      const rs = stats(rejSkip);
      const re = stats(rejEach);
      expect(Math.abs(rs.m - re.m)).toBeLessThanOrEqual(4 * Math.hypot(rs.se, re.se) + 1e-9);
    }
  });

  it('central-log and the lease designs never exceed L; split never exceeds K·ceil(L/K)', () => {
    for (const load of [1.5, 30, 1000]) {
      for (const design of ['central-log', 'leases', 'leases-ask'] as const) {
        const r = runSimulation({ ...base, design, load, gateways: 16, syncS: 0.3 });
        expect(r.windowsOverLimit).toBe(0);
        expect(r.worstWindow).toBeLessThanOrEqual(1);
      }
      const s = runSimulation({ ...base, design: 'split', load, gateways: 16 });
      expect(Math.round(s.worstWindow * 100)).toBeLessThanOrEqual(16 * Math.ceil(100 / 16));
    }
  });

  it('counts round trips: 1 per request for central-log, asks for leases-ask, 0 otherwise', () => {
    expect(
      runSimulation({ ...base, design: 'central-log', traffic: 'steady', load: 0.5 }).roundTripsPerRequest,
    ).toBe(1);
    expect(runSimulation({ ...base, design: 'shared-counter' }).roundTripsPerRequest).toBe(0);
    const ask = runSimulation({
      ...base,
      design: 'leases-ask',
      traffic: 'steady',
      load: 0.8,
    }).roundTripsPerRequest;
    expect(ask).toBeGreaterThan(0);
    expect(ask).toBeLessThan(1);
  });

  it('a faster flood gets more through the shared counter, and assume-others holds an even flood nearer L', () => {
    const slow = runSimulation({ ...base, load: 3 }).admittedPerWindow;
    const fast = runSimulation({ ...base, load: 300 }).admittedPerWindow;
    const assume = runSimulation({ ...base, design: 'assume-others', load: 300 }).admittedPerWindow;
    expect(fast).toBeGreaterThan(slow);
    expect(assume).toBeLessThan(fast);
  });
});

describe('skipping syncs changes no decision', () => {
  it('lazy and fast-forwarded syncs decide request by request as running every sync does', () => {
    const cases: Partial<RunParams>[] = [
      { design: 'shared-counter', traffic: 'steady', load: 0.8, routing: 'uneven', gateways: 8, syncS: 0.3 },
      { design: 'track-share', traffic: 'steady', load: 1, routing: 'uneven', gateways: 8, syncS: 0.1 },
      { design: 'assume-others', traffic: 'pageload', load: 0.8, gateways: 4, syncS: 1 },
      { design: 'leases', traffic: 'steady', load: 0.8, routing: 'uneven', gateways: 16, syncS: 0.1 },
      { design: 'leases-ask', traffic: 'pageload', load: 0.5, routing: 'uneven', gateways: 8, syncS: 0.3 },
      { design: 'leases', traffic: 'flood', load: 3, gateways: 4, syncS: 1 },
      { design: 'adaptive', traffic: 'flood', load: 30, gateways: 8, syncS: 1 },
      { design: 'adaptive', traffic: 'pageload', load: 0.8, routing: 'uneven', gateways: 8, syncS: 0.3 },
      { design: 'leases', traffic: 'steady', load: 1, routing: 'even', gateways: 32, syncS: 0.1 },
      { design: 'leases', traffic: 'pageload', load: 0.8, routing: 'uneven', gateways: 32, syncS: 0.3 },
      { design: 'leases-ask', traffic: 'steady', load: 0.8, routing: 'even', gateways: 32, syncS: 0.1 },
      // floods: most syncs of a lazy design find the store unchanged (skipped without the store)
      { design: 'shared-counter', traffic: 'flood', load: 10, gateways: 8, syncS: 0.1 },
      { design: 'shared-counter', traffic: 'flood', load: 3, gateways: 4, syncS: 1, alignedSyncs: true },
      { design: 'track-share', traffic: 'flood', load: 100, routing: 'uneven', gateways: 8, syncS: 0.3 },
      { design: 'assume-others', traffic: 'flood', load: 1.5, gateways: 2, syncS: 1, windowKind: 'fixed' },
      { design: 'adaptive', traffic: 'flood', load: 3, routing: 'uneven', gateways: 4, syncS: 0.1 },
      {
        design: 'leases',
        traffic: 'flood',
        load: 1.5,
        routing: 'uneven',
        gateways: 8,
        syncS: 0.1,
        windowKind: 'fixed',
      },
      // reads follow requests (reads: 'on-request', docs/decisions/0013-reads-follow-requests.md)
      {
        design: 'shared-counter',
        traffic: 'steady',
        load: 0.8,
        routing: 'uneven',
        gateways: 8,
        syncS: 0.3,
        reads: 'on-request',
      },
      { design: 'track-share', traffic: 'flood', load: 3, gateways: 4, syncS: 1, reads: 'on-request' },
      { design: 'assume-others', traffic: 'pageload', load: 0.8, gateways: 4, syncS: 1, reads: 'on-request' },
      {
        design: 'adaptive',
        traffic: 'pageload',
        load: 0.8,
        routing: 'uneven',
        gateways: 8,
        syncS: 0.3,
        reads: 'on-request',
      },
      { design: 'adaptive-early', traffic: 'steady', load: 0.8, gateways: 4, syncS: 1, reads: 'on-request' },
    ];
    for (const c of cases) {
      const p = { ...base, ...c, minutes: 30, seed: 5 };
      const fast = runSimulation(p, { recordDecisions: true });
      const slow = runSimulation(p, { recordDecisions: true, everySync: true });
      expect(fast.decisions!.length, c.design).toBe(slow.decisions!.length);
      expect(
        Buffer.from(fast.decisions!).equals(Buffer.from(slow.decisions!)),
        `${c.design} ${c.traffic}`,
      ).toBe(true);
      expect(fast.strandedPct, `${c.design} ${c.traffic} stranded`).toBeCloseTo(slow.strandedPct, 9);
    }
  });
});
