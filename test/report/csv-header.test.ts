import { describe, expect, it } from 'vitest';
import { CSV_COLUMNS } from '../../src/report/csv.js';
import { METRIC_KEYS } from '../../src/sim/run.js';

// CSV_COLUMNS follows CONFIG_KEYS (the grouping's order): a reorder there must not move results.csv's columns unseen
describe('results.csv header', () => {
  it('keeps its column order: version, the configuration, seed, the metrics', () => {
    expect(CSV_COLUMNS.slice(0, 24 + METRIC_KEYS.length)).toEqual([
      'version',
      'group',
      'design',
      'gateways',
      'syncS',
      'limit',
      'windowS',
      'windowKind',
      'alignedSyncs',
      'traffic',
      'load',
      'routing',
      'minutes',
      'storeDelayMs',
      'storeJitterMs',
      'syncLoss',
      'attack',
      'floodLoad',
      'keys',
      'popularity',
      'floodKeys',
      'floodPick',
      'reads',
      'seed',
      ...METRIC_KEYS,
    ]);
  });
});
