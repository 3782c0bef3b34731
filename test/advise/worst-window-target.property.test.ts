/**
 * Whatever the targets, advise never puts forward a setting whose worst window misses --max-over: not as the
 * recommendation, not in the ranked list, not as the nearest setting of a diagnosis (unless it says so), and
 * every command it prints keeps the user's --max-over. Simulated once (K = 8, 100 per minute, a 100× flood,
 * every design at Δ ∈ {0.1, 1, 10} s, two seeds whose worst windows differ), then judged against targets drawn
 * by fast-check: at and around every figure the rows hold, and anywhere in between.
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { adviceFrom } from '../../src/advise/advise.js';
import { explainFinding } from '../../src/advise/explain.js';
import { setting } from '../../src/advise/format.js';
import { type PlannedRow, planRows, planRuns } from '../../src/advise/plan.js';
import type { AdviceInput, AdviceRow } from '../../src/advise/types.js';
import { DESIGN_IDS, type DesignId } from '../../src/config.js';
import { runGrid } from '../../src/sim/study.js';
import type { RunMetrics } from '../../src/sim/types.js';
import { seeded } from '../support/fc-seed.js';

const base: AdviceInput = {
  gateways: 8,
  limit: 100,
  windowS: 60,
  attack: 100,
  routing: 'uneven',
  honestLoad: 0.8,
  maxRejectedPct: 1,
  designs: DESIGN_IDS,
  deltasS: [0.1, 1, 10],
  floodMinutes: 3,
  honestMinutes: 10,
  seeds: [1, 2],
};

let planned: PlannedRow[] = [];
let metrics: RunMetrics[] = [];
/** each planned row's worst window, computed here: the max over its flood seeds */
let worstOf: number[] = [];

beforeAll(async () => {
  planned = planRows(base);
  metrics = await runGrid(planRuns(planned, base.seeds), { grid: 'test', workers: 0 });
  const n = base.seeds.length;
  worstOf = planned.map((_, i) =>
    Math.max(...metrics.slice(2 * n * i, 2 * n * i + n).map((m) => m.worstWindow)),
  );
}, 60_000);

/** The advice for a subset of the designs, from the same simulations. */
function adviceFor(input: AdviceInput) {
  const n = input.seeds.length;
  const keep = planned.map((p, i) => ({ p, i })).filter(({ p }) => input.designs.includes(p.design));
  return adviceFrom(
    input,
    keep.map(({ p }) => p),
    keep.flatMap(({ i }) => metrics.slice(2 * n * i, 2 * n * (i + 1))),
  );
}

const EPS = 1e-9;

describe('advise and the worst-window target', () => {
  it('the rows hold worst windows on both sides of the targets drawn, and seeds that differ', () => {
    expect(Math.min(...worstOf)).toBe(1);
    expect(Math.max(...worstOf)).toBeGreaterThan(5);
    const all = adviceFor(base).all;
    expect(all.some((r) => r.worstWindow > r.flood.mean.worstWindow + 0.05)).toBe(true);
  });

  it('never recommends, ranks or puts forward a setting over --max-over, whatever the targets', () => {
    const figures = () => adviceFor(base).all;
    const near = (vs: number[]) =>
      fc.oneof(
        fc.constantFrom(...vs),
        fc.constantFrom(...vs).map((v) => v * 0.999),
      );
    const arb = fc.record({
      maxWorst: fc.oneof(
        near(figures().map((r) => r.worstWindow)),
        fc.double({ min: 1, max: 10, noNaN: true }),
      ),
      maxMean: fc.option(
        fc.oneof(near(figures().map((r) => r.floodMultiple)), fc.double({ min: 1, max: 10, noNaN: true })),
        {
          nil: undefined,
        },
      ),
      maxRejectedPct: fc.oneof(
        near(figures().map((r) => r.honestRejectedPct)),
        fc.double({ min: 0.3, max: 40, noNaN: true }),
      ),
      maxRoundTripsPct: fc.option(fc.double({ min: 0, max: 100, noNaN: true }), { nil: undefined }),
      designs: fc.subarray([...DESIGN_IDS] as DesignId[], { minLength: 1 }),
    });
    fc.assert(
      fc.property(arb, (t) => {
        const input: AdviceInput = { ...base, ...t };
        const a = adviceFor(input);
        const meets = (r: AdviceRow) => r.worstWindow <= t.maxWorst + EPS;
        // the row's worst window is the max over its seeds, as computed here
        for (const r of a.all) {
          const i = planned.findIndex(
            (p) => p.design === r.design && (p.syncS === r.syncS || r.syncS === null),
          );
          expect(r.worstWindow).toBe(worstOf[i]);
          expect(r.misses.includes('--max-over')).toBe(!meets(r));
        }
        for (const r of a.ranked) expect(meets(r)).toBe(true);
        if (a.recommendation !== null) {
          expect(meets(a.recommendation)).toBe(true);
          expect(a.reason.startsWith(`Use ${setting(a.recommendation)}:`)).toBe(true);
        } else expect(a.reason.startsWith('Nothing meets every target')).toBe(true);
        const rowOf = (n: { design: DesignId; syncS: number | null }) =>
          a.all.find((r) => r.design === n.design && r.syncS === n.syncS)!;
        for (const f of a.diagnosis) {
          const lines = explainFinding(input, f);
          // a command printed to run keeps the user's worst-window target
          for (const l of lines.filter((x) => x.trimStart().startsWith('npx fleetlimit advise')))
            expect(l).toContain(`--max-over ${+t.maxWorst.toPrecision(6)}`);
          if (f.flag === '--max-over') continue;
          if (f.kind === 'loss-floor' && f.nearest !== null) expect(meets(rowOf(f.nearest))).toBe(true);
          if (f.kind === 'trade-off')
            for (const n of [f.nearest, ...f.meetOthers]) expect(meets(rowOf(n))).toBe(true);
          if (f.kind === 'out-of-reach' && !meets(rowOf(f.nearest))) {
            // only when no setting meets the others, and then said in so many words
            expect(a.all.filter((r) => r.misses.every((m) => m === f.flag))).toEqual([]);
            expect(f.alsoMisses.map((m) => m.flag)).toContain('--max-over');
            expect(lines[0]).toContain('also misses --max-over');
          }
        }
      }),
      // a target under the Erlang floor (0.399 %) costs a bisection of Erlang B up to L = 1,000,000: few are drawn
      seeded({ numRuns: 150 }),
    );
  });
});
