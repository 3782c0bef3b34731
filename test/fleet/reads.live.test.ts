import { describe, expect, it } from 'vitest';
import { runFleet } from '../../src/fleet/run.js';
import type { FleetSettings } from '../../src/fleet/settings.js';
import { formatComparison } from '../../src/fleet/table.js';

// `fleetlimit fleet --reads on-request` (issue 35, docs/decisions/0013): the live gateways read a quiet
// key once after its request, and the simulator beside them does the same, so their key-syncs agree.
// 1,000 keys at even popularity, each far from L (0.06 × L per W): a held key is read every Δ by
// default, about once per request with the option. A short run (W = 2 s, about 15 s in all).
describe('fleetlimit fleet --reads on-request, end to end', () => {
  it('1,000 quiet keys, K = 2: live key-syncs follow requests and match the simulator’s', async () => {
    const settings: FleetSettings = {
      design: 'adaptive',
      gateways: 2,
      limit: 20,
      windowMs: 2000,
      syncMs: 250,
      traffic: 'steady',
      load: 0.06,
      routing: 'even',
      durationMs: 6000,
      redisUrl: process.env.REDIS_URL || null,
      inject: [],
      seed: 3,
      simSeeds: 2,
      storeTimeoutMs: 500,
      warmupMs: 500,
      keys: { count: 1000, popularity: 0 },
      expiryMarginMs: 500,
      reads: 'on-request',
    };
    const r = await runFleet(settings);
    const k = r.live.keys;
    expect(k).toBeDefined();
    if (k === undefined) return;
    console.log(formatComparison(r));
    expect(r.live.arrivals.failed).toBe(0);
    expect(r.live.sync.errors + r.live.sync.refusals).toBe(0);
    const perSec = r.live.requests / (settings.durationMs / 1000);
    // about one read per request (600 requests/s here), where every-sync reads every held key 4 times a
    // second (~2 × 1,000 here): the gateways took the option
    expect(k.keySyncsPerSec).toBeLessThan(1.5 * perSec);
    expect(k.keySyncsPerSec).toBeGreaterThan(0.5 * perSec);
    // and the simulator ran with it too: the two counts agree (the bound is 10 %; a short,
    // loaded run is given 20 %)
    expect(Math.abs(k.keySyncsPerSec - r.sim.syncKeysPerSec) / r.sim.syncKeysPerSec).toBeLessThan(0.2);
    expect(formatComparison(r)).toContain('reads on-request');
  }, 60_000);
});
