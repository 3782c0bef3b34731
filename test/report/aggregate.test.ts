import { describe, expect, it } from 'vitest';
import { aggregateRuns, summarize } from '../../src/report/aggregate.js';
import { formatMeanSe, formatNumber } from '../../src/util/format.js';
import { syntheticRows } from './synthetic.js';

describe('aggregation over seeds', () => {
  it('summarize gives the mean and the standard error of the mean', () => {
    const s = summarize([1, 2, 3, 4]);
    expect(s.mean).toBe(2.5);
    // sample sd = √(5/3); se = sd / √4
    expect(s.se).toBeCloseTo(Math.sqrt(5 / 3) / 2, 12);
    expect(s.min).toBe(1);
    expect(s.max).toBe(4);
    expect(summarize([7]).se).toBeNaN();
    expect(summarize([]).n).toBe(0);
  });

  it('groups by every parameter except the seed', () => {
    const rows = syntheticRows({
      designs: ['split', 'leases'],
      gateways: [2, 8],
      syncs: [1],
      floodLoads: [10],
      honestLoads: [],
      seeds: [1, 2, 3],
      busy: false,
    });
    const aggregates = aggregateRuns(rows);
    expect(aggregates).toHaveLength(rows.length / 3);
    for (const a of aggregates) {
      expect(a.seeds).toEqual([1, 2, 3]);
      const mine = rows.filter(
        (r) => r.design === a.config.design && r.gateways === a.config.gateways && r.load === a.config.load,
      );
      const mean = mine.reduce((t, r) => t + r.worstWindow, 0) / 3;
      expect(a.stats.worstWindow.mean).toBeCloseTo(mean, 12);
    }
  });
});

describe('number formats', () => {
  it('formats table numbers to three significant digits, grouping thousands', () => {
    expect(formatNumber(0.98)).toBe('0.98');
    expect(formatNumber(1.0049)).toBe('1');
    expect(formatNumber(58.123)).toBe('58.1');
    expect(formatNumber(12345.6)).toBe('12,346');
    expect(formatNumber(0)).toBe('0');
    expect(formatNumber(Number.NaN)).toBe('n/a');
    expect(formatMeanSe(1.0213, 0.0261, 3)).toBe('1.02 ± 0.03');
    expect(formatMeanSe(1.0213, Number.NaN, 1)).toBe('1.02');
  });
});
