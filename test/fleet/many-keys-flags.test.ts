import { describe, expect, it } from 'vitest';
import { type FleetFlags, fleetSettings } from '../../src/cli/fleet-command.js';
import { UsageError } from '../../src/cli/parse.js';
import { keyOfPath, keyPath, ZipfKeys } from '../../src/fleet/key-choice.js';
import { arrivalRate } from '../../src/fleet/settings.js';
import { settingsLine } from '../../src/fleet/table.js';
import { zipfTotal, zipfWeights } from '../../src/sim/many-keys.js';
import { Random } from '../../src/sim/random.js';

const flags: FleetFlags = {
  design: 'shared-counter',
  gateways: '8',
  limit: '100',
  sync: '1s',
  routing: 'even',
  duration: '20s',
  inject: [],
  seed: '1',
  simSeeds: '1',
  storeTimeout: '200ms',
  warmup: '0',
};

describe('fleet --keys N --popularity zipf:S', () => {
  it('become settings.keys, with steady traffic and the hottest key at 0.8× by default', () => {
    const s = fleetSettings({ ...flags, keys: '100000', popularity: 'zipf:0.8' });
    expect(s.keys).toEqual({ count: 100_000, popularity: 0.8 });
    expect(s.traffic).toBe('steady');
    expect(s.load).toBe(0.8);
    // every key's honest client together: the hottest key's rate × Σ 1/r^S
    expect(arrivalRate(s)).toBeCloseTo(((0.8 * 100) / 6) * zipfTotal(100_000, 0.8), 6);
    const line = settingsLine({
      settings: { ...s, arrivalRatePerS: arrivalRate(s), simMinutes: 1 },
    } as Parameters<typeof settingsLine>[0]);
    expect(line).toContain('100,000 keys at zipf 0.8');
  });

  it('leave the one-key run as it was when --keys is not given', () => {
    const s = fleetSettings({ ...flags, traffic: 'flood', load: '100' });
    expect(s.keys).toBeUndefined();
    expect('keys' in s).toBe(false);
    const d = fleetSettings(flags);
    expect(d.traffic).toBe('flood');
    expect(d.load).toBe(100);
    expect(arrivalRate(d)).toBeCloseTo((100 * 100) / 6, 9);
  });

  it('refuse bad values, naming the flag', () => {
    const bad: Partial<FleetFlags>[] = [
      { keys: '0' },
      { keys: '1.5' },
      { keys: '2000000' },
      { keys: '10', popularity: 'zipf:' },
      { keys: '10', popularity: 'zipf:-1' },
      { keys: '10', popularity: 'pareto:1' },
      { popularity: 'zipf:1' },
      { keys: '10', traffic: 'flood' },
    ];
    for (const b of bad)
      expect(() => fleetSettings({ ...flags, ...b }), JSON.stringify(b)).toThrow(UsageError);
    expect(() => fleetSettings({ ...flags, keys: '10', popularity: 'x' })).toThrow(/--popularity/);
    expect(() => fleetSettings({ ...flags, keys: '10', traffic: 'flood' })).toThrow(/--traffic/);
  });
});

describe('fleet --keys N --flood-keys M --flood-load X --flood-pick P --expiry-margin T', () => {
  it('become settings.keys.flood and expiryMarginMs; the flood adds M × X × L per W to the arrivals', () => {
    const s = fleetSettings({
      ...flags,
      keys: '1000',
      popularity: 'zipf:0.8',
      floodKeys: '3',
      floodLoad: '20',
    });
    expect(s.keys).toEqual({ count: 1000, popularity: 0.8, flood: { keys: 3, load: 20, pick: 'hot' } });
    expect(arrivalRate(s)).toBeCloseTo(((0.8 * zipfTotal(1000, 0.8) + 3 * 20) * 100) / 6, 6);
    const line = settingsLine({
      settings: { ...s, arrivalRatePerS: arrivalRate(s), simMinutes: 1 },
    } as Parameters<typeof settingsLine>[0]);
    expect(line).toContain('3 hot key(s) flooded at 20× each');
    const r = fleetSettings({
      ...flags,
      keys: '1000',
      floodKeys: '2',
      floodPick: 'random',
      expiryMargin: '500ms',
    });
    expect(r.keys?.flood).toEqual({ keys: 2, load: 100, pick: 'random' });
    expect(r.expiryMarginMs).toBe(500);
    // --flood-keys 0 (or none): no flood, and the settings say nothing of one
    expect(fleetSettings({ ...flags, keys: '10', floodKeys: '0' }).keys).toEqual({
      count: 10,
      popularity: 1,
    });
    expect('expiryMarginMs' in fleetSettings({ ...flags, keys: '10' })).toBe(false);
  });

  it('refuse bad values, naming the flag', () => {
    const bad: [Partial<FleetFlags>, RegExp][] = [
      [{ floodKeys: '1' }, /--flood-keys/],
      [{ expiryMargin: '1s' }, /--expiry-margin/],
      [{ keys: '10', floodKeys: '11' }, /--flood-keys/],
      [{ keys: '10', floodKeys: '-1' }, /--flood-keys/],
      [{ keys: '10', floodKeys: '1', floodLoad: '0' }, /--flood-load/],
      [{ keys: '10', floodKeys: '1', floodPick: 'cold' }, /--flood-pick/],
      [{ keys: '10', floodLoad: '5' }, /--flood-load/],
      [{ keys: '10', expiryMargin: '0' }, /--expiry-margin/],
      [{ keys: '10', expiryMargin: '2h' }, /--expiry-margin/],
    ];
    for (const [b, flag] of bad) {
      expect(() => fleetSettings({ ...flags, ...b }), JSON.stringify(b)).toThrow(UsageError);
      expect(() => fleetSettings({ ...flags, ...b }), JSON.stringify(b)).toThrow(flag);
    }
  });
});

describe('ZipfKeys: the simulator’s key draw', () => {
  // src/sim/many-keys.ts keeps its picker inside runManyKeys; this is its code, for a seed-by-seed check
  function simPicker(N: number, S: number, rng: Random): () => number {
    const cum = new Float64Array(N);
    for (let r = 0, c = 0; r < N; r++) cum[r] = c += (r + 1) ** -S;
    const cumTotal = cum[N - 1];
    return () => {
      const u = rng.uniform() * cumTotal;
      let lo = 0;
      let hi = N - 1;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (cum[mid] > u) hi = mid;
        else lo = mid + 1;
      }
      return lo;
    };
  }

  it('draws the same ranks as the simulator for the same seed', () => {
    for (const [N, S, seed] of [
      [1000, 0.8, 1],
      [100_000, 0.8, 7],
      [3, 0, 2],
      [1, 1, 3],
    ] as const) {
      const z = new ZipfKeys(N, S);
      const mine = new Random(seed);
      const sim = simPicker(N, S, new Random(seed));
      for (let i = 0; i < 5000; i++) expect(z.pick(mine)).toBe(sim());
    }
  });

  it('draws ranks with the simulator’s Zipf weights', () => {
    const N = 20;
    const S = 0.8;
    const z = new ZipfKeys(N, S);
    const rng = new Random(11);
    const n = 200_000;
    const counts = new Array<number>(N).fill(0);
    for (let i = 0; i < n; i++) counts[z.pick(rng)]++;
    const w = zipfWeights(N, S);
    for (let r = 0; r < N; r++) {
      const sd = Math.sqrt(n * w[r] * (1 - w[r]));
      expect(Math.abs(counts[r] - n * w[r]), `rank ${r}`).toBeLessThan(5 * sd);
    }
  });

  it('a key travels as /k/<rank>; the gateway takes only ranks of the run', () => {
    expect(keyOfPath(keyPath(42), 100)).toBe('k42');
    expect(keyOfPath('/k/0', 1)).toBe('k0');
    for (const p of ['/k/100', '/k/', '/k/01', '/k/-1', '/k/1e3', '/k/9999999999', '/warmup', '/', undefined])
      expect(keyOfPath(p, 100), String(p)).toBeNull();
  });
});

describe('fleet --reads every-sync|on-request', () => {
  it('reaches the settings only away from the default, and the simulator’s parameters with them', async () => {
    const { simParamsOf } = await import('../../src/fleet/fleet-sim.js');
    expect('reads' in fleetSettings(flags)).toBe(false);
    expect('reads' in fleetSettings({ ...flags, reads: 'every-sync' })).toBe(false);
    const s = fleetSettings({ ...flags, keys: '1000', reads: 'on-request' });
    expect(s.reads).toBe('on-request');
    expect(simParamsOf(s, 1).reads).toBe('on-request');
    expect('reads' in simParamsOf(fleetSettings(flags), 1)).toBe(false);
  });

  it('refuses a bad value, naming --reads', () => {
    expect(() => fleetSettings({ ...flags, reads: 'sometimes' })).toThrow(
      /--reads: must be one of every-sync, on-request; got "sometimes"/,
    );
  });
});
