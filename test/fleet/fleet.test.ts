import { describe, expect, it } from 'vitest';
import { runFleet } from '../../src/fleet/run.js';
import type { FleetSettings } from '../../src/fleet/settings.js';
import { METRIC_KEYS } from '../../src/sim/run.js';

// A short live fleet, end to end: 3 gateway processes, a private redis-server (or REDIS_URL), the
// upstream and the load process. Figures vary with the machine's load, so this checks structure and
// the invariants that hold whatever the timing, not exact numbers.
describe('fleetlimit fleet, end to end', () => {
  it('leases-ask, K = 3: the upstream saw exactly what the gateways admitted, never more than L in a window up to clock error', async () => {
    const settings: FleetSettings = {
      design: 'leases-ask',
      gateways: 3,
      limit: 20,
      windowMs: 1000,
      syncMs: 100,
      traffic: 'flood',
      load: 4,
      routing: 'even',
      durationMs: 4000,
      redisUrl: process.env.REDIS_URL || null,
      inject: [],
      seed: 7,
      simSeeds: 2,
      storeTimeoutMs: 500,
    };
    const r = await runFleet(settings);
    const { live, sim } = r;
    for (const k of ['admittedPerWindow', 'worstWindow', 'rejectedPct', 'roundTripsPerRequest'] as const) {
      expect(Number.isFinite(live[k]), k).toBe(true);
      expect(Number.isFinite(sim[k]), k).toBe(true);
    }
    for (const k of METRIC_KEYS) expect(typeof sim[k]).toBe('number');
    expect(live.requests).toBeGreaterThan(0);
    expect(live.arrivals.failed).toBe(0);
    // the upstream's own log against the gateways' counters: every admit arrived, nothing else did
    expect(live.upstreamLogged).toBe(live.gatewaysAdmitted);
    expect(live.upstreamLogged).toBeGreaterThan(0);
    // a flood at 4× L: something was rejected
    expect(live.rejectedPct).toBeGreaterThan(0);
    // The lease design never lets L + 1 admits of the upstream's log fall within one window, up to the
    // gateways' clock error: admits are stamped on each gateway's estimate of the store's clock, off
    // by at most half a sync round trip, and a round trip longer than the store timeout is a failure
    // that teaches nothing. Two gateways off in opposite directions: at most storeTimeoutMs together.
    // (The ask/sync race fixed on main put L + 1 admits within milliseconds: short of W by nearly W.)
    expect(live.overLimitByMs).toBeLessThanOrEqual(settings.storeTimeoutMs);
    // leases-ask asks the store on some requests only
    expect(live.roundTripsPerRequest).toBeGreaterThan(0);
    expect(live.roundTripsPerRequest).toBeLessThan(1);
    expect(live.sync.syncs).toBeGreaterThan(0);
    expect(live.latency.viaGateway.count).toBeGreaterThan(0);
    expect(live.latency.direct.count).toBeGreaterThan(0);
    expect(r.settings).toMatchObject({ design: 'leases-ask', gateways: 3, arrivalRatePerS: 80 });
  });
});
