import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DesignId } from '../../src/config.js';
import { type DriveResult, drive, type Fleet, startFleetReady, worstWindow } from '../support/fault-fleet.js';
import { type RedisServer, startRedisServer } from '../support/redis-server.js';

/**
 * Issue 6, item 7: one gateway's clock 5 s fast, another's 5 s slow, the third right (the runtime's
 * `clock` option). RedisStore runs on Redis TIME (clock: 'redis', the default) and the runtime decides
 * on local time + the offset it learns at each sync, so the skew is taken out after the first reply (a decision that comes before it waits for it).
 * Each skewed fleet runs beside an unskewed twin (same seed, same sync phases) on the same server.
 */

const L = 50;
const W = 2000;
const K = 3;
const SYNC = 100;
const RUN_MS = 7000;
const RATE = (5 * L) / (W / 1000); // a 5× flood

let server: RedisServer;
beforeAll(async () => {
  server = await startRedisServer();
});
afterAll(async () => {
  await server?.stop();
});

const SKEWS = [5000, -5000, 0];

/** Store times of central-log's admits (the instant the store logged them), by fleet prefix. */
const logged = new Map<string, number[]>();

function fleet(design: DesignId, skewed: boolean): Promise<Fleet> {
  const prefix = `skew-${design}-${skewed ? 'skewed' : 'right'}`;
  const times: number[] = [];
  logged.set(prefix, times);
  return startFleetReady({
    wrapStore: (s) => ({
      clock: s.clock,
      sync: (req, now) => s.sync(req, now),
      ask: (...a) => s.ask(...a),
      voidLogAdmits: (...a) => s.voidLogAdmits(...a),
      logAdmit: async (...a) => {
        const r = await s.logAdmit(...a);
        if (r.allowed) times.push(r.now);
        return r;
      },
    }),
    design,
    k: K,
    limit: L,
    windowMs: W,
    syncMs: SYNC,
    prefix,
    url: server.url,
    clocks: SKEWS.map((s) => (skewed ? () => Date.now() + s : Date.now)),
    // the same sync phases in both fleets
    extra: { random: () => 0.37 },
  });
}

/** Admitted per window after the first, × L (the study's admittedPerWindow). */
function perWindow(r: DriveResult, t0: number): number {
  const after = r.admitted.filter((a) => a.wall >= t0 + W).length;
  return after / ((RUN_MS - W) / W) / L;
}

describe('faults: clock skew ±5 s (real redis-server)', () => {
  it('exact designs never pass L in any window; synced designs stay within −10 % / +12 % of their unskewed figure', async () => {
    const exact: DesignId[] = ['central-log', 'leases', 'leases-ask'];
    const synced: DesignId[] = ['shared-counter', 'assume-others', 'track-share'];
    const setups: { design: DesignId; skewed: boolean }[] = [
      ...exact.map((design) => ({ design, skewed: true })),
      ...synced.flatMap((design) => [
        { design, skewed: true },
        { design, skewed: false },
      ]),
    ];
    const fleets = await Promise.all(setups.map((s) => fleet(s.design, s.skewed)));
    const t0 = Date.now();
    // twins share a seed: the same arrivals on the same gateways
    const results = await Promise.all(
      fleets.map((f, i) => drive(f.gws, 'k', RATE, RUN_MS, 700 + synced.indexOf(setups[i].design))),
    );
    await Promise.all(fleets.map((f) => f.stop()));
    for (const f of fleets) f.disconnect();
    const lines: string[] = [];
    for (const [i, s] of setups.entries()) {
      const r = results[i];
      // central-log admits at the store, on its clock; the others at the gateway, at once (wall time)
      const times =
        s.design === 'central-log' ? logged.get(fleets[i].spec.prefix)! : r.admitted.map((a) => a.wall);
      const worst = worstWindow(times, W);
      if (exact.includes(s.design)) {
        lines.push(
          `${s.design.padEnd(14)} skewed: worst window ${worst} of L=${L} (${r.admitted.length} admitted of ${r.requests})`,
        );
        expect.soft(worst).toBeLessThanOrEqual(L);
        // and the skew does not stall them: about L per window gets through the flood
        expect.soft(r.admitted.length).toBeGreaterThanOrEqual(0.8 * L * (RUN_MS / W));
      } else if (s.skewed) {
        const skewed = perWindow(r, t0);
        const right = perWindow(results[i + 1], t0);
        lines.push(
          `${s.design.padEnd(14)}: ${skewed.toFixed(3)} × L per window skewed, ${right.toFixed(3)} × L unskewed (${((skewed / right - 1) * 100).toFixed(1)} %); worst window ${worst} vs ${worstWindow(
            results[i + 1].admitted.map((a) => a.wall),
            W,
          )}`,
        );
        // two fleets with no skew at all, run side by side like this, differ by up to 6 % (shared-counter
        // under this 5× flood; measured 0–5.8 % over 5 runs), the skewed one by up to 9 % (0–8.8 %)
        expect.soft(skewed).toBeLessThanOrEqual(right * 1.12);
        // nor does it stall them (a clock ahead once held the key shut for the skew + W)
        expect.soft(skewed).toBeGreaterThanOrEqual(right * 0.9);
      }
    }
    console.log(
      `clock skew +5 s / −5 s / 0 (K=${K}, L=${L}, W=${W / 1000} s, Δ=${SYNC} ms, 5× flood, ${RUN_MS / 1000} s):\n${lines.join('\n')}`,
    );
  }, 40_000);
});
