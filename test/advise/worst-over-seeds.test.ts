/**
 * A limit promises every window, so advise judges a row's worst window by the max over its seeds, not their
 * mean: a setting whose seeds' mean worst window meets --max-over but whose worst seed does not is never listed.
 */
import { describe, expect, it } from 'vitest';
import { advise } from '../../src/advise/advise.js';
import { planRows } from '../../src/advise/plan.js';
import type { AdviceInput } from '../../src/advise/types.js';
import { runSeeds } from '../../src/sim/run.js';

const base: AdviceInput = {
  gateways: 8,
  limit: 100,
  windowS: 60,
  attack: 1000,
  routing: 'uneven',
  honestLoad: 0.8,
  maxRejectedPct: 100,
  designs: ['adaptive'],
  deltasS: [1],
  floodMinutes: 3,
  honestMinutes: 10,
  seeds: [1, 2, 3, 4],
};

describe('advise: the worst window over seeds', () => {
  it('is the max over seeds, and a target between the mean and the max is missed', async () => {
    const [planned] = planRows(base);
    const perSeed = runSeeds(planned!.flood, [...base.seeds]).perSeed.worstWindow;
    const mean = perSeed.reduce((a, b) => a + b, 0) / perSeed.length;
    const max = Math.max(...perSeed);
    // the seeds scatter (4.33–5.12 × L here): a target between mean and max tells the two rules apart
    expect(max - mean).toBeGreaterThan(0.1);
    const target = (mean + max) / 2;
    const a = await advise({ ...base, maxWorst: target }, { workers: 0 });
    const [row] = a.all;
    expect(row!.worstWindow).toBe(max);
    // the mean over seeds, as `fleetlimit sim` prints it, stays in flood.mean
    expect(row!.flood.mean.worstWindow).toBeCloseTo(mean, 12);
    expect(row!.misses).toEqual(['--max-over']);
    expect(a.recommendation).toBeNull();
    // and at the max itself it qualifies
    const at = await advise({ ...base, maxWorst: max }, { workers: 0 });
    expect(at.recommendation).toMatchObject({ design: 'adaptive', syncS: 1, worstWindow: max });
  });

  it('a mean within --max-mean does not rescue a worst window over --max-over', async () => {
    const a = await advise({ ...base, seeds: [1, 2], maxWorst: 1.2, maxMean: 1.2 }, { workers: 0 });
    const [row] = a.all;
    expect(row!.floodMultiple).toBeLessThanOrEqual(1.2);
    expect(row!.worstWindow).toBeGreaterThan(1.2);
    expect(row!.misses).toEqual(['--max-over']);
    expect(a.ranked).toEqual([]);
  });
});
