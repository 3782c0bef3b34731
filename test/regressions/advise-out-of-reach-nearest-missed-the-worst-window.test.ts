/**
 * Issue 21: when no setting met --max-rejected (and the target was above the Erlang floor), advise's diagnosis
 * named as "the nearest" the setting with the fewest rejections among ALL settings — here adaptive at Δ = 100 ms,
 * whose worst window (2.4 × L) misses --max-over 1.2 — so the one setting it put forward broke the user's
 * worst-window target without saying so. The nearest is now taken among the settings that meet every other
 * target, and when none does, the targets it also misses are named.
 */
import { describe, expect, it } from 'vitest';
import { diagnose } from '../../src/advise/diagnose.js';
import { explainFinding } from '../../src/advise/explain.js';
import { missedTargets } from '../../src/advise/rank.js';
import type { AdviceInput, AdviceRow } from '../../src/advise/types.js';

const input: AdviceInput = {
  gateways: 8,
  limit: 100,
  windowS: 60,
  attack: 1000,
  routing: 'even',
  honestLoad: 0.8,
  maxWorst: 1.2,
  // above the central log's Erlang floor B(100, 80) = 0.399 %, below every setting tried
  maxRejectedPct: 0.405,
  designs: ['central-log', 'adaptive'],
  deltasS: [0.1, 1],
  floodMinutes: 20,
  honestMinutes: 200,
  seeds: [1, 2],
};

function row(design: AdviceRow['design'], syncS: number | null, worstWindow: number, rej: number): AdviceRow {
  const m = { floodMultiple: 1, worstWindow, honestRejectedPct: rej, roundTripsPerRequest: 0 };
  const misses = missedTargets(input, m);
  return {
    design,
    syncS,
    ...m,
    storeOpsPerSec: 1,
    storeOps: { syncsPerSec: 1, requestPathPerSec: 0 },
    meetsTargets: misses.length === 0,
    misses,
    flood: {} as AdviceRow['flood'],
    honest: {} as AdviceRow['honest'],
  };
}

describe('advise: the nearest setting to an out-of-reach target', () => {
  it('meets the worst-window target when some setting does, and says so when none does', () => {
    const rows = [
      row('central-log', null, 1, 0.43),
      row('adaptive', 0.1, 2.4, 0.41),
      row('adaptive', 1, 7.1, 0.42),
    ];
    const [f, ...rest] = diagnose(input, rows);
    expect(rest).toEqual([]);
    expect(f).toMatchObject({
      kind: 'out-of-reach',
      flag: '--max-rejected',
      nearest: { design: 'central-log', syncS: null, value: 0.43 },
    });
    expect(explainFinding(input, f!)[0]).toBe(
      '--max-rejected 0.405% is out of reach of every setting tried; the nearest within the other targets is ' +
        'central-log (never syncs) at 0.43 %.',
    );
    // no setting meets --max-over: the nearest is the lowest of all, and the text names what else it misses
    const over = diagnose(input, [row('adaptive', 0.1, 2.4, 0.41), row('adaptive', 1, 7.1, 0.42)]);
    const rej = over.find((x) => x.flag === '--max-rejected')!;
    expect(rej).toMatchObject({
      nearest: { design: 'adaptive', syncS: 0.1 },
      withinOthers: false,
      alsoMisses: [{ flag: '--max-over', value: 2.4 }],
    });
    expect(explainFinding(input, rej)[0]).toBe(
      '--max-rejected 0.405% is out of reach of every setting tried; the nearest is adaptive with Δ = 100 ms at ' +
        '0.41 %, which also misses --max-over (a worst window of 2.400 × L).',
    );
  });
});
