/**
 * One flood through a fleet of NGINX + sidecar pairs, measured at the upstream with the simulator's
 * window definitions, beside the simulator's figure for the same design, K, L, W, Δ and load (what
 * the library predicts). Used by test/sidecar/nginx.live.test.ts (short) and scripts/sidecar-nginx.ts (long).
 */
import type { DesignId } from '../../src/config.js';
import { windowFigures } from '../../src/fleet/stats.js';
import { SIDECAR_READS } from '../../src/sidecar/gateway-defaults.js';
import { runSeeds } from '../../src/sim/run.js';
import { flood, type ProxyFleet, startProxyFleet } from './proxy-fleet.js';

export interface CompareSettings {
  redisUrl: string;
  design: DesignId;
  gateways: number;
  limit: number;
  windowMs: number;
  syncMs: number;
  /** multiple of L per W */
  load: number;
  durationMs: number;
  /** warm-up flood on a key of its own before the measured one, ms */
  warmupMs: number;
  seed: number;
  simSeeds: number;
  prefix: string;
}

export interface CompareResult {
  live: {
    admittedPerWindow: number;
    worstWindow: number;
    /**
     * The most admits whose whole decision interval (sent … answered, at the client) lies in one window,
     * × L: a lower bound of the worst window in the sidecars' own frame, whatever the machine's load
     * (see definiteWorstWindow).
     */
    definiteWorstWindow: number;
    sent: number;
    admitted: number;
    statuses: Record<number, number>;
  };
  sim: { admittedPerWindow: number; worstWindow: number };
  /** live / sim − 1 */
  diff: number;
}

/** The fleet compareWithSimulator runs on: K pairs with the settings' gateway options. */
export function startFleetFor(s: CompareSettings): Promise<ProxyFleet> {
  return startProxyFleet({
    redisUrl: s.redisUrl,
    pairs: s.gateways,
    prefix: s.prefix,
    gateway: {
      design: s.design,
      limit: s.limit,
      windowMs: s.windowMs,
      gateways: s.gateways,
      syncMs: s.syncMs,
    },
    // the flood comes from one address (127.0.0.1): the example's per-address limit (per-ip, 300 per
    // minute, adaptive-early) is set out of its way, since what is compared is the API key's limit
    // across K gateways: a limit it never reaches, on the design with the least work per request
    policies: { 'per-ip': { limit: 1_000_000, design: 'shared-counter' } },
  });
}

/** On `running`, a fleet startFleetFor(s) started (left running), or on one of its own (stopped after). */
export async function compareWithSimulator(s: CompareSettings, running?: ProxyFleet): Promise<CompareResult> {
  const fleet = running ?? (await startFleetFor(s));
  try {
    const ratePerS = (s.load * s.limit) / (s.windowMs / 1000);
    if (s.warmupMs > 0)
      await flood(fleet.nginxPorts, {
        ratePerS,
        durationMs: s.warmupMs,
        seed: s.seed + 1,
        path: '/warmup',
        headers: { 'x-api-key': 'warmup' },
      });
    const f = await flood(fleet.nginxPorts, {
      ratePerS,
      durationMs: s.durationMs,
      seed: s.seed,
      path: '/flood',
      headers: { 'x-api-key': 'flood' },
    });
    const times = (fleet.arrivals.get('/flood') ?? []).map((t) => t - f.startedAt);
    const w = windowFigures(times, s.windowMs, s.limit, s.durationMs);
    const seeds = Array.from({ length: s.simSeeds }, (_, i) => i + 1);
    const sim = runSeeds(
      {
        design: s.design,
        gateways: s.gateways,
        syncS: s.syncMs / 1000,
        limit: s.limit,
        windowS: s.windowMs / 1000,
        windowKind: 'sliding',
        alignedSyncs: false,
        traffic: 'flood',
        load: s.load,
        routing: 'even',
        minutes: s.durationMs / 60_000,
        // the sidecars' own reads (their default): the simulator runs what they run
        reads: SIDECAR_READS,
      },
      seeds,
    ).mean;
    return {
      live: {
        admittedPerWindow: w.admittedPerWindow,
        worstWindow: w.worstWindow,
        definiteWorstWindow: definiteWorstWindow(f.admits, s.windowMs) / s.limit,
        sent: f.sent,
        admitted: w.admitted,
        statuses: f.statuses,
      },
      sim: { admittedPerWindow: sim.admittedPerWindow, worstWindow: sim.worstWindow },
      diff: w.admittedPerWindow / sim.admittedPerWindow - 1,
    };
  } finally {
    if (running === undefined) await fleet.stop();
  }
}

/**
 * The most admits that were certainly decided within one window [t, t + W): those sent at or after t
 * and answered before t + W. Counted at the upstream by arrival, a loaded machine's delays (NGINX, the
 * upstream, this process) bunch admits into one window and the count there is no bound of anything;
 * this count can only be below the true worst window of the decisions, so a design's bound (K·L for
 * shared-counter) holds for it under any load, and a design that breaks the bound by much still shows.
 */
export function definiteWorstWindow(
  admits: readonly { sent: number; answered: number }[],
  windowMs: number,
): number {
  const bySent = [...admits].sort((a, b) => a.sent - b.sent);
  let worst = 0;
  for (let i = 0; i < bySent.length; i++) {
    const end = bySent[i].sent + windowMs;
    let n = 0;
    for (let j = i; j < bySent.length && bySent[j].sent < end; j++) if (bySent[j].answered < end) n++;
    worst = Math.max(worst, n);
  }
  return worst;
}
