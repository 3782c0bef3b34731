/**
 * The fleet's onset traffic without a fleet: the flags, the arrivals (the honest client's as before, a flood on
 * top from 2W, spread or to one gateway) and the window figure the live run sets beside the simulator's.
 */
import { describe, expect, it } from 'vitest';
import { type FleetFlags, fleetSettings } from '../../src/cli/fleet-command.js';
import { UsageError } from '../../src/cli/parse.js';
import { Arrivals } from '../../src/fleet/arrivals.js';
import { simParamsOf } from '../../src/fleet/fleet-sim.js';
import { expectedRequests, floodOnset, onsetAtMs } from '../../src/fleet/settings.js';
import { windowFigures } from '../../src/fleet/stats.js';
import { settingsLine } from '../../src/fleet/table.js';
import { WindowMeter } from '../../src/sim/engine/window-meter.js';
import { Random } from '../../src/sim/random.js';

const flags: FleetFlags = {
  design: 'adaptive',
  gateways: '8',
  limit: '100/6s',
  sync: '0.1',
  routing: 'even',
  duration: '18',
  inject: [],
  seed: '1',
  simSeeds: '1',
  storeTimeout: '200ms',
  warmup: '0',
  traffic: 'onset',
};

describe('fleet --traffic onset', () => {
  it('an empty key by default, a 100× flood spread from 2W, and the simulator asked the same', () => {
    const s = fleetSettings(flags);
    expect(s).toMatchObject({ traffic: 'onset', load: 0, floodLoad: 100 });
    expect(s.attack).toBeUndefined();
    expect(onsetAtMs(s)).toBe(12_000);
    expect(floodOnset(s)).toEqual({ load: 100, atMs: 12_000, pick: false });
    // the flood for the last 6 s of 18: 100 × 100 per 6 s
    expect(expectedRequests(s)).toBeCloseTo(10_000, 6);
    expect(simParamsOf(s, 0.3)).toMatchObject({ traffic: 'onset', load: 0, floodLoad: 100, minutes: 0.3 });
    const busy = fleetSettings({ ...flags, load: '0.8', floodLoad: '30', attack: 'pick' });
    expect(floodOnset(busy)).toEqual({ load: 30, atMs: 12_000, pick: true });
    expect(simParamsOf(busy, 0.3)).toMatchObject({ load: 0.8, floodLoad: 30, attack: 'pick' });
    expect(expectedRequests(busy)).toBeCloseTo((0.8 * 100 * 18) / 6 + 30 * 100, 6);
    const line = settingsLine({
      settings: { ...busy, arrivalRatePerS: 80 / 6, simMinutes: 0.3 },
    } as Parameters<typeof settingsLine>[0]);
    expect(line).toContain(
      'onset: an honest client at 0.8× (13 req/s), then a 30× flood to one gateway from 12 s',
    );
  });

  it('leaves the other traffic as it was', () => {
    const s = fleetSettings({ ...flags, traffic: 'flood', load: '100' });
    expect(floodOnset(s)).toBeUndefined();
    expect('floodLoad' in s).toBe(false);
    expect(simParamsOf(s, 1)).not.toHaveProperty('floodLoad');
    expect(fleetSettings({ ...flags, traffic: 'flood', attack: 'pick' }).attack).toBe('pick');
  });

  it('refuses what it cannot measure, naming the flag', () => {
    const bad: [Partial<FleetFlags>, string][] = [
      [{ duration: '17' }, '--duration'],
      [{ traffic: 'steady', floodLoad: '10' }, '--flood-load'],
      [{ traffic: 'steady', load: '0.8', attack: 'pick' }, '--attack'],
      [{ attack: 'one' }, '--attack'],
      [{ floodLoad: '0' }, '--flood-load'],
      [{ load: '-1' }, '--load'],
      [{ traffic: 'flood', load: '0' }, '--load'],
      // 1,300 × 100 per 6 s is 21,667 req/s
      [{ floodLoad: '1300' }, '--flood-load'],
    ];
    for (const [f, flag] of bad) {
      let err: unknown;
      try {
        fleetSettings({ ...flags, ...f });
      } catch (e) {
        err = e;
      }
      expect(err, JSON.stringify(f)).toBeInstanceOf(UsageError);
      expect((err as Error).message, JSON.stringify(f)).toContain(flag);
    }
  });
});

describe('onset arrivals', () => {
  const take = (a: Arrivals, until: number) => {
    const out: { t: number; gateway: number }[] = [];
    for (let x = a.take(); x.t < until; x = a.take()) out.push(x);
    return out;
  };

  it('the honest arrivals of a seed are the same with the flood, which adds its own from its instant on', () => {
    const honest = take(new Arrivals('steady', 0.8, 100, 6000, 'uneven', 4, 3), 18_000);
    const both = take(
      new Arrivals('onset', 0.8, 100, 6000, 'uneven', 4, 3, { load: 100, atMs: 12_000, pick: false }),
      18_000,
    );
    const flood = both.filter((x) => !honest.some((h) => h.t === x.t && h.gateway === x.gateway));
    expect(both.length - flood.length).toBe(honest.length);
    for (let i = 1; i < both.length; i++) expect(both[i]!.t).toBeGreaterThanOrEqual(both[i - 1]!.t);
    expect(Math.min(...flood.map((x) => x.t))).toBeGreaterThanOrEqual(12_000);
    // 100 × 100 per 6 s for 6 s: 10,000 expected, Poisson sd 100; 5 sd either way
    expect(Math.abs(flood.length - 10_000)).toBeLessThan(500);
    // spread evenly: each gateway a quarter, within 5 sd of a binomial (sd ≈ 43)
    for (let g = 0; g < 4; g++)
      expect(Math.abs(flood.filter((x) => x.gateway === g).length - flood.length / 4)).toBeLessThan(220);
  });

  it('an empty key has only the flood; pick sends it all to gateway 0', () => {
    const a = take(
      new Arrivals('onset', 0, 100, 6000, 'even', 4, 9, { load: 10, atMs: 12_000, pick: true }),
      18_000,
    );
    expect(a.length).toBeGreaterThan(800);
    expect(a.every((x) => x.gateway === 0 && x.t >= 12_000)).toBe(true);
  });
});

describe('the onset worst window, live and simulated alike', () => {
  it('is the most admits in a W-long span ending within W of the onset', () => {
    // W = 10, L = 2, onset at 20: spans ending in [20, 30) count; the busier one ending at 34 does not
    const f = windowFigures([10, 11, 12, 21, 22, 25, 29.5, 31, 32, 33, 34], 10, 2, 40, 20);
    expect(f.worstWindow).toBe(3);
    // ending at 29.5: 21, 22, 25, 29.5
    expect(f.onsetWorst).toBe(2);
    expect(windowFigures([10, 11, 12], 10, 2, 40).onsetWorst).toBe(0);
  });

  it('agrees with the simulator’s WindowMeter on random admit logs', () => {
    const rng = new Random(5);
    for (let run = 0; run < 50; run++) {
      const W = 1000;
      const L = 5;
      const onset = 2000;
      const times: number[] = [];
      for (let t = rng.exponential(0.02); t < 4000; t += rng.exponential(0.02)) times.push(t);
      const meter = new WindowMeter(W, L, false, onset);
      for (const t of times) meter.noteAdmit(t);
      const f = windowFigures(times, W, L, 4000, onset);
      expect(f.onsetWorst).toBe(meter.onsetWorst / L);
      expect(f.worstWindow).toBe(meter.worst / L);
    }
  });
});
