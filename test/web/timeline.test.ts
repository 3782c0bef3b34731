import { describe, expect, it } from 'vitest';
import { DESIGN_IDS } from '../../src/config.js';
import { LeaseKey } from '../../src/designs/leases.js';
import { SharedCounterKey, TrackShareKey } from '../../src/designs/synced.js';
import { runSimulation } from '../../src/sim/engine.js';
import type { RunParams } from '../../src/sim/types.js';
import { runWithAdmits, slidingCounts } from '../../src/web/timeline.js';

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
  minutes: 5,
  seed: 3,
};

describe('the explorer timeline', () => {
  it.each(DESIGN_IDS)(
    '%s: same metrics as runSimulation; the admits add up to admitted, in order',
    (design) => {
      for (const traffic of ['flood', 'pageload'] as const) {
        const p = {
          ...base,
          design,
          traffic,
          load: traffic === 'flood' ? 100 : 0.8,
          minutes: traffic === 'flood' ? 5 : 30,
        };
        const { metrics, admits } = runWithAdmits(p);
        expect(metrics).toEqual(runSimulation(p));
        expect(admits.length).toBe(metrics.admitted);
        for (let i = 1; i < admits.length; i++) expect(admits[i]).toBeGreaterThanOrEqual(admits[i - 1]);
        // the busiest sampled window is never above the exact worst window
        const pts = slidingCounts(admits, p.windowS * 1000, p.limit, p.minutes * 60_000, 1000);
        expect(Math.max(...pts.map((x) => x.perL))).toBeLessThanOrEqual(metrics.worstWindow);
      }
    },
  );

  it('puts the design classes back as they were, even when the run throws', () => {
    const before = [
      SharedCounterKey.prototype.decide,
      TrackShareKey.prototype.decide,
      LeaseKey.prototype.onAskReply,
    ];
    runWithAdmits(base);
    expect(() => runWithAdmits({ ...base, syncS: 120 })).toThrow(/syncMs/);
    expect([
      SharedCounterKey.prototype.decide,
      TrackShareKey.prototype.decide,
      LeaseKey.prototype.onAskReply,
    ]).toEqual(before);
  });

  it('counts an admit at a while a ≤ t < a + W', () => {
    const pts = slidingCounts(Float64Array.from([0, 500, 1000]), 1000, 2, 2000, 500);
    expect(pts.map((p) => p.perL)).toEqual([0.5, 1, 1, 0.5, 0]);
    expect(pts[2].t).toBeCloseTo(1000 / 60_000, 12);
  });
});
