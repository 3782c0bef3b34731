import { describe, expect, it } from 'vitest';
import { fleetSettings } from '../../src/cli/fleet-command.js';
import { limitPerWindow, millis, seconds } from '../../src/cli/parse.js';
import { simParams } from '../../src/cli/sim-command.js';

// Durations read the same way on every command: --window 10s, --sync 250ms, --limit 100/1m; a bare
// number keeps its old unit (seconds for windows and syncs, ms for store delays and timeouts).
describe('durations on the command line', () => {
  it('seconds(): units, and a bare number exactly as written', () => {
    expect(seconds('--sync', '250ms')).toBe(0.25);
    expect(seconds('--sync', '1.1')).toBe(1.1);
    expect(seconds('--sync', '1.1s')).toBe(1.1);
    expect(seconds('--window', '1m')).toBe(60);
    expect(seconds('--window', '2h')).toBe(7200);
    expect(() => seconds('--sync', '0')).toThrow('--sync: must be greater than 0');
    expect(() => seconds('--sync', 'soon')).toThrow('--sync: expected a duration like 250ms, 10s or 1m');
  });

  it('millis(): a bare number is ms, units convert', () => {
    expect(millis('--store-timeout', '200')).toBe(200);
    expect(millis('--store-timeout', '1s')).toBe(1000);
    expect(millis('--store-delay', '0.5')).toBe(0.5);
    expect(millis('--warmup', '2', 's')).toBe(2000);
  });

  it('--limit L/W sets the window; given twice it must agree', () => {
    expect(limitPerWindow('100/1m', undefined, 6)).toEqual({ limit: 100, windowS: 60 });
    expect(limitPerWindow('100', '10s', 6)).toEqual({ limit: 100, windowS: 10 });
    expect(limitPerWindow('100', undefined, 6)).toEqual({ limit: 100, windowS: 6 });
    expect(limitPerWindow('100/1m', '60', 6)).toEqual({ limit: 100, windowS: 60 });
    expect(() => limitPerWindow('100/1m', '10s', 6)).toThrow('--window: 10s disagrees with --limit 100/1m');
  });

  const sim = (extra: Record<string, string>) =>
    simParams({
      design: 'shared-counter',
      gateways: '8',
      sync: '1',
      limit: '100',
      windowKind: 'sliding',
      routing: 'even',
      minutes: '5',
      ...extra,
    } as Parameters<typeof simParams>[0]).params;

  it('sim: --window 10s --sync 250ms --limit 100/10s, and bare numbers as before', () => {
    expect(sim({ window: '10s', sync: '250ms' })).toMatchObject({ windowS: 10, syncS: 0.25, limit: 100 });
    expect(sim({ limit: '100/1m', sync: '250ms' })).toMatchObject({ windowS: 60, syncS: 0.25 });
    expect(sim({ window: '60', sync: '1' })).toMatchObject({ windowS: 60, syncS: 1 });
    expect(sim({})).toMatchObject({ windowS: 60 });
    expect(sim({ storeDelay: '5ms' })).toMatchObject({ storeDelayMs: 5 });
    expect(sim({ storeDelay: '5' })).toMatchObject({ storeDelayMs: 5 });
  });

  it('fleet: the same forms', () => {
    const fleet = (extra: Record<string, string>) =>
      fleetSettings({
        design: 'shared-counter',
        gateways: '2',
        limit: '100',
        sync: '100ms',
        traffic: 'flood',
        load: '10',
        routing: 'even',
        duration: '20s',
        inject: [],
        seed: '1',
        simSeeds: '1',
        storeTimeout: '200ms',
        warmup: '1s',
        ...extra,
      });
    expect(fleet({ window: '6s' })).toMatchObject({
      windowMs: 6000,
      syncMs: 100,
      durationMs: 20_000,
      storeTimeoutMs: 200,
      warmupMs: 1000,
    });
    expect(fleet({ limit: '50/6s' })).toMatchObject({ windowMs: 6000, limit: 50 });
    expect(
      fleet({ window: '6', sync: '0.1', duration: '20', storeTimeout: '200', warmup: '0' }),
    ).toMatchObject({
      windowMs: 6000,
      syncMs: 100,
      warmupMs: 0,
    });
  });
});
