import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { adviseOnTraffic } from '../../src/advise/advise.js';
import { planRows } from '../../src/advise/plan.js';
import { replayRows } from '../../src/advise/traffic.js';
import type { AdviceInput } from '../../src/advise/types.js';
import { replay } from '../../src/replay/run/engine.js';
import { runFleetlimit as runCli } from '../support/run-cli.js';
import { arraySource, randomArrivals } from './support.js';

const dir = mkdtempSync(join(tmpdir(), 'advise-traffic-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// a busy key over its limit at times, on two gateways, unevenly: designs differ on it
const T0 = Date.parse('2026-03-01T12:00:00Z');
const traffic = randomArrivals(11, 3000, { keys: 3, gateways: 2, perSec: 1.2, t0: T0 }).map((a) => ({
  ...a,
  gateway: a.key === 'k0' ? 0 : a.gateway,
}));

const input: AdviceInput = {
  gateways: 2,
  limit: 20,
  windowS: 60,
  attack: 100,
  routing: 'even',
  honestLoad: 0.8,
  maxWorst: 1.2,
  maxRejectedPct: 1,
  designs: ['central-log', 'split', 'shared-counter', 'leases-ask'],
  deltasS: [1, 3],
  floodMinutes: 3,
  honestMinutes: 30,
  seeds: [1],
};

describe('advise --traffic', () => {
  it('each row’s honest rejection is the replay’s on the traffic, at the row’s Δ', async () => {
    const advice = await adviseOnTraffic(input, () => arraySource(traffic), { workers: 0 });
    expect(advice.traffic.requests).toBe(3000);
    expect(advice.all.map((r) => [r.design, r.syncS])).toEqual([
      ['central-log', null],
      ['split', null],
      ['shared-counter', 1],
      ['shared-counter', 3],
      ['leases-ask', 1],
      ['leases-ask', 3],
    ]);
    for (const row of advice.all) {
      const syncMs = (row.syncS ?? 1) * 1000;
      const r = await replay(arraySource(traffic), {
        designs: [row.design],
        gateways: 2,
        limit: 20,
        windowMs: 60_000,
        syncMs,
        seed: 1,
        top: 1,
      });
      expect({ row: [row.design, row.syncS], pct: row.honestRejectedPct }).toEqual({
        row: [row.design, row.syncS],
        pct: r.designs[0].honestRejectedPct,
      });
    }
    // the traffic is unevenly routed and over its limit at times: split's fixed shares reject honest requests
    expect(advice.all[0].honestRejectedPct).toBe(0);
    expect(advice.all[1].honestRejectedPct).toBeGreaterThan(1);
    expect(advice.all[1].misses).toContain('--max-rejected');
    expect(advice.all[0].roundTripsPerRequest).toBe(1);
  });

  it('the command reads the log and says so; more files than gateways is an error naming --traffic', async () => {
    const file = join(dir, 'g0.jsonl');
    writeFileSync(file, `${traffic.map((a) => JSON.stringify({ time: a.t, key: a.key })).join('\n')}\n`);
    const args = [
      'advise',
      '--gateways',
      '2',
      '--limit',
      '20/1m',
      '--designs',
      'central-log,split',
      '--deltas',
      '1s',
    ];
    const log = ['--format', 'json', '--key', 'field:key', '--route', 'hash'];
    const { out } = await runCli([
      ...args,
      ...log,
      '--traffic',
      file,
      '--workers',
      '0',
      '--flood-minutes',
      '3',
    ]);
    expect(out).toMatch(/honest traffic replayed from .*g0\.jsonl: 3,000 requests/);
    expect(out).toMatch(/split \(never syncs\) misses --max-rejected/);
    await expect(runCli([...args, '--gateways', '1', '--traffic', file, '--traffic', file])).rejects.toThrow(
      /--traffic: 2 files for 1 gateways/,
    );
  });

  it('--reads on-request reaches the replay’s gateways (a sidecar’s default, decision 0016)', async () => {
    // 20 keys at 2 per second over 4 gateways: each key quiet (one request every ~10 s)
    const quiet = randomArrivals(5, 3000, { keys: 20, gateways: 4, perSec: 2, t0: T0 });
    const settings = { gateways: 4, limit: 20, windowS: 60, designs: ['shared-counter'] as const };
    const rowsOf = (reads?: 'on-request') => {
      const i = { ...input, ...settings, deltasS: [1], ...(reads === undefined ? {} : { reads }) };
      return replayRows(() => arraySource(quiet), i, planRows(i));
    };
    const onRequest = (await rowsOf('on-request')).perRow[0];
    const everySync = (await rowsOf()).perRow[0];
    const direct = await replay(arraySource(quiet), {
      designs: ['shared-counter'],
      gateways: 4,
      limit: 20,
      windowMs: 60_000,
      syncMs: 1000,
      seed: 1,
      top: 1,
      reads: 'on-request',
    });
    expect(onRequest).toEqual(direct.designs[0]);
    // a quiet key is read after its requests only: far fewer key-syncs than a read every Δ
    expect(onRequest.keySyncs).toBeLessThan(everySync.keySyncs / 4);
  });
});
