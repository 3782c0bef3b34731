import { describe, expect, it } from 'vitest';
import { simParams } from '../../src/cli/sim-command.js';
import { renderReport } from '../../src/report/report.js';
import { runSimulation } from '../../src/sim/engine.js';
import { buildGrid, filterGrid, manyKeysRuns, parseOnly } from '../../src/sim/grid.js';
import { KEY_BYTES } from '../../src/sim/key-bytes.js';
import {
  floodedKeys,
  isManyKeys,
  runManyKeys,
  type ScriptedArrival,
  zipfTotal,
  zipfWeights,
} from '../../src/sim/many-keys.js';
import { runStudy } from '../../src/sim/study.js';
import type { RunParams } from '../../src/sim/types.js';

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

describe('Zipf popularity', () => {
  it('weights sum to 1, fall with rank as 1/r^S, and are equal at S = 0', () => {
    const w = zipfWeights(1000, 1.2);
    expect(w.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 12);
    for (let r = 1; r < w.length; r++) expect(w[r]).toBeLessThan(w[r - 1]);
    expect(w[0] / w[1]).toBeCloseTo(2 ** 1.2, 12);
    expect(w[0] / w[9]).toBeCloseTo(10 ** 1.2, 10);
    expect([...zipfWeights(4, 0)]).toEqual([0.25, 0.25, 0.25, 0.25]);
  });

  it('the total is Σ 1/r^S: the honest traffic in units of the hottest key', () => {
    expect(zipfTotal(3, 1)).toBeCloseTo(1 + 1 / 2 + 1 / 3, 14);
    expect(zipfTotal(10, 0)).toBe(10);
    expect(zipfTotal(1, 2)).toBe(1);
  });

  it('floods the hottest keys, or distinct random ones fixed by the seed', () => {
    expect(floodedKeys(100, 3, 'hot', 1)).toEqual([0, 1, 2]);
    const a = floodedKeys(100, 10, 'random', 7);
    expect(new Set(a).size).toBe(10);
    expect(a.every((k) => k >= 0 && k < 100)).toBe(true);
    expect(floodedKeys(100, 10, 'random', 7)).toEqual(a);
    expect(floodedKeys(100, 10, 'random', 8)).not.toEqual(a);
    expect(() => floodedKeys(5, 6, 'hot', 1)).toThrow(/floodKeys: must not exceed keys \(5\)/);
  });
});

const base: RunParams = {
  design: 'shared-counter',
  gateways: 2,
  syncS: 1,
  limit: 100,
  windowS: 10,
  windowKind: 'sliding',
  alignedSyncs: true,
  traffic: 'steady',
  load: 0,
  routing: 'even',
  minutes: 1,
  seed: 1,
  keys: 3,
  popularity: 1,
  floodKeys: 0,
};

describe('store cost, worked by hand (K = 2, Δ = 1 s, W = 10 s, aligned syncs at 0, 1, …, 59 s)', () => {
  // k0 at g0 at 0.5 s; k1 at g1 at 20.5 s; k2 at g0 at 30.5 s and at g1 at 30.7 s
  const script: ScriptedArrival[] = [
    { t: 500, key: 0, gateway: 0 },
    { t: 20_500, key: 1, gateway: 1 },
    { t: 30_500, key: 2, gateway: 0 },
    { t: 30_700, key: 2, gateway: 1 },
  ];

  it('shared-counter: K/Δ sync calls; each key carried by its gateway from the first sync after its admit to the first that finds it expired', () => {
    const m = runManyKeys(base, { script });
    // every gateway syncs every Δ, empty or not: 2 × 60 calls in 60 s
    expect(m.syncs).toBe(120);
    expect(m.storeOpsPerSec).toBe(2);
    expect(m.requests).toBe(4);
    expect(m.admitted).toBe(4);
    expect(m.roundTripsPerRequest).toBe(0);
    // A key admitted at a expires at a + 10 s; its gateway reads it at every sync up to the first one
    // after that (which finds the count 0 and drops it): 11 syncs. Over the steady state (syncs at
    // 10 … 59 s, 50 per gateway): k0 at 10 and 11 s (2), k1 at 21 … 31 s (11), k2 on both gateways at
    // 31 … 41 s (22): 35 keys carried in 100 syncs over 50 s.
    expect(m.syncKeysPerSec).toBeCloseTo(35 / 50, 12);
    expect(m.keyOpsPerSec).toBeCloseTo(35 / 50, 12);
    expect(m.keysPerSync).toBeCloseTo(35 / 100, 12);
    // g1 at 31 s: k1 (its last read) and k2
    expect(m.keysPerSyncMax).toBe(2);
    // a held key is read at every sync, so held before a sync = carried by it
    expect(m.keysPerGateway).toBeCloseTo(0.35, 12);
    expect(m.keysPerGatewayMax).toBe(2);
    expect(m.bytesPerGateway).toBeCloseTo(0.35 * KEY_BYTES['shared-counter'], 9);
    // the store never holds more than one live key after a sync (k1 expired at 30.5 s)
    expect(m.storeKeysMax).toBe(1);
  });
  it("shared-counter, reads: 'on-request': each key carried by its gateway at the first sync after its admit, held until it is idle", () => {
    const m = runManyKeys({ ...base, reads: 'on-request' }, { script });
    // every gateway syncs every Δ, empty or not: 2 × 60 calls in 60 s
    expect(m.syncs).toBe(120);
    expect(m.storeOpsPerSec).toBe(2);
    expect(m.requests).toBe(4);
    expect(m.admitted).toBe(4);
    expect(m.roundTripsPerRequest).toBe(0);
    // Reads follow requests (issue 35): a key admitted at a is carried by the first sync after it (push
    // and read), then, far from L with no request since, by none; it is held until its view is empty (its
    // own admit at a + 10 s, the others' it read a window after that read) and dropped at the next sync.
    // Over the steady state (syncs at 10 … 59 s, 50 per gateway): k1 at 21 s, k2 on both gateways at
    // 31 s: 3 keys carried in 100 syncs over 50 s.
    expect(m.syncKeysPerSec).toBeCloseTo(3 / 50, 12);
    expect(m.keyOpsPerSec).toBeCloseTo(3 / 50, 12);
    expect(m.keysPerSync).toBeCloseTo(3 / 100, 12);
    expect(m.keysPerSyncMax).toBe(1);
    // held before a sync: k0 at 10 and 11 s (2), k1 at 21 … 31 s (11), k2 on both gateways at 31 … 41 s (22)
    expect(m.keysPerGateway).toBeCloseTo(0.35, 12);
    expect(m.keysPerGatewayMax).toBe(2);
    expect(m.bytesPerGateway).toBeCloseTo(0.35 * KEY_BYTES['shared-counter'], 9);
    // the store never holds more than one live key after a sync (k1 expired at 30.5 s)
    expect(m.storeKeysMax).toBe(1);
  });

  it('central-log: a store call per request, nothing held or carried by syncs', () => {
    const m = runManyKeys({ ...base, design: 'central-log' }, { script });
    expect(m.roundTripsPerRequest).toBe(1);
    expect(m.storeOpsPerSec).toBeCloseTo((120 + 4) / 60, 12);
    expect(m.syncKeysPerSec).toBe(0);
    // request-path calls in the steady state: the three after 10 s
    expect(m.keyOpsPerSec).toBeCloseTo(3 / 50, 12);
    expect(m.keysPerGateway).toBe(0);
    expect(m.bytesPerGateway).toBe(0);
  });

  it('split: holds its own log, carries nothing', () => {
    const m = runManyKeys({ ...base, design: 'split' }, { script });
    expect(m.syncKeysPerSec).toBe(0);
    expect(m.storeKeysMax).toBe(0);
    expect(m.keysPerGateway).toBeGreaterThan(0);
  });

  it('over-admission is counted per key: a flooded key past L shows in its worst window', () => {
    // 150 requests on k0 in 1.5 s, half on each gateway, before any sync: each gateway admits its 75
    const flood: ScriptedArrival[] = Array.from({ length: 150 }, (_, i) => ({
      t: 10 + i * 10,
      key: 0,
      gateway: i % 2,
      flood: true,
    }));
    const m = runManyKeys(
      { ...base, alignedSyncs: false, seed: 3, floodKeys: 1, floodPick: 'hot' },
      { script: flood },
    );
    expect(m.worstWindow).toBeGreaterThan(1);
    expect(m.windowsOverLimit).toBeGreaterThan(0);
    const central = runManyKeys(
      { ...base, design: 'central-log', floodKeys: 1, floodPick: 'hot' },
      { script: flood },
    );
    expect(central.worstWindow).toBe(1);
    expect(central.windowsOverLimit).toBe(0);
  });
});

describe('one key agrees with the single-key engine in distribution', () => {
  const p = {
    gateways: 8,
    syncS: 1,
    limit: 100,
    windowS: 60,
    windowKind: 'sliding',
    alignedSyncs: false,
    routing: 'even',
    minutes: 10,
  } as const;
  const seeds = [1, 2, 3, 4];

  it('shared-counter under a 100× flood: admitted per window within 5 %', () => {
    const many = seeds.map(
      (seed) =>
        runManyKeys({
          ...p,
          design: 'shared-counter',
          traffic: 'steady',
          load: 0,
          keys: 1,
          floodKeys: 1,
          floodLoad: 100,
          seed,
        }).admittedPerWindow,
    );
    const one = seeds.map(
      (seed) =>
        runSimulation({ ...p, design: 'shared-counter', traffic: 'flood', load: 100, seed })
          .admittedPerWindow,
    );
    expect(mean(many)).toBeGreaterThan(2);
    expect(Math.abs(mean(many) / mean(one) - 1)).toBeLessThan(0.05);
  });

  it('central-log and shared-counter, an honest client at the limit: rejections within 1.5 pp', () => {
    for (const design of ['central-log', 'shared-counter'] as const) {
      const q = { ...p, gateways: 4, minutes: 60, design, traffic: 'steady', load: 1 } as const;
      const six = [1, 2, 3, 4, 5, 6];
      const many = six.map((seed) => runManyKeys({ ...q, keys: 1, floodKeys: 0, seed }).rejectedPct);
      const one = six.map((seed) => runSimulation({ ...q, seed }).rejectedPct);
      expect(mean(one)).toBeGreaterThan(3);
      expect(Math.abs(mean(many) - mean(one))).toBeLessThan(1.5);
    }
  });
});

describe('many keys, generated traffic', () => {
  const p: RunParams = {
    ...base,
    gateways: 8,
    windowS: 60,
    alignedSyncs: false,
    load: 0.8,
    minutes: 3,
    keys: 1000,
    popularity: 1.2,
    floodKeys: 2,
    floodLoad: 30,
  };

  it('the same seed gives the same figures; the lease designs never pass L on any key', () => {
    expect(runManyKeys(p)).toEqual(runManyKeys(p));
    for (const design of ['leases', 'leases-ask'] as const) {
      const m = runManyKeys({ ...p, design, routing: 'uneven', attack: 'pick' });
      expect(m.windowsOverLimit).toBe(0);
      expect(m.worstWindow).toBeLessThanOrEqual(1);
    }
  });

  it('a longer tail holds and carries more keys', () => {
    const steep = runManyKeys(p);
    const flat = runManyKeys({ ...p, popularity: 0.8 });
    expect(flat.storeKeys).toBeGreaterThan(steep.storeKeys);
    expect(flat.keysPerGateway).toBeGreaterThan(steep.keysPerGateway);
    expect(flat.syncKeysPerSec).toBeGreaterThan(steep.syncKeysPerSec);
    // shared-counter reads every key it holds at every sync: K/Δ syncs × keys per sync
    expect(flat.syncKeysPerSec).toBeCloseTo((8 / 1) * flat.keysPerSync, 6);
  });

  it('refuses what it does not simulate, naming the field', () => {
    expect(() => runManyKeys({ ...p, traffic: 'flood' })).toThrow(/traffic/);
    expect(() => runManyKeys({ ...p, storeDelayMs: 5 })).toThrow(/storeDelayMs/);
    expect(() => runManyKeys({ ...p, keys: 0 })).toThrow(/keys/);
    expect(() => runManyKeys({ ...p, floodKeys: 1001 })).toThrow(/floodKeys/);
  });
});

describe('fleetlimit sim --keys', () => {
  const flags = { design: 'shared-counter', gateways: '8', sync: '1', limit: '100', window: '60' };
  const parse = (extra: Record<string, string>) =>
    simParams({ windowKind: 'sliding', minutes: '5', routing: 'even', ...flags, ...extra });

  it('switches to many keys with N > 1, with its defaults; keeps the single-key parameters otherwise', () => {
    const { params } = parse({ keys: '1000', popularity: 'zipf:1.2' });
    expect(params).toMatchObject({
      keys: 1000,
      popularity: 1.2,
      traffic: 'steady',
      load: 0.8,
      floodKeys: 1,
      floodLoad: 100,
      floodPick: 'hot',
    });
    expect(isManyKeys(params)).toBe(true);
    const one = parse({ keys: '1' }).params;
    expect(one).toEqual(parse({}).params);
    expect(one).not.toHaveProperty('keys');
    expect(one.traffic).toBe('flood');
  });

  it('names the bad flag', () => {
    expect(() => parse({ popularity: 'zipf:1' })).toThrow(/--popularity: needs --keys N with N > 1/);
    expect(() => parse({ floodKeys: '3' })).toThrow(/--flood-keys: needs --keys/);
    expect(() => parse({ keys: '10', popularity: '1.2' })).toThrow(/--popularity: expected zipf:S/);
    expect(() => parse({ keys: '10', popularity: 'zipf:-1' })).toThrow(/--popularity: must be at least 0/);
    expect(() => parse({ keys: '10', floodKeys: '11' })).toThrow(/--flood-keys: must be at most 10/);
    expect(() => parse({ keys: '10', floodPick: 'warm' })).toThrow(
      /--flood-pick: must be one of hot, random/,
    );
    expect(() => parse({ keys: '10', traffic: 'flood' })).toThrow(/--traffic: with --keys/);
    expect(() => parse({ keys: '10', storeDelay: '5' })).toThrow(/--store-delay: not simulated with --keys/);
    expect(() => parse({ keys: '0' })).toThrow(/--keys: must be at least 1/);
    expect(() => parse({ keys: '2000000' })).toThrow(/--keys: must be at most 1000000/);
    expect(() => parse({ keys: '1.5' })).toThrow(/--keys: expected an integer/);
  });
});

describe('the extended study’s many-keys axis', () => {
  it('runs every design × N × S at K = 8, Δ = 1 s, as part of the extended grid', () => {
    const runs = manyKeysRuns();
    expect(runs).toHaveLength(9 * 4 * 2 * 2);
    expect(runs.every((r) => r.group === 'keys' && r.params.gateways === 8 && r.params.syncS === 1)).toBe(
      true,
    );
    expect(buildGrid('extended').filter((r) => r.group === 'keys')).toHaveLength(runs.length);
    expect(buildGrid('quick').some((r) => r.group === 'keys')).toBe(false);
  });

  it('reports store work and bytes per gateway against N, per design', async () => {
    const runs = filterGrid(
      manyKeysRuns(),
      parseOnly('designs=shared-counter,central-log,keys=100,1000,popularity=1.2'),
    ).map((r) => ({ ...r, params: { ...r.params, minutes: 2 } }));
    const results = await runStudy(runs, { grid: 'test', workers: 0, checks: false });
    const shared = results.rows.filter((r) => r.design === 'shared-counter');
    expect(shared.every((r) => r.keysPerSync! > 0 && r.bytesPerGateway! > 0)).toBe(true);
    const { markdown, charts } = renderReport(results, '');
    expect(markdown).toMatch(/## Many keys: what syncing a key population costs/);
    expect(markdown).toMatch(/\| shared-counter, S = 1\.2 \|/);
    expect(charts.map((c) => c.name)).toEqual(expect.arrayContaining(['many-keys-store', 'many-keys-bytes']));
  });
});
