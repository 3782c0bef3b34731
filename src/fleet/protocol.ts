/**
 * Messages between the coordinator and its child processes, over the fork IPC channel. Each child
 * answers 'ready' once listening, and one 'report' when asked; everything else it keeps to itself.
 */
import type { DesignId } from '../config.js';
import type { ReadsMode } from '../gateway/options.js';
import type { Routing, TrafficKind } from '../sim/types.js';
import type { FloodOnset } from './arrivals.js';

export interface UpstreamReport {
  type: 'report';
  /** wall-clock ms (performance.timeOrigin + now()) each request from a gateway reached the upstream, in order */
  times: number[];
  /** for each logged request, the wall-clock ms its gateway admitted it (NaN without the header) */
  admittedAt: number[];
  /** for each logged request, the id of the gateway that forwarded it */
  gateways: string[];
  /** requests the load process sent straight to the upstream (latency baseline), not logged */
  direct: number;
  /** warm-up requests that reached the upstream, not logged */
  warmup: number;
  /** CPU time the upstream used from 'ready' to the report, ms */
  cpuMs: number;
}

export interface GatewayConfig {
  id: string;
  design: DesignId;
  limit: number;
  windowMs: number;
  gateways: number | 'auto';
  syncMs: number;
  storeTimeoutMs: number;
  redisUrl: string;
  /** Not live at the start: it starts syncing at 'join' (and stops at 'leave'). */
  idle?: boolean;
  /** Redis key prefix of this run, so runs on a shared Redis never see each other's state */
  prefix: string;
  /** the one rate-limited key every request counts against (the simulator's one key) */
  key: string;
  upstreamPort: number;
  /** Many keys: a request on /k/<rank> (rank < keyCount) counts against key k<rank>. */
  keyCount?: number;
  /** RedisStore expiryMarginMs (absent: the store's default) */
  expiryMarginMs?: number;
  /** GatewayOptions.reads (absent: the gateway's default, 'every-sync') */
  reads?: ReadsMode;
}

export interface GatewayReport {
  type: 'report';
  id: string;
  /** requests the middleware decided */
  requests: number;
  allowed: number;
  limited: number;
  degradedAllowed: number;
  degradedLimited: number;
  /** request-path store calls (logAdmit, ask) made, answered or not */
  storeCalls: number;
  /** asks made while another ask for the same key was waiting (see round-trip-counting-store.ts) */
  overlappingAsks: number;
  /** admitted requests the upstream answered / that failed to reach it */
  forwarded: number;
  forwardErrors: number;
  syncs: number;
  syncTimeouts: number;
  syncRefusals: number;
  syncErrors: number;
  storeCallFailures: number;
  /** round trip of every answered sync, ms */
  syncLatencies: number[];
  /** requests that waited on an ask for their key already in flight instead of asking (leases-ask) */
  coalescedAsks: number;
  /** the runtime's store-clock offset and how far it can be off (half the best recent round trip), ms */
  offsetMs: number;
  offsetErrorMs: number;
  /** CPU time the gateway process used from 'ready' to the report, ms */
  cpuMs: number;
  /** keys carried by the syncs since 'mark' (Σ of each sync's key count) */
  keySyncs: number;
  /** the same from one window after 'mark' to the end of the load, and that span, ms */
  steadyKeySyncs: number;
  steadyMs: number;
  /** keys the gateway held at the end of the load, before its last sync */
  heldKeys: number;
  /** V8 heap used at 'mark' and at the end of the load, after a full GC when the process has one (--expose-gc) */
  heapAtMark: number;
  heapAtEnd: number;
}

export interface LoadConfig {
  traffic: TrafficKind;
  load: number;
  limit: number;
  windowMs: number;
  routing: Routing;
  durationMs: number;
  seed: number;
  gatewayPorts: number[];
  upstreamPort: number;
  /** baseline requests per second straight to the upstream */
  directRate: number;
  /** hard bound on requests sent through the gateways */
  maxRequests: number;
  /** arrivals beyond this many requests in flight are not sent (and counted): the generator never queues without bound */
  maxInFlight: number;
  /** after durationMs, how long to wait for answers still in flight */
  drainMs: number;
  /** a send later than this after its scheduled instant counts as late, ms */
  lateAfterMs: number;
  /** how long the warm-up sends (the same traffic, on the path /warmup), ms */
  warmupMs: number;
  /** From atMs of the run on, only the first `count` gateway ports get requests (settings.scale; even routing). */
  live?: { atMs: number; count: number }[];
  /**
   * Many keys: each arrival picks its key by Zipf popularity (key-choice.ts) and is sent on /k/<rank>.
   * With `flooded`, a second Poisson stream of `floodLoad` × L per W per flooded key, each arrival on
   * one of `flooded` (ranks, uniformly) at a gateway drawn uniformly, as the simulator sends its flood.
   */
  keys?: { count: number; popularity: number; flooded?: number[]; floodLoad?: number };
  /** Onset traffic: the flood on top of the honest client (its warm-up is that flood, on its own key). */
  onset?: FloodOnset;
}

export interface LatencySummary {
  count: number;
  p50: number;
  p99: number;
  max: number;
}

export interface LoadReport {
  type: 'report';
  /** wall-clock ms of the first scheduled arrival (t = 0 of the run) */
  startedAt: number;
  /** arrivals scheduled in [0, duration) */
  scheduled: number;
  /** requests sent through the gateways */
  sent: number;
  /** arrivals skipped because maxInFlight requests were already waiting */
  skipped: number;
  ok: number;
  limited: number;
  /** other statuses, connection errors, answers still missing at the end */
  failed: number;
  unanswered: number;
  /** arrivals whose send left more than lateAfterMs after its scheduled instant */
  lateSends: number;
  /** how late sends left against their scheduled instant, ms */
  lag: LatencySummary;
  /** response time of every answered gateway request, of the admitted ones, of the direct baseline; ms */
  viaGateway: LatencySummary;
  admittedViaGateway: LatencySummary;
  limitedViaGateway: LatencySummary;
  direct: LatencySummary;
  /** connections opened to the gateways */
  connections: number;
  /** CPU time the load process used while sending and draining, ms */
  cpuMs: number;
  /** Many keys: answered honest requests on keys no flood hits, and how many of them were 429 */
  calm?: { answered: number; limited: number };
  /** Many keys with a flood: answered flood requests and their 429s */
  flood?: { answered: number; limited: number };
}

export type ChildReady = { type: 'ready'; port?: number };
/**
 * warmup (load): send warm-up traffic on its own key, answer 'warm'; mark (gateways): count from now
 * on, answer 'marked'; go (load): the measured run; report; stop.
 */
export type CoordinatorMessage =
  | { type: 'warmup' }
  | { type: 'mark' }
  | { type: 'go' }
  | { type: 'report' }
  | { type: 'stop' }
  // a gateway joins (starts syncing) or stops mid-run (settings.scale)
  | { type: 'join' }
  | { type: 'leave' };
