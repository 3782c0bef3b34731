import type { DesignId, WindowKind } from '../config.js';

export type TrafficKind = 'steady' | 'pageload' | 'flood';
export type Routing = 'even' | 'uneven';

/** Everything that defines one simulated run (one seed). */
export interface RunParams {
  design: DesignId;
  /** K */
  gateways: number;
  /** Δ in seconds */
  syncS: number;
  /** L */
  limit: number;
  /** W in seconds */
  windowS: number;
  windowKind: WindowKind;
  alignedSyncs: boolean;
  traffic: TrafficKind;
  /** multiple of the limit: 0.8 = 80 % of L per W; 100 = a flood at 100 × L per W */
  load: number;
  routing: Routing;
  minutes: number;
  seed: number;
}

/** What one run measured. */
export interface RunMetrics {
  /** mean admitted per W after the first W, as a multiple of L */
  admittedPerWindow: number;
  /** most admitted in any W-long span, as a multiple of L */
  worstWindow: number;
  /** rejected requests, percent of all requests */
  rejectedPct: number;
  /** store round trips on the request path per request */
  roundTripsPerRequest: number;
  syncs: number;
  requests: number;
  admitted: number;
  /** W-long spans (sliding: any span; fixed: aligned windows) holding more than L admits */
  windowsOverLimit: number;
  /** lease designs: mean slots handed back unused per sync of one gateway, as a fraction of L/K; 0 otherwise */
  strandedPct: number;
}

/** One row of a study: the run's parameters, its metrics, the study group and the version. */
export interface RunRow extends RunParams, RunMetrics {
  /** which part of the grid: 'flood' | 'honest' | 'busy' */
  group: 'flood' | 'honest' | 'busy';
  version: string;
}

/** A check the study runs and reports. */
export interface CheckResult {
  name: string;
  passed: boolean;
  /** the measured figure(s) and what was expected, in a sentence */
  detail: string;
}

/** What `fleetlimit study` writes to results.json. */
export interface StudyResults {
  version: string;
  grid: 'full' | 'quick' | string;
  startedAt: string;
  wallSeconds: number;
  rows: RunRow[];
  checks: CheckResult[];
}
