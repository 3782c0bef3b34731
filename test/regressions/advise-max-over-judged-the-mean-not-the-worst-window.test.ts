/**
 * Issue 21: `advise --max-over 1.2` judged the MEAN admitted per window, so it recommended adaptive at Δ = 3 s
 * whose worst window it printed as 4.69 × L. --max-over now bounds the worst window (max over seeds), and no
 * setting whose worst window exceeds it is listed, however low its mean.
 */
import { describe, expect, it } from 'vitest';
import { advise } from '../../src/advise/advise.js';
import { adviceInput } from '../../src/cli/advise-command.js';

describe('advise --max-over bounds the worst window', () => {
  it('adaptive under a 1,000× flood: mean near L, worst window far above 1.2 × L, so not recommended', async () => {
    const input = adviceInput({
      gateways: '8',
      limit: '100/1m',
      attack: '1000x',
      routing: 'uneven',
      honestLoad: '80%',
      maxOver: '1.2',
      maxRejected: '100%',
      designs: 'adaptive',
      deltas: '1s,3s',
      floodMinutes: '3',
      honestMinutes: '10',
      seeds: '2',
    });
    const a = await advise(input, { workers: 0 });
    expect(a.recommendation).toBeNull();
    expect(input).toMatchObject({ maxWorst: 1.2, maxMean: undefined });
    // the mean meets 1.2 at Δ = 1 s (adaptive thins a standing flood to about L) ...
    expect(a.all.some((r) => r.floodMultiple <= 1.2)).toBe(true);
    // ... but every setting's worst window is several times L (the flood's onset), so none qualifies
    for (const r of a.all) {
      expect(r.worstWindow).toBeGreaterThan(1.2);
      expect(r.misses).toContain('--max-over');
    }
    expect(a.ranked).toEqual([]);
  });
});
