/**
 * The diagnosis on injected rows (no simulation): which finding each impossible set of targets gets, and
 * that its figures are the rows' and Erlang's, checked against values computed here.
 */
import { describe, expect, it } from 'vitest';
import { diagnose, largerLimit, longerWindow, lossFloorPct, MAX_LIMIT } from '../../src/advise/diagnose.js';
import { explainFinding } from '../../src/advise/explain.js';
import { missedTargets } from '../../src/advise/rank.js';
import type { AdviceInput, AdviceRow } from '../../src/advise/types.js';
import { DESIGN_IDS } from '../../src/config.js';
import { erlangB } from '../../src/sim/erlang.js';

const input: AdviceInput = {
  gateways: 8,
  limit: 10,
  windowS: 60,
  attack: 1000,
  routing: 'even',
  honestLoad: 0.8,
  maxWorst: 1.2,
  maxRejectedPct: 1,
  designs: DESIGN_IDS,
  deltasS: [0.1, 1, 10],
  floodMinutes: 20,
  honestMinutes: 200,
  seeds: [1, 2],
};

type Figures = Pick<AdviceRow, 'design' | 'syncS' | 'floodMultiple' | 'honestRejectedPct'> &
  Partial<Pick<AdviceRow, 'worstWindow' | 'roundTripsPerRequest'>>;

/** A row with the given figures, its misses worked out by advise's own rule. */
function row(f: Figures, i: AdviceInput = input): AdviceRow {
  const m = { worstWindow: f.floodMultiple, roundTripsPerRequest: 0, ...f };
  const misses = missedTargets(i, m);
  return {
    ...m,
    storeOpsPerSec: 1,
    storeOps: { syncsPerSec: 1, requestPathPerSec: 0 },
    meetsTargets: misses.length === 0,
    misses,
    flood: {} as AdviceRow['flood'],
    honest: {} as AdviceRow['honest'],
  };
}

// the figures advise measured at K = 8, L = 10 per 1 min, a 1,000× flood (two seeds, rounded)
const SMALL_L: Figures[] = [
  { design: 'central-log', syncS: null, floodMultiple: 1, honestRejectedPct: 13.29, roundTripsPerRequest: 1 },
  { design: 'shared-counter', syncS: 10, floodMultiple: 8, honestRejectedPct: 8.94 },
  { design: 'leases', syncS: 1, floodMultiple: 1, honestRejectedPct: 50.42 },
  {
    design: 'leases-ask',
    syncS: 0.1,
    floodMultiple: 1,
    honestRejectedPct: 12.76,
    roundTripsPerRequest: 0.998,
  },
  { design: 'leases-ask', syncS: 10, floodMultiple: 1, honestRejectedPct: 24.2, roundTripsPerRequest: 0.857 },
  { design: 'adaptive', syncS: 0.1, floodMultiple: 1.137, honestRejectedPct: 13.18 },
  { design: 'adaptive', syncS: 1, floodMultiple: 1.366, honestRejectedPct: 12.1 },
];

describe('diagnose', () => {
  it('says nothing when a setting meets every target', () => {
    const rows = [
      ...SMALL_L.map((f) => row(f)),
      row({ design: 'split', syncS: null, floodMultiple: 1, honestRejectedPct: 0.5 }),
    ];
    expect(diagnose(input, rows)).toEqual([]);
  });

  it('L = 10: the Erlang loss of a small limit, and the L/W that would meet --max-rejected 1%', () => {
    const [f, ...rest] = diagnose(
      input,
      SMALL_L.map((r) => row(r)),
    );
    expect(rest).toEqual([]);
    expect(f).toMatchObject({ kind: 'loss-floor', flag: '--max-rejected', target: 1, centralLog: 13.29 });
    if (f?.kind !== 'loss-floor') throw new Error('expected a loss floor');
    // B(10, 8) = 12.17 %: more than 12 × the target
    expect(f.floorPct).toBeCloseTo(100 * erlangB(10, 8), 12);
    expect(f.floorPct).toBeCloseTo(12.17, 2);
    // the lowest rejection among the rows within --max-over 1.2 (shared-counter's 8.94 % is not one)
    expect(f.nearest).toEqual({ design: 'leases-ask', syncS: 0.1, value: 12.76 });
    // the same rate, 10 per minute, over k minutes: the smallest k whose B(10k, 8k) ≤ 1 %, found here by walking k
    const walk = (ok: (k: number) => boolean) => {
      let k = 1;
      while (!ok(k)) k++;
      return k;
    };
    const k = walk((n) => erlangB(10 * n, 8 * n) <= 0.01);
    expect(k).toBe(7);
    expect(f.longerWindow?.meets).toEqual({ limit: 70, windowS: 420, floorPct: 100 * erlangB(70, 56) });
    expect(f.longerWindow?.before).toEqual({ limit: 60, windowS: 360, floorPct: 100 * erlangB(60, 48) });
    expect(f.longerWindow?.room.limit).toBe(10 * walk((n) => erlangB(10 * n, 8 * n) <= 0.005));
    // the same client (8 a minute) with more headroom: the smallest L with B(L, 8) ≤ 1 %
    expect(f.largerLimit?.meets.limit).toBe(10 + walk((n) => erlangB(10 + n, 8) <= 0.01));
    expect(f.largerLimit?.meets.limit).toBe(15);
    expect(f.largerLimit?.room.limit).toBe(16);
  });

  it('L = 10 in words: the floor, the central log, and the commands that would', () => {
    const [f] = diagnose(
      input,
      SMALL_L.map((r) => row(r)),
    );
    const lines = explainFinding(input, f!);
    expect(lines[0]).toBe(
      '--max-rejected 1% is below the loss of a limit of 10: a steady client at 80 % of 10 per 1 min arrives to ' +
        'find all 10 slots taken 12.17 % of the time (Erlang B(10, 8)), and no design that holds the limit does ' +
        'better than the exact log (the central log rejected 13.29 % here). The fewest rejections within the other ' +
        'targets: leases-ask with Δ = 100 ms at 12.76 %.',
    );
    expect(lines[1]).toMatch(
      /^What would: a larger L per window at the same rate \(a longer W\): first possible at 70 per 7 min: B\(70, 56\) = 0\.97 % \(60 per 6 min: B\(60, 48\) = 1\.34 %\); .* 100 per 10 min: B\(100, 80\) = 0\.40 %:$/,
    );
    expect(lines[2]).toBe(
      '    npx fleetlimit advise --gateways 8 --limit 100/10m --attack 1000x --max-over 1.2 --max-rejected 1% --deltas 100ms,1s,10s',
    );
    // the same client at 8 per minute is 50 % of 16
    expect(lines[4]).toBe(
      '    npx fleetlimit advise --gateways 8 --limit 16/1m --attack 1000x --honest-load 50% --max-over 1.2 --max-rejected 1% --deltas 100ms,1s,10s',
    );
  });

  it('the over-admission target out of every tried design’s reach: the nearest, a shorter Δ, the exact designs', () => {
    const i = { ...input, limit: 100, maxWorst: 1.05, designs: ['shared-counter', 'adaptive'] as const };
    const rows = [
      { design: 'shared-counter', syncS: 0.1, floodMultiple: 2.45, honestRejectedPct: 0.4 },
      { design: 'shared-counter', syncS: 1, floodMultiple: 7.1, honestRejectedPct: 0.4 },
      { design: 'adaptive', syncS: 0.1, floodMultiple: 1.137, honestRejectedPct: 0.4 },
      { design: 'adaptive', syncS: 1, floodMultiple: 1.366, honestRejectedPct: 0.4 },
    ].map((f) => row(f as Figures, i));
    const [f, ...rest] = diagnose(i, rows);
    expect(rest).toEqual([]);
    expect(f).toEqual({
      kind: 'out-of-reach',
      flag: '--max-over',
      target: 1.05,
      nearest: { design: 'adaptive', syncS: 0.1, value: 1.137 },
      shorterDelta: { next: { design: 'adaptive', syncS: 1, value: 1.366 }, tryS: 0.03 },
      withinOthers: true,
      alsoMisses: [],
      // DESIGNS says which are bounded at L
      untried: ['central-log', 'leases', 'leases-ask'],
    });
    const lines = explainFinding(i, f!);
    expect(lines.join('\n')).toContain('try --deltas 30ms');
    expect(lines.at(-1)).toBe(
      '    npx fleetlimit advise --gateways 8 --limit 100/1m --attack 1000x --max-over 1.05 --max-rejected 1% ' +
        '--designs shared-counter,adaptive,central-log,leases,leases-ask --deltas 100ms,1s,10s',
    );
  });

  it('a mean within --max-mean but a worst window over --max-over: the worst window decides, and is named', () => {
    const i = { ...input, limit: 100, maxWorst: 1.2, maxMean: 1.2, designs: ['adaptive'] as const };
    const rows = [
      { design: 'adaptive', syncS: 1, floodMultiple: 1.005, worstWindow: 4.4, honestRejectedPct: 0.4 },
      { design: 'adaptive', syncS: 3, floodMultiple: 1.15, worstWindow: 4.69, honestRejectedPct: 0.2 },
    ].map((f) => row(f as Figures, i));
    for (const r of rows) expect(r.misses).toEqual(['--max-over']);
    const [f, ...rest] = diagnose(i, rows);
    expect(rest).toEqual([]);
    expect(f).toMatchObject({
      kind: 'out-of-reach',
      flag: '--max-over',
      nearest: { design: 'adaptive', syncS: 1, value: 4.4 },
      untried: ['central-log', 'leases', 'leases-ask'],
    });
    const lines = explainFinding(i, f!);
    expect(lines[0]).toBe(
      '--max-over 1.2 is out of reach of every setting tried; the nearest within the other targets is adaptive ' +
        'with Δ = 1 s at a worst window of 4.400 × L.',
    );
    expect(lines.at(-1)).toBe(
      '    npx fleetlimit advise --gateways 8 --limit 100/1m --attack 1000x --max-over 1.2 --max-mean 1.2 ' +
        '--max-rejected 1% --designs adaptive,central-log,leases,leases-ask --deltas 100ms,1s,10s',
    );
  });

  it('the round-trip target excluding the exact designs: the trade-off, and the figure that would pass', () => {
    const i = { ...input, maxWorst: 1, maxRejectedPct: 15, maxRoundTripsPct: 1 };
    const rows = SMALL_L.map((f) => row(f, i));
    const byFlag = new Map(diagnose(i, rows).map((f) => [f.flag, f]));
    const trips = byFlag.get('--max-round-trips');
    // within --max-over 1 and --max-rejected 15 %: central-log and leases-ask at 100 ms (24.2 % at 10 s is out)
    expect(trips).toEqual({
      kind: 'trade-off',
      flag: '--max-round-trips',
      target: 1,
      others: ['--max-over', '--max-rejected'],
      meetOthers: [
        { design: 'central-log', syncS: null, value: 100 },
        { design: 'leases-ask', syncS: 0.1, value: 99.8 },
      ],
      nearest: { design: 'leases-ask', syncS: 0.1, value: 99.8 },
    });
    expect(explainFinding(i, trips!)).toEqual([
      '--max-round-trips 1% excludes all 2 settings that meet --max-over and --max-rejected (central-log, ' +
        'leases-ask): the nearest is leases-ask with Δ = 100 ms at 99.80 % of honest requests, which ' +
        '--max-round-trips 99.8% would admit.',
    ]);
    // the floor B(10, 8) = 12.2 % is under 15 %: no loss-floor finding
    expect([...byFlag.values()].some((f) => f.kind === 'loss-floor')).toBe(false);
  });

  it('the loss-floor search is bounded: an unreachable target gives no L rather than a long search', () => {
    // at 100 % of the limit B(n, n) falls like 1/√n: 1e-6 % needs n far beyond MAX_LIMIT
    const full = { limit: 10, windowS: 60, honestLoad: 1 };
    expect(longerWindow(full, 1e-6)).toBeNull();
    expect(largerLimit({ ...full, honestLoad: 0.8 }, 1e-6)?.meets.limit).toBeLessThan(MAX_LIMIT);
    expect(lossFloorPct(10, 0.8)).toBeCloseTo(100 * erlangB(10, 8), 12);
  });
});
