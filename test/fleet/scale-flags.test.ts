import { describe, expect, it } from 'vitest';
import { type FleetFlags, fleetSettings } from '../../src/cli/fleet-command.js';
import { UsageError } from '../../src/cli/parse.js';
import { maxGateways } from '../../src/fleet/settings.js';
import { settingsLine } from '../../src/fleet/table.js';

const flags: FleetFlags = {
  design: 'split',
  gateways: '4',
  limit: '100/5s',
  sync: '250ms',
  traffic: 'flood',
  load: '20',
  routing: 'even',
  duration: '20s',
  inject: [],
  seed: '1',
  simSeeds: '1',
  storeTimeout: '200ms',
  warmup: '0',
};

describe("fleet: gateway processes joining and stopping mid-run, K fixed or 'auto'", () => {
  it('--auto-gateways and --scale K@T become the settings, and the title says them', () => {
    const s = fleetSettings({ ...flags, autoGateways: true, scale: ['8@5s', '2@10', '4@15s'] });
    expect(s.autoGateways).toBe(true);
    expect(s.scale).toEqual([
      { atMs: 5000, gateways: 8 },
      { atMs: 10000, gateways: 2 },
      { atMs: 15000, gateways: 4 },
    ]);
    expect(maxGateways(s)).toBe(8);
    const line = settingsLine({ settings: { ...s, arrivalRatePerS: 400, simMinutes: 1 } } as never);
    expect(line).toMatch(/^split: K = auto, 4 gateways → 8 at 5 s → 2 at 10 s → 4 at 15 s, L = 100/);
  });

  it('without them the settings and the title are as before', () => {
    const s = fleetSettings(flags);
    expect(s.autoGateways).toBeUndefined();
    expect(s.scale).toBeUndefined();
    expect(maxGateways(s)).toBe(4);
    const line = settingsLine({ settings: { ...s, arrivalRatePerS: 400, simMinutes: 1 } } as never);
    expect(line).toMatch(/^split: K = 4, L = 100/);
  });

  it('a bad step is a usage error naming --scale', () => {
    for (const scale of [['8'], ['0@5s'], ['33@5s'], ['8@25s'], ['8@10s', '4@5s']]) {
      expect(() => fleetSettings({ ...flags, scale })).toThrow(UsageError);
      expect(() => fleetSettings({ ...flags, scale })).toThrow(/--scale/);
    }
    expect(() => fleetSettings({ ...flags, routing: 'uneven', scale: ['8@5s'] })).toThrow(/--routing even/);
  });
});
