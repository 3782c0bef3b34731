import { describe, expect, it } from 'vitest';
import { adviceInput } from '../../src/cli/advise-command.js';
import { runFleetlimit as runCli } from '../support/run-cli.js';

const short = '--flood-minutes 3 --honest-minutes 60 --seeds 1';

describe('fleetlimit advise', () => {
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

  it('prints both flood figures for every setting, and why the missing settings miss', async () => {
    const { out } = await runCli(
      `advise --limit 100/1m --attack 1000x --max-over 1.2 --max-rejected 100% --designs adaptive,leases --deltas 1s ${short}`.split(
        ' ',
      ),
    );
    expect(out).toMatch(/^Targets: worst window ≤ 1\.2 × L, honest rejection ≤ 100 %\.$/m);
    expect(out).toMatch(/^# +design +Δ +worst ×L +mean ×L +honest rejected/m);
    expect(out).toMatch(/^1 +leases +1 s +1\.000 +1\.000 +/m);
    expect(out).toMatch(
      /worst ×L: most admitted in any W-long span under the attack, × L, the max over seeds/,
    );
    expect(out).toMatch(
      /^- adaptive \(1 s\) misses --max-over \(worst window \d\.\d{3} × L; its mean \d\.\d{3} × L\)$/m,
    );
    expect(out).toMatch(/Use leases with Δ = 1 s: it meets every target \(worst window 1\.000 × L ≤ 1\.2,/);
  });

  it('--max-mean bounds the mean alone; --max-worst is another name for --max-over', async () => {
    const { out } = await runCli(
      `advise --limit 100/1m --attack 1000x --max-mean 1.2 --max-rejected 100% --designs adaptive --deltas 1s ${short} --json`.split(
        ' ',
      ),
    );
    const a = JSON.parse(out);
    expect(a.input.maxWorst).toBeUndefined();
    expect(a.input.maxMean).toBe(1.2);
    expect(a.recommendation).toMatchObject({ design: 'adaptive', syncS: 1 });
    expect(a.recommendation.worstWindow).toBeGreaterThan(1.2);
    expect(adviceInput({ ...flags, maxOver: undefined, maxWorst: '1.5' })).toMatchObject({
      maxWorst: 1.5,
      maxMean: undefined,
    });
    expect(adviceInput({ ...flags, maxOver: undefined })).toMatchObject({ maxWorst: 1.2 });
    expect(adviceInput({ ...flags, maxMean: '1.1' })).toMatchObject({ maxWorst: 1.2, maxMean: 1.1 });
  });

  it('says so, and exits 1, when nothing meets the targets', async () => {
    const { out, code } = await runCli(
      `advise --max-over 1.0 --max-rejected 0% --designs split,shared-counter --deltas 1s ${short}`.split(
        ' ',
      ),
    );
    expect(code).toBe(1);
    expect(out).toMatch(
      /^Nothing meets every target: the lowest worst window is 1\.040 × L \(split \(never syncs\)\)/m,
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
      maxWorst: 1.5,
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
    [{ maxOver: undefined, maxWorst: '0.5' }, /--max-worst: must be at least 1/],
    [{ maxWorst: '1.5' }, /--max-worst: is another name for --max-over; give one of them/],
    [{ maxMean: '0.9' }, /--max-mean: must be at least 1/],
    [{ maxRoundTrips: '101%' }, /--max-round-trips: must be at most 100/],
    [{ reads: 'sometimes' }, /--reads: must be one of every-sync, on-request/],
  ])('%o is refused with an error naming the flag', (bad, msg) => {
    expect(() => adviceInput({ ...flags, ...bad })).toThrow(msg);
  });
});

describe('fleetlimit advise when nothing meets the targets', () => {
  // the case: at L = 10 per minute even the central log loses B(10, 8) = 12.17 % of a client at 80 %
  const impossible = 'advise --gateways 8 --limit 10/1m --attack 1000x --max-rejected 1%';
  const quick =
    '--designs central-log,leases-ask,adaptive --deltas 1s,10s --flood-minutes 5 --honest-minutes 100 --seeds 1';

  it('says why from the Erlang loss, and prints a command that does meet the targets', async () => {
    const { out, code } = await runCli(`${impossible} ${quick}`.split(' '));
    expect(code).toBe(1);
    expect(out).toContain('\nWhy, and what would:\n');
    expect(out).toMatch(
      /^- --max-rejected 1% is below the loss of a limit of 10: .* all 10 slots taken 12\.17 % of the time \(Erlang B\(10, 8\)\).* \(the central log rejected \d+\.\d\d % here\)/m,
    );
    expect(out).toMatch(
      /first possible at 70 per 7 min: B\(70, 56\) = 0\.97 % \(60 per 6 min: B\(60, 48\) = 1\.34 %\)/,
    );
    const commands = out
      .split('\n')
      .filter((l) => l.startsWith('      npx fleetlimit advise '))
      .map((l) => l.trim());
    expect(commands).toEqual([
      'npx fleetlimit advise --gateways 8 --limit 100/10m --attack 1000x --max-over 1.2 --max-rejected 1% --designs central-log,leases-ask,adaptive --deltas 1s,10s',
      'npx fleetlimit advise --gateways 8 --limit 16/1m --attack 1000x --honest-load 50% --max-over 1.2 --max-rejected 1% --designs central-log,leases-ask,adaptive --deltas 1s,10s',
    ]);
    // what it suggests works: the longer window's command finds a setting that meets every target
    const run = commands[0]!.replace('npx fleetlimit ', '').split(' ');
    const after = await runCli([
      ...run,
      '--flood-minutes',
      '60',
      '--honest-minutes',
      '1000',
      '--seeds',
      '1',
      '--json',
    ]);
    expect(after.code).toBeUndefined();
    expect(JSON.parse(after.out).recommendation).not.toBeNull();
  });

  it('carries the findings in --json', async () => {
    const { out } = await runCli(`${impossible} ${quick} --json`.split(' '));
    const a = JSON.parse(out);
    expect(a.recommendation).toBeNull();
    expect(a.diagnosis).toHaveLength(1);
    expect(a.diagnosis[0]).toMatchObject({ kind: 'loss-floor', flag: '--max-rejected', target: 1 });
    expect(a.diagnosis[0].longerWindow.meets).toMatchObject({ limit: 70, windowS: 420 });
  });

  it('runs the commands the study report points to', async () => {
    const { advisePointer } = await import('../../src/report/sections/advise-pointer.js');
    const { syntheticResults, SMALL_GRID } = await import('../report/synthetic.js');
    const pointer = advisePointer(
      syntheticResults(SMALL_GRID).rows.filter((r) => r.group === 'flood' || r.group === 'honest'),
    );
    expect(pointer?.commands.length).toBeGreaterThan(0);
    for (const c of pointer!.commands) {
      const args = c.replace('npx fleetlimit ', '').split(' ');
      const { out, code } = await runCli([
        ...args,
        '--designs',
        'split',
        '--deltas',
        '10s',
        ...short.split(' '),
        '--json',
      ]);
      expect(code === undefined || code === 1).toBe(true);
      const input = JSON.parse(out).input;
      // the scorecard's flood targets: the worst window and the mean
      expect(input).toMatchObject({
        limit: 100,
        windowS: 60,
        maxWorst: 1.2,
        maxMean: 1.1,
        maxRoundTripsPct: 1,
      });
      expect(input.maxRejectedPct).toBeCloseTo(0.899, 9);
    }
  });

  it('--reads on-request: every row is simulated with the sidecar’s reads, and says so', async () => {
    const base = `advise --gateways 4 --limit 100/1m --attack 100x --honest-load 20% --max-rejected 100% --designs shared-counter,leases --deltas 1s ${short}`;
    const a = JSON.parse((await runCli(`${base} --reads on-request --json`.split(' '))).out);
    expect(a.input.reads).toBe('on-request');
    for (const row of a.all) {
      expect(row.flood.params.reads).toBe('on-request');
      expect(row.honest.params.reads).toBe('on-request');
    }
    // the default is the library's, and a default row's settings are as before (no reads field)
    const d = JSON.parse((await runCli(`${base} --json`.split(' '))).out);
    expect(d.input.reads).toBeUndefined();
    for (const row of d.all) expect(row.flood.params).not.toHaveProperty('reads');
    expect((await runCli(`${base} --reads on-request`.split(' '))).out).toMatch(
      /^K = 4 gateways, L = 100 per 1 min \(sliding\), quiet keys read on request;/m,
    );
  });
});
