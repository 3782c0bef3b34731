import { describe, expect, it } from 'vitest';
import { runFleet } from '../../src/fleet/run.js';
import type { FleetSettings } from '../../src/fleet/settings.js';
import { formatComparison } from '../../src/fleet/table.js';

// A short live onset: 2 gateway processes on a private redis-server (or REDIS_URL), an empty key, then a 10×
// flood from 2W to the end at 3W. Timing varies with the machine's load, so this checks what holds whatever
// it: the flood came on at 2W (every admit falls in the onset's window), at least L of it got through, and
// the live figure is printed beside the simulator's.
describe('fleetlimit fleet --traffic onset, end to end', () => {
  it('shared-counter, K = 2: the worst window in the first W after the onset, live beside the simulator', async () => {
    const settings: FleetSettings = {
      design: 'shared-counter',
      gateways: 2,
      limit: 20,
      windowMs: 1000,
      syncMs: 100,
      traffic: 'onset',
      load: 0,
      floodLoad: 10,
      routing: 'even',
      durationMs: 3000,
      redisUrl: process.env.REDIS_URL || null,
      inject: [],
      seed: 3,
      simSeeds: 2,
      storeTimeoutMs: 500,
      warmupMs: 300,
    };
    const r = await runFleet(settings);
    const { live, sim } = r;
    expect(live.upstreamLogged).toBe(live.gatewaysAdmitted);
    // an empty key until 2W and the run ends at 3W: every span ends within the onset's window
    expect(live.onsetWorst).toBe(live.worstWindow);
    expect(live.onsetWorst).toBeGreaterThanOrEqual(1);
    expect(sim.onsetWorst).toBe(sim.worstWindow);
    expect(sim.onsetWorst).toBeGreaterThanOrEqual(1);
    // the flood only: 10 × 20 per second for 1 s, about 200 requests
    expect(live.requests).toBeGreaterThan(100);
    expect(live.requests).toBeLessThan(300);
    const table = formatComparison(r);
    expect(table).toContain('onset: an empty key, then a 10× flood spread from 2 s');
    expect(table).toMatch(/onset: worst window in the first W \(× L\) +\d+\.\d{3} +\d+\.\d{3}/);
  });
});
