import { describe, expect, it } from 'vitest';
import { runFleetlimit as runCli } from '../support/run-cli.js';

describe('fleetlimit sim', () => {
  it('--json prints the means, every seed and every parameter', async () => {
    const { out } = await runCli(
      'sim --design shared-counter --gateways 8 --sync 1 --traffic flood --load 100 --minutes 5 --seeds 3 --json'.split(
        ' ',
      ),
    );
    const r = JSON.parse(out);
    for (const k of [
      'admittedPerWindow',
      'worstWindow',
      'rejectedPct',
      'roundTripsPerRequest',
      'syncs',
      'requests',
      'admitted',
    ]) {
      expect(typeof r[k]).toBe('number');
      expect(r.perSeed[k]).toHaveLength(3);
    }
    expect(r).toMatchObject({ design: 'shared-counter', gateways: 8, syncS: 1, load: 100, seeds: [1, 2, 3] });
    const again = JSON.parse(
      (await runCli('sim --gateways 8 --sync 1 --load 100 --minutes 5 --seeds 3 --json'.split(' '))).out,
    );
    expect(again.admittedPerWindow).toBe(r.admittedPerWindow);
  });

  it('prints a readable summary without --json', async () => {
    const { out } = await runCli('sim --design leases --minutes 3 --seed 4'.split(' '));
    expect(out).toMatch(/admitted per window\s+1\.000 × L/);
  });

  it('--keys N --popularity zipf:S runs many keys and prints their store cost and gateway memory', async () => {
    const { out } = await runCli(
      'sim --keys 500 --popularity zipf:1.2 --flood-keys 2 --flood-load 30 --minutes 2 --seeds 2 --json'.split(
        ' ',
      ),
    );
    const r = JSON.parse(out);
    expect(r).toMatchObject({ keys: 500, popularity: 1.2, floodKeys: 2, floodLoad: 30, traffic: 'steady' });
    for (const k of [
      'admittedPerWindow',
      'honestRejectedPct',
      'storeOpsPerSec',
      'keysPerSync',
      'bytesPerGateway',
    ]) {
      expect(typeof r[k]).toBe('number');
      expect(r.perSeed[k]).toHaveLength(2);
    }
    expect(r.storeOpsPerSec).toBe(8);
    const text = (await runCli('sim --keys 500 --minutes 2 --seed 1'.split(' '))).out;
    expect(text).toMatch(/keys per gateway .* KiB held/);
    await expect(runCli(['sim', '--keys', '10', '--popularity', 'pareto:1'])).rejects.toThrow(
      /--popularity: expected zipf:S/,
    );
  });

  it('bad flags get an error naming the flag', async () => {
    await expect(runCli(['sim', '--gateways', '65'])).rejects.toThrow(/--gateways: must be at most 64/);
    await expect(runCli(['sim', '--sync', '0'])).rejects.toThrow(/--sync/);
    await expect(runCli(['sim', '--sync', '90'])).rejects.toThrow(/--sync: must not exceed --window/);
    await expect(runCli(['sim', '--traffic', 'tsunami'])).rejects.toThrow(/--traffic/);
    await expect(runCli(['sim', '--load', 'x'])).rejects.toThrow(/--load/);
    await expect(runCli(['sim', '--traffic', 'flood', '--load', '0'])).rejects.toThrow(
      /--load: must be greater/,
    );
  });

  it('--traffic onset --load 0 is a flood on an empty key: every admit is in the onset’s window', async () => {
    const { out } = await runCli(
      'sim --design shared-counter --gateways 4 --sync 1 --traffic onset --load 0 --flood-load 10 --minutes 3 --seeds 1 --json'.split(
        ' ',
      ),
    );
    const r = JSON.parse(out);
    expect(r).toMatchObject({ traffic: 'onset', load: 0, floodLoad: 10 });
    expect(r.onsetWorst).toBeGreaterThanOrEqual(1);
    expect(r.onsetWorst).toBe(r.worstWindow);
  });
});
