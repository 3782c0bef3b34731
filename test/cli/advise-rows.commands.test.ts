// A whole `fleetlimit advise` run rerun row by row with the simulator (seconds of CPU): in the
// commands project (vitest.config.ts's COMMANDS), beside the unit files under `npm test`; the quick
// checks of the advise command stay in advise-command.test.ts.
import { describe, expect, it } from 'vitest';
import { runSeeds } from '../../src/sim/run.js';
import { runFleetlimit as runCli } from '../support/run-cli.js';

const example =
  'advise --gateways 8 --limit 100/1m --attack 1000x --routing uneven --max-over 1.2 --max-rejected 1%';
const short = '--flood-minutes 3 --honest-minutes 60 --seeds 1';

describe('fleetlimit advise', () => {
  it('every listed row meets the targets in its own simulation, the same as fleetlimit sim', async () => {
    const { out, code } = await runCli(`${example} ${short} --json`.split(' '));
    expect(code).toBeUndefined();
    const a = JSON.parse(out);
    expect(a.ranked.length).toBeGreaterThan(0);
    expect(a.recommendation).toEqual(a.ranked[0]);
    for (const row of a.ranked) {
      // rerun the row's own settings the way `fleetlimit sim --json` does
      const floodRuns = runSeeds(row.flood.params, row.flood.seeds);
      const flood = floodRuns.mean;
      const honest = runSeeds(row.honest.params, row.honest.seeds).mean;
      expect(flood.admittedPerWindow).toBe(row.floodMultiple);
      // the worst window is the worst seed's
      expect(Math.max(...floodRuns.perSeed.worstWindow)).toBe(row.worstWindow);
      expect(honest.rejectedPct).toBe(row.honestRejectedPct);
      // --max-over 1.2 bounds the worst window, not the mean
      expect(row.worstWindow).toBeLessThanOrEqual(1.2);
      expect(honest.rejectedPct).toBeLessThanOrEqual(1);
      expect(row.flood.params).toMatchObject({
        traffic: 'flood',
        load: 1000,
        gateways: 8,
        limit: 100,
        windowS: 60,
      });
      expect(row.honest.params).toMatchObject({ traffic: 'steady', load: 0.8, routing: 'uneven' });
    }
    // ranked by store operations, fewest first
    const ops = a.ranked.map((r: { storeOpsPerSec: number }) => r.storeOpsPerSec);
    expect(ops).toEqual([...ops].sort((x, y) => x - y));
    // every row that is not listed misses a target; every row over 1.2 × L in its worst window is not listed
    for (const row of a.all) expect(row.meetsTargets).toBe(row.misses.length === 0);
    for (const row of a.all.filter((r: { worstWindow: number }) => r.worstWindow > 1.2))
      expect(row.misses).toContain('--max-over');
    // adaptive's mean is near L under the flood, its worst window (the onset) several × L
    const adaptive = a.all.filter((r: { design: string }) => r.design === 'adaptive');
    expect(adaptive.length).toBeGreaterThan(0);
    for (const row of adaptive) expect(row.meetsTargets).toBe(false);
    expect(a.ranked).toHaveLength(a.all.filter((r: { meetsTargets: boolean }) => r.meetsTargets).length);
  });
});
