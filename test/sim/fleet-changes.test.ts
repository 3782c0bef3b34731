import { describe, expect, it } from 'vitest';
import { type FleetChangeParams, runFleetChanges } from '../../src/sim/fleet-changes.js';

const base: Omit<FleetChangeParams, 'design' | 'configured'> = {
  limit: 100,
  windowS: 10,
  syncS: 1,
  fleet: [{ atS: 0, gateways: 8 }],
  honestLoad: 0,
  floodLoad: 20,
  minutes: 2,
  seed: 3,
};
const scaling = [
  { atS: 0, gateways: 8 },
  { atS: 30, gateways: 16 },
  { atS: 60, gateways: 4 },
  { atS: 90, gateways: 8 },
];

describe('runFleetChanges: a fleet that scales, K fixed or counted', () => {
  it("on a fleet that does not change, 'auto' decides exactly as the right fixed K", () => {
    for (const design of ['split', 'assume-others', 'track-share', 'adaptive'] as const) {
      const auto = runFleetChanges({ ...base, design, configured: 'auto' });
      expect(auto).toEqual(runFleetChanges({ ...base, design, configured: 8 }));
      expect(auto.kRatio).toBe(1);
    }
  });

  it('a K too small over-admits a flood; too large rejects honest clients (split: exactly its shares)', () => {
    const run = (configured: number, o: Partial<FleetChangeParams> = {}) =>
      runFleetChanges({ ...base, design: 'split', configured, ...o });
    expect(run(8).admittedPerWindow).toBeCloseTo(1.04, 10); // 8 × ceil(12.5)
    expect(run(4).admittedPerWindow).toBeCloseTo(2, 10);
    const honest = { honestLoad: 0.8, floodLoad: 0 };
    expect(run(12, honest).honestRejectedPct).toBeGreaterThan(run(8, honest).honestRejectedPct);
  });

  it("'auto' follows joins and leaves within a sync; a fixed K does not", () => {
    const auto = runFleetChanges({ ...base, design: 'assume-others', fleet: scaling, configured: 'auto' });
    const fixed = runFleetChanges({ ...base, design: 'assume-others', fleet: scaling, configured: 8 });
    expect(Math.abs(auto.kRatio - 1)).toBeLessThan(0.03);
    expect(Math.abs(fixed.kRatio - 1)).toBeGreaterThan(0.1);
    expect(auto.worstWindow).toBeLessThan(fixed.worstWindow);
  });

  it('is reproducible by seed', () => {
    const p = { ...base, design: 'adaptive', fleet: scaling, configured: 'auto', crash: true } as const;
    expect(runFleetChanges(p)).toEqual(runFleetChanges(p));
  });
});
