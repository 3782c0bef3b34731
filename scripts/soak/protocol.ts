/** Messages between the soak's coordinator (scripts/soak.ts) and its child processes, over fork IPC. */
import type { DesignId } from '../../src/config.js';
import type { IntervalSample, LoopSummary } from './monitor.js';

export interface GatewayConfig {
  id: string;
  design: DesignId;
  gateways: number;
  limit: number;
  windowMs: number;
  syncMs: number;
  storeTimeoutMs: number;
  redisUrl: string;
  prefix: string;
  /** Seconds between samples; a heap sample (forced GC) every `heapEvery` samples. */
  sampleS: number;
  heapEvery: number;
  /** Delay of the first sample, ms: each process samples (and forces its GC) at its own phase. */
  phaseMs: number;
}

export interface LoadConfig {
  gatewayPorts: number[];
  honestKeys: number;
  honestRate: number;
  floodKeys: number;
  floodRate: number;
  durationMs: number;
  seed: number;
  sampleS: number;
  maxInFlight: number;
}

export interface IdleConfig {
  sampleS: number;
  heapEvery: number;
  phaseMs: number;
}

/** Coordinator → child. */
export type CoordinatorMessage = { type: 'start' } | { type: 'report' } | { type: 'stop' };

export interface ReadyMessage {
  type: 'ready';
  port?: number;
}

export interface SampleMessage {
  type: 'sample';
  from: string;
  sample: IntervalSample;
  /** Gateways: decisions so far; load: requests sent so far. */
  counters: Record<string, number>;
}

export interface GatewayReport {
  type: 'report';
  id: string;
  loop: LoopSummary;
  /** Per key, the decision-clock instants (the store's time as this gateway sees it) of its admits in the last two windows. */
  admits: Record<string, number[]>;
  decisions: { allowed: number; limited: number; degradedAllowed: number; degradedLimited: number };
  syncs: number;
  syncTimeouts: number;
  syncErrors: number;
  storeCallFailures: number;
  unsyncedAdmitsAfterStop: number;
  keysHeld: number;
  /** Server-side time from a request's arrival to its response, ms. */
  serverMs: { p50: number; p99: number; max: number };
  /** The last sync's answer came: the final push landed. */
  stoppedCleanly: boolean;
}

export interface LoadReport {
  type: 'report';
  loop: LoopSummary;
  requests: number;
  ok: number;
  limited: number;
  failed: number;
  /** Not sent: more than maxInFlight were waiting. */
  skipped: number;
  honestRequests: number;
  honestRejected: number;
  /** Round trip through a gateway, ms. */
  latencyMs: { p50: number; p99: number; max: number };
  /** How late sends left against their Poisson schedule, ms. */
  sendLateMs: { p99: number; max: number };
}

export interface IdleReport {
  type: 'report';
  loop: LoopSummary;
}
