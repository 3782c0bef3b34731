// What the live fleet measured, worked out from the processes' reports: the simulator's figures by
// its definitions, and what only a live run has (arrivals, latency, CPU, syncs, Redis, idle keys).
import type { FaultProxyStats } from './fault-proxy.js';
import type { GatewayReport, LatencySummary, LoadReport, UpstreamReport } from './protocol.js';
import type { IdleExpiry, RedisKeyFigures } from './redis-probe.js';
import { expectedRequests, type FleetSettings, onsetAtMs } from './settings.js';
import { summarize, windowFigures } from './stats.js';

/** A send more than this late against its scheduled instant is not on time, ms. */
export const LATE_AFTER_MS = 10;

/** What the live fleet measured. The first four keys are the simulator's, with its definitions. */
export interface LiveFigures {
  admittedPerWindow: number;
  worstWindow: number;
  rejectedPct: number;
  roundTripsPerRequest: number;
  /** onset traffic: the most admitted in a W-long span ending within W of the flood's onset, × L (the simulator's onsetWorst); 0 otherwise */
  onsetWorst: number;
  /** roundTripsPerRequest without the asks made while another ask for the key was waiting */
  roundTripsPerRequestSingleFlight: number;
  /** requests sent through the gateways */
  requests: number;
  /** reached the upstream within [0, duration) */
  admitted: number;
  windowsOverLimit: number;
  /**
   * The same log placed at the instants requests reached the upstream rather than when their gateway
   * admitted them: the forwarding delay's jitter moves admits across window edges.
   */
  byArrival: {
    admittedPerWindow: number;
    worstWindow: number;
    onsetWorst: number;
    windowsOverLimit: number;
    overLimitByMs: number;
  };
  /** how far the tightest span of L + 1 admits falls short of W, ms (see stats.ts) */
  overLimitByMs: number;
  /** upstream arrival − gateway admission, ms */
  forwardDelay: LatencySummary;
  /** every request the upstream logged from a gateway, and what the gateways say they admitted */
  upstreamLogged: number;
  gatewaysAdmitted: number;
  /** admitted requests a gateway could not forward to the upstream */
  forwardErrors: number;
  arrivals: {
    /** load × L per W */
    nominalPerS: number;
    /** the seeded Poisson arrivals in [0, duration): what the load process had to send */
    scheduledPerS: number;
    /** sent through the gateways per second */
    achievedPerS: number;
    scheduled: number;
    /** arrivals not sent because maxInFlight requests were already waiting */
    skipped: number;
    failed: number;
    /** sent no later than lateAfterMs after the scheduled instant, % of scheduled */
    onTimePct: number;
    lateAfterMs: number;
    /** how late sends left against their scheduled instants, ms */
    lag: LatencySummary;
    /** connections the load process opened to the gateways */
    connections: number;
  };
  /** CPU the run's processes used, in cores (CPU seconds per second of the run's duration) */
  cpu: { load: number; gateways: number; upstream: number };
  /** leases-ask: requests that waited on their gateway's ask in flight for the key instead of asking */
  coalescedAsks: number;
  /** the gateways' store-clock offsets at the end: the largest possible error (half the best round trip), ms */
  clockErrorMs: number;
  /** response times in ms, seen by the load process */
  latency: {
    viaGateway: LatencySummary;
    admittedViaGateway: LatencySummary;
    limitedViaGateway: LatencySummary;
    direct: LatencySummary;
    /**
     * median admitted via a gateway minus median straight to the upstream. Only the median: a
     * difference of two p99s is no percentile of anything and can fall below the p50's.
     */
    addedByGateway: { p50: number };
  };
  sync: {
    /** round trip of the answered syncs, ms */
    latency: LatencySummary;
    syncs: number;
    timeouts: number;
    /** the store was not reachable (see FailureCause) */
    refusals: number;
    errors: number;
    /** request-path store calls that failed or timed out */
    storeCallFailures: number;
    degradedDecisions: number;
  };
  inject: FaultProxyStats | null;
  /** many keys only (settings.keys) */
  keys?: ManyKeysLive;
}

/** What many keys cost, live; each has a simulator counterpart in sim (KeyCostMetrics). */
export interface ManyKeysLive {
  /** keys carried by the gateways' syncs per second, from one window into the run on (sim: syncKeysPerSec) */
  keySyncsPerSec: number;
  /** keys a gateway held at the end of the load, mean over gateways (sim: keysPerGateway) */
  heldKeysPerGateway: number;
  /** V8 heap growth from the start of the run to the end of the load per held key, bytes (sim: bytesPerGateway / keysPerGateway, a model) */
  heapBytesPerHeldKey: number;
  /** Redis's CPU, MEMORY USAGE and used_memory over the run (sim: storeKeys for the key count) */
  redis: RedisKeyFigures;
  /** rejected honest requests on keys no flood hits, % of those answered (sim: unfloodedRejectedPct) */
  unfloodedRejectedPct: number;
  /** keys flooded (settings.keys.flood; 0: none), and the flood's requests rejected, % of those answered */
  floodedKeys: number;
  floodRejectedPct: number;
  /**
   * After the load: how long the idle keys took to leave Redis, against the bound W + 2 × margin from
   * the last admit (a key expires `margin` after the last instant anything in it counts, up to one
   * margin later on Redis's clock; times are ms after the last admit, or after the end of the load's
   * schedule if that is later). Grants (lease designs) can hold a key up to their lapse longer.
   */
  idle: IdleExpiry & { marginMs: number; boundMs: number };
}

export function manyKeysLive(
  s: FleetSettings,
  load: LoadReport,
  gws: GatewayReport[],
  redis: RedisKeyFigures,
  idle: ManyKeysLive['idle'],
): ManyKeysLive {
  const sum = (f: (g: GatewayReport) => number) => gws.reduce((a, g) => a + f(g), 0);
  const steadyS = sum((g) => g.steadyMs) / gws.length / 1000;
  const held = sum((g) => g.heldKeys);
  const pct = (x: { answered: number; limited: number } | undefined) =>
    x === undefined || x.answered === 0 ? 0 : (100 * x.limited) / x.answered;
  return {
    keySyncsPerSec: steadyS > 0 ? sum((g) => g.steadyKeySyncs) / steadyS : 0,
    heldKeysPerGateway: held / gws.length,
    heapBytesPerHeldKey: held > 0 ? sum((g) => g.heapAtEnd - g.heapAtMark) / held : 0,
    redis,
    unfloodedRejectedPct: pct(load.calm),
    floodedKeys: s.keys?.flood?.keys ?? 0,
    floodRejectedPct: pct(load.flood),
    idle,
  };
}
export function liveFigures(
  s: FleetSettings,
  load: LoadReport,
  gws: GatewayReport[],
  up: UpstreamReport,
  inject: FaultProxyStats | null,
): LiveFigures {
  const arrived = up.times.map((t) => t - load.startedAt);
  // a request without the gateway's stamp (never expected) counts at its arrival
  const admittedAt = up.admittedAt.map((t, i) => (Number.isFinite(t) ? t - load.startedAt : arrived[i]));
  const onsetAt = onsetAtMs(s);
  const w = windowFigures(admittedAt, s.windowMs, s.limit, s.durationMs, onsetAt);
  const a = windowFigures(arrived, s.windowMs, s.limit, s.durationMs, onsetAt);
  const sum = (f: (g: GatewayReport) => number) => gws.reduce((a, g) => a + f(g), 0);
  const gwRequests = sum((g) => g.requests);
  const syncLat = summarize(gws.flatMap((g) => g.syncLatencies));
  const l = load;
  return {
    admittedPerWindow: w.admittedPerWindow,
    worstWindow: w.worstWindow,
    onsetWorst: w.onsetWorst,
    rejectedPct: l.sent > 0 ? (100 * (l.sent - up.times.length)) / l.sent : 0,
    roundTripsPerRequest: gwRequests > 0 ? sum((g) => g.storeCalls) / gwRequests : 0,
    roundTripsPerRequestSingleFlight:
      gwRequests > 0 ? sum((g) => g.storeCalls - g.overlappingAsks) / gwRequests : 0,
    requests: l.sent,
    admitted: w.admitted,
    windowsOverLimit: w.windowsOverLimit,
    byArrival: {
      admittedPerWindow: a.admittedPerWindow,
      worstWindow: a.worstWindow,
      onsetWorst: a.onsetWorst,
      windowsOverLimit: a.windowsOverLimit,
      overLimitByMs: a.overLimitByMs,
    },
    overLimitByMs: w.overLimitByMs,
    forwardDelay: summarize(arrived.map((t, i) => t - admittedAt[i])),
    upstreamLogged: up.times.length,
    gatewaysAdmitted: sum((g) => g.allowed + g.degradedAllowed),
    forwardErrors: sum((g) => g.forwardErrors),
    arrivals: {
      nominalPerS: expectedRequests(s) / (s.durationMs / 1000),
      scheduledPerS: l.scheduled / (s.durationMs / 1000),
      achievedPerS: l.sent / (s.durationMs / 1000),
      scheduled: l.scheduled,
      skipped: l.skipped,
      failed: l.failed,
      onTimePct: l.scheduled > 0 ? (100 * (l.sent - l.lateSends)) / l.scheduled : 100,
      lateAfterMs: LATE_AFTER_MS,
      lag: l.lag,
      connections: l.connections,
    },
    cpu: {
      // per second of load: the load's CPU from go to its report (the drain adds little), the others' from ready
      load: l.cpuMs / s.durationMs,
      gateways: sum((g) => g.cpuMs) / s.durationMs,
      upstream: up.cpuMs / s.durationMs,
    },
    coalescedAsks: sum((g) => g.coalescedAsks),
    clockErrorMs: Math.max(0, ...gws.map((g) => (Number.isFinite(g.offsetErrorMs) ? g.offsetErrorMs : 0))),
    latency: {
      viaGateway: l.viaGateway,
      admittedViaGateway: l.admittedViaGateway,
      limitedViaGateway: l.limitedViaGateway,
      direct: l.direct,
      addedByGateway: {
        p50: l.admittedViaGateway.p50 - l.direct.p50,
      },
    },
    sync: {
      latency: syncLat,
      syncs: sum((g) => g.syncs),
      timeouts: sum((g) => g.syncTimeouts),
      refusals: sum((g) => g.syncRefusals),
      errors: sum((g) => g.syncErrors),
      storeCallFailures: sum((g) => g.storeCallFailures),
      degradedDecisions: sum((g) => g.degradedAllowed + g.degradedLimited),
    },
    inject,
  };
}
