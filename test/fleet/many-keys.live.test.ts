import { describe, expect, it } from 'vitest';
import { runFleet } from '../../src/fleet/run.js';
import type { FleetSettings } from '../../src/fleet/settings.js';
import { formatComparison } from '../../src/fleet/table.js';

// A short live run over many keys: 2 gateway processes on a private redis-server (or REDIS_URL),
// 1,000 keys at Zipf 0.8. Timing-dependent figures are checked for presence and plausibility only.
describe('fleetlimit fleet --keys, end to end', () => {
  it('1,000 keys at zipf 0.8, K = 2: key-syncs, held keys, Redis CPU and memory per key, no errors', async () => {
    const settings: FleetSettings = {
      design: 'shared-counter',
      gateways: 2,
      limit: 100,
      windowMs: 2000,
      syncMs: 500,
      traffic: 'steady',
      load: 0.8,
      routing: 'even',
      durationMs: 5000,
      redisUrl: process.env.REDIS_URL || null,
      inject: [],
      seed: 3,
      simSeeds: 1,
      storeTimeoutMs: 500,
      warmupMs: 500,
      keys: { count: 1000, popularity: 0.8 },
    };
    const r = await runFleet(settings);
    const k = r.live.keys;
    expect(k).toBeDefined();
    if (k === undefined) return;
    expect(r.live.requests).toBeGreaterThan(1000);
    expect(r.live.arrivals.failed).toBe(0);
    expect(r.live.upstreamLogged).toBe(r.live.gatewaysAdmitted);
    expect(r.live.sync.errors + r.live.sync.timeouts + r.live.sync.refusals).toBe(0);
    expect(r.live.sync.storeCallFailures).toBe(0);
    expect(k.keySyncsPerSec).toBeGreaterThan(0);
    // the keys a gateway holds: many (most of the ~400 keys with traffic in a window), never more than N
    expect(k.heldKeysPerGateway).toBeGreaterThan(50);
    expect(k.heldKeysPerGateway).toBeLessThanOrEqual(1000);
    expect(Number.isFinite(k.heapBytesPerHeldKey)).toBe(true);
    expect(k.redis.userKeys).toBeGreaterThan(50);
    expect(k.redis.userKeys).toBeLessThanOrEqual(1000);
    // a key's records (a log and a meta hash with a few members) take tens to a few thousand bytes
    expect(k.redis.bytesPerKeySampled).toBeGreaterThan(50);
    expect(k.redis.bytesPerKeySampled).toBeLessThan(10_000);
    expect(k.redis.cpuShare).toBeGreaterThan(0);
    expect(k.redis.cpuShare).toBeLessThan(2);
    // the hottest key at 0.8× L: honest clients are (almost) never rejected
    expect(k.unfloodedRejectedPct).toBeLessThan(5);
    // the simulator's figures for the same settings sit beside them
    expect(r.sim.syncKeysPerSec).toBeGreaterThan(0);
    expect(r.sim.keysPerGateway).toBeGreaterThan(0);
    const text = formatComparison(r);
    expect(text).toContain('key-syncs per second');
    expect(text).toContain('1,000 keys at zipf 0.8');
  }, 60_000);
});
