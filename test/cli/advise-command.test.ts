import { describe, expect, it } from 'vitest';
import { adviceInput } from '../../src/cli/advise-command.js';
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
      const flood = runSeeds(row.flood.params, row.flood.seeds).mean;
      const honest = runSeeds(row.honest.params, row.honest.seeds).mean;
      expect(flood.admittedPerWindow).toBe(row.floodMultiple);
      expect(flood.worstWindow).toBe(row.worstWindow);
      expect(honest.rejectedPct).toBe(row.honestRejectedPct);
      expect(flood.admittedPerWindow).toBeLessThanOrEqual(1.2);
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
    // every row that is not listed misses a target
    for (const row of a.all) expect(row.meetsTargets).toBe(row.misses.length === 0);
    expect(a.ranked).toHaveLength(a.all.filter((r: { meetsTargets: boolean }) => r.meetsTargets).length);
  });

  it('prints the ranked table and one recommendation with its reason', async () => {
    const { out } = await runCli(
      `advise --limit 100/1m --attack 100x --max-over 1.0 --max-rejected 100% --designs leases,split --deltas 1s,10s ${short}`.split(
        ' ',
      ),
    );
    expect(out).toMatch(/2 of 3 settings meet the targets/);
    expect(out).toMatch(/^ *1 +leases +10 s +/m);
    expect(out).toMatch(/^ *2 +leases +1 s +/m);
    expect(out).toMatch(/store ops\/s\/key: store calls per second for one attacked key = K\/Δ syncs/);
    expect(out.trim().split('\n').at(-1)).toMatch(/^Use leases with Δ = 10 s: it meets every target .*\.$/);
  });

  it('says so, and exits 1, when nothing meets the targets', async () => {
    const { out, code } = await runCli(
      `advise --max-over 1.0 --max-rejected 0% --designs split,shared-counter --deltas 1s ${short}`.split(
        ' ',
      ),
    );
    expect(code).toBe(1);
    expect(out).toMatch(
      /^Nothing meets every target: the lowest flood multiple is 1\.040 × L \(split \(never syncs\)\)/m,
    );
  });

  it('reads durations, L/W, multiples and percentages', () => {
    const i = adviceInput({
      gateways: '4',
      limit: '50/10s',
      attack: '300×',
      routing: 'even',
      honestLoad: '50%',
      maxOver: '1.5x',
      maxRejected: '0.5%',
      deltas: '100ms,2s,10s',
      seeds: '3',
    });
    expect(i).toMatchObject({
      gateways: 4,
      limit: 50,
      windowS: 10,
      attack: 300,
      honestLoad: 0.5,
      maxOver: 1.5,
      maxRejectedPct: 0.5,
      deltasS: [0.1, 2, 10],
      seeds: [1, 2, 3],
    });
    // defaults scale with W: Δ no longer than W, 20 windows per flood, 200 per honest run
    const j = adviceInput({ ...flags, limit: '100/2s' });
    expect(j.deltasS).toEqual([0.1, 0.3, 1]);
    expect(j.floodMinutes * 60).toBeCloseTo(40, 9);
    expect(j.honestMinutes * 60).toBeCloseTo(400, 9);
    expect(adviceInput({ ...flags, limit: '100/1m' }).windowS).toBe(60);
  });

  const flags = {
    gateways: '8',
    limit: '100/1m',
    attack: '1000x',
    routing: 'even',
    honestLoad: '80%',
    maxOver: '1.2',
    maxRejected: '1%',
    seeds: '1',
  };
  it.each([
    [{ gateways: '65' }, /--gateways: must be at most 64/],
    [{ gateways: '2.5' }, /--gateways: expected an integer/],
    [{ limit: '100' }, /--limit: expected L\/W such as 100\/1m/],
    [{ limit: '100/soon' }, /--limit: expected a duration like 100ms, 1s or 1m/],
    [{ limit: '0/1m' }, /--limit: must be at least 1/],
    [{ limit: '100/50ms' }, /--limit: the window 50 ms is shorter than every default Δ; give --deltas/],
    [{ attack: '0.5x' }, /--attack: must be at least 1/],
    [{ attack: 'lots' }, /--attack: expected a number/],
    [{ routing: 'random' }, /--routing: must be one of even, uneven/],
    [{ maxOver: '0.9' }, /--max-over: must be at least 1/],
    [{ maxRejected: '150%' }, /--max-rejected: must be at most 100/],
    [{ maxRejected: '-1%' }, /--max-rejected: must be at least 0/],
    [{ honestLoad: '0%' }, /--honest-load: must be at least 1/],
    [{ deltas: '1s,2m' }, /--deltas: Δ = 2 min exceeds the window W = 1 min/],
    [{ deltas: '1s,x' }, /--deltas: expected a duration/],
    [{ designs: 'leases,magic' }, /--designs: must be one of central-log/],
    [{ seeds: '0' }, /--seeds: must be at least 1/],
    [{ maxWorst: '0.5' }, /--max-worst: must be at least 1/],
  ])('%o is refused with an error naming the flag', (bad, msg) => {
    expect(() => adviceInput({ ...flags, ...bad })).toThrow(msg);
  });
});
