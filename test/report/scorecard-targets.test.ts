/**
 * The scorecard's judgements on the worst window, the onsets and the pulsed flood, each on hand-made rows whose
 * right answer is known: where the line falls, which rows count, and which figure decides.
 */
import { describe, expect, it } from 'vitest';
import type { DesignId } from '../../src/config.js';
import {
  judge,
  PULSED_RATIO,
  SCORECARD_TARGETS,
  scorecardRuns,
  type TargetRuns,
  WORST_TARGET,
} from '../../src/report/sections/scorecard-targets.js';
import { METRIC_KEYS } from '../../src/sim/run.js';
import type { RunParams, RunRow } from '../../src/sim/types.js';
import { withDefaults } from '../../src/sim/types.js';

function row(p: Partial<RunParams> & Pick<RunRow, 'group'>, m: Partial<RunRow>): RunRow {
  const zero = Object.fromEntries(METRIC_KEYS.map((k) => [k, 0]));
  return {
    ...withDefaults({
      design: 'adaptive',
      gateways: 8,
      syncS: 1,
      limit: 100,
      windowS: 60,
      windowKind: 'sliding',
      alignedSyncs: false,
      traffic: 'flood',
      load: 1000,
      routing: 'even',
      minutes: 10,
      seed: 1,
      ...p,
    }),
    ...zero,
    ...m,
    version: 'test',
  } as RunRow;
}

function verdictOf(id: string, design: DesignId, on: TargetRuns) {
  const v = judge(design, on).find((j) => j.target.id === id);
  if (v === undefined) throw new Error(`no target ${id}`);
  return v.verdict;
}

describe('the worst window under a flood', () => {
  const flood = (design: DesignId, attack: 'even' | 'pick', seed: number, worstWindow: number, load = 1000) =>
    row({ group: 'scorecard', design, attack, seed, load }, { worstWindow, admittedPerWindow: 1 });

  it('is judged by the worst seed of the worst setting, not the mean over seeds', () => {
    // mean over seeds 1.15 (would pass), worst seed 1.25 (fails)
    const on = scorecardRuns([flood('adaptive', 'even', 1, 1.05), flood('adaptive', 'even', 2, 1.25)]);
    const v = verdictOf('worst-even', 'adaptive', on)!;
    expect(v.pass).toBe(false);
    expect(v.figure).toBe('1.25 × L (K = 8, 1,000×, worst seed)');
  });

  it('passes at exactly the target and fails just above it', () => {
    const at = scorecardRuns([flood('split', 'even', 1, WORST_TARGET), flood('split', 'even', 1, 0.5, 10)]);
    expect(verdictOf('worst-even', 'split', at)!.pass).toBe(true);
    const above = scorecardRuns([flood('split', 'even', 1, 1.21)]);
    expect(verdictOf('worst-even', 'split', above)!.pass).toBe(false);
  });

  it('keeps the even and picked-gateway floods apart', () => {
    const on = scorecardRuns([flood('adaptive', 'even', 1, 1.1), flood('adaptive', 'pick', 1, 3)]);
    expect(verdictOf('worst-even', 'adaptive', on)!.pass).toBe(true);
    expect(verdictOf('worst-pick', 'adaptive', on)).toMatchObject({ pass: false, value: '3 × L' });
  });

  it('is unjudged without flood runs', () => {
    expect(verdictOf('worst-even', 'adaptive', scorecardRuns([]))).toBeNull();
  });
});

describe('the onset', () => {
  const onset = (
    load: number,
    attack: 'even' | 'pick',
    floodLoad: number,
    seed: number,
    onsetWorst: number,
  ) => row({ group: 'onset', traffic: 'onset', load, attack, floodLoad, seed, minutes: 3 }, { onsetWorst });

  it('judges the empty key on the runs with no honest client and the busy key on those at 80 %', () => {
    const on = scorecardRuns([
      onset(0, 'even', 1000, 1, 1.1),
      onset(0, 'pick', 10, 2, 1.19),
      onset(0.8, 'even', 1000, 1, 1.9),
      onset(0.8, 'pick', 1.5, 1, 1),
    ]);
    expect(verdictOf('onset-empty', 'adaptive', on)).toMatchObject({
      pass: true,
      figure: '1.19 × L (K = 8, 10× to one gateway, worst seed)',
    });
    expect(verdictOf('onset-busy', 'adaptive', on)).toMatchObject({
      pass: false,
      figure: '1.9 × L (K = 8, 1,000× spread, worst seed)',
    });
  });

  it('reads onsetWorst, not the run’s worst window', () => {
    const r = { ...onset(0, 'even', 1000, 1, 1.05), worstWindow: 9 };
    expect(verdictOf('onset-empty', 'adaptive', scorecardRuns([r]))!.pass).toBe(true);
  });

  it('is judged by the worst seed', () => {
    const on = scorecardRuns([onset(0.8, 'even', 100, 1, 1.0), onset(0.8, 'even', 100, 2, 1.3)]);
    expect(verdictOf('onset-busy', 'adaptive', on)).toMatchObject({ pass: false, value: '1.3 × L' });
  });

  it('leaves the hard cases’ onset runs (group hard) out, and is unjudged without onset runs', () => {
    const hard = row({ group: 'hard', traffic: 'onset', load: 0.8, floodLoad: 1000 }, { onsetWorst: 5 });
    expect(verdictOf('onset-busy', 'adaptive', scorecardRuns([hard]))).toBeNull();
    expect(verdictOf('onset-empty', 'adaptive', scorecardRuns([hard]))).toBeNull();
  });
});

describe('the pulsed flood', () => {
  const pulsed = (design: DesignId, gateways: number, honestRejectedPct: number) =>
    row(
      { group: 'hard', traffic: 'pulsed', load: 0.8, floodLoad: 1000, design, gateways, minutes: 30 },
      { honestRejectedPct },
    );

  it('compares the honest client’s rejections with the central log’s at the same K, the worst K deciding', () => {
    const on = scorecardRuns([
      pulsed('central-log', 8, 7),
      pulsed('central-log', 32, 6),
      pulsed('adaptive', 8, 14),
      pulsed('adaptive', 32, 12.6),
    ]);
    expect(verdictOf('pulsed', 'adaptive', on)).toMatchObject({
      pass: false,
      figure: "2.1× central-log's (K = 32: 12.6 % vs 6 %)",
    });
    expect(verdictOf('pulsed', 'central-log', on)).toMatchObject({ pass: true, value: "1× central-log's" });
    const at = scorecardRuns([pulsed('central-log', 8, 7), pulsed('adaptive', 8, PULSED_RATIO * 7)]);
    expect(verdictOf('pulsed', 'adaptive', at)!.pass).toBe(true);
  });

  it('counts a rejection where the central log rejects none as infinitely worse, and none as equal', () => {
    const on = scorecardRuns([pulsed('central-log', 8, 0), pulsed('split', 8, 0.1), pulsed('leases', 8, 0)]);
    expect(verdictOf('pulsed', 'split', on)).toMatchObject({ pass: false, value: "∞× central-log's" });
    expect(verdictOf('pulsed', 'leases', on)!.pass).toBe(true);
  });

  it('is unjudged without the central log’s runs', () => {
    expect(verdictOf('pulsed', 'adaptive', scorecardRuns([pulsed('adaptive', 8, 1)]))).toBeNull();
  });
});

it('every target has its own id and title', () => {
  expect(new Set(SCORECARD_TARGETS.map((t) => t.id)).size).toBe(SCORECARD_TARGETS.length);
  expect(new Set(SCORECARD_TARGETS.map((t) => t.title)).size).toBe(SCORECARD_TARGETS.length);
});
