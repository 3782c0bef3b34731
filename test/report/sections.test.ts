import { describe, expect, it } from 'vitest';
import { DESIGN_IDS } from '../../src/config.js';
import { designLines, designStyle, designsIn, positive } from '../../src/report/sections/common.js';
import { reportSections } from '../../src/report/sections/index.js';
import { METRIC_KEYS } from '../../src/sim/run.js';
import type { RunRow } from '../../src/sim/types.js';
import { SMALL_EXTENDED_GRID, syntheticResults } from './synthetic.js';

describe('reportSections', () => {
  it('puts the extended sections in reading order when the extended groups ran', () => {
    expect(reportSections(syntheticResults(SMALL_EXTENDED_GRID)).map((s) => s.id)).toEqual([
      'verdict',
      'scorecard',
      'how-to-read',
      'flood-k8',
      'flood-worst',
      'flood-all',
      'shared-counter-variants',
      'honest-by-k',
      'honest-by-delta',
      'honest-pageloads',
      'leases',
      'busy-key',
      'store-delay',
      'sync-loss',
      'attack-pick',
      'hard-cases',
      'many-keys',
      'over-admission-formulas',
      'checks',
    ]);
  });
});

/** A row of `design` at K = gateways with every metric 0 but rejectedPct. */
function row(design: RunRow['design'], gateways: number, rejectedPct: number, seed = 1): RunRow {
  const metrics = Object.fromEntries(METRIC_KEYS.map((k) => [k, 0]));
  return { ...metrics, design, gateways, seed, rejectedPct, group: 'honest' } as unknown as RunRow;
}

describe('designLines', () => {
  const rows = [
    row('shared-counter', 8, 1, 1),
    row('shared-counter', 8, 3, 2),
    row('shared-counter', 2, 0.5),
    row('central-log', 8, 0.4),
    row('shared-counter', 0, 7),
  ];
  const K = (r: RunRow) => r.gateways;

  it('draws one line per design present, in DESIGN_IDS order and in its own style', () => {
    const lines = designLines(rows, K, 'rejectedPct');
    expect(lines.map((l) => l.name)).toEqual(['central-log', 'shared-counter']);
    expect(designsIn(rows)).toEqual(['central-log', 'shared-counter']);
    expect(lines.map((l) => l.style)).toEqual([
      DESIGN_IDS.indexOf('central-log'),
      DESIGN_IDS.indexOf('shared-counter'),
    ]);
    expect(designStyle('shared-counter')).toBe(DESIGN_IDS.indexOf('shared-counter'));
  });

  it('puts a point at each x the design has rows at: their mean, in ascending x', () => {
    const [central, shared] = designLines(rows, K, 'rejectedPct');
    expect(central!.points).toEqual([{ x: 8, y: 0.4 }]);
    expect(shared!.points).toEqual([
      { x: 0, y: 7 },
      { x: 2, y: 0.5 },
      { x: 8, y: 2 },
    ]);
  });

  it('keeps only the x values the filter passes', () => {
    const shared = designLines(rows, K, 'rejectedPct', positive)[1]!;
    expect(shared.points.map((p) => p.x)).toEqual([2, 8]);
  });
});
