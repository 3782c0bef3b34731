import type { DesignId, WindowKind } from '../config.js';
import type { ReadsMode } from '../gateway/options.js';

/**
 * steady, pageload: an honest client; flood: a flood alone; pulsed: an honest steady client at `load`
 * plus a flood at `floodLoad` (default 1,000×) for 2 s every 120 s; onset: the honest client, then a
 * flood at `floodLoad` from t = 2W on (the worst window at its onset is `onsetWorst`).
 */
export type TrafficKind = 'steady' | 'pageload' | 'flood' | 'pulsed' | 'onset';
export type Routing = 'even' | 'uneven';
/** even: a flood spread over every gateway; pick: the whole flood sent to one gateway. */
export type Attack = 'even' | 'pick';

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
  /** A sync's reply arrives this many ms after it was sent (what the gateway learns is that old); request-path round trips wait as long. Default 0. */
  storeDelayMs?: number;
  /** Each round trip adds a uniform extra delay in [0, jitter) ms. Default 0. */
  storeJitterMs?: number;
  /** Each sync's reply (or the request) is lost with this probability; half of the lost ones landed at the store. Default 0. */
  syncLoss?: number;
  /** How a flood is routed. Default 'even'. */
  attack?: Attack;
  /** The flood's rate in pulsed and onset traffic, a multiple of L per W (default 1,000); with many keys, each flooded key's flood (default 100). */
  floodLoad?: number;
  /**
   * Many keys (src/sim/many-keys.ts): N keys, absent or 1 for the single-key engine. With N > 1, `traffic`
   * (steady or pageload) is the honest client of every key, `load` the hottest key's rate (× L per W) and
   * key r (1-based rank) gets load / r^popularity; a flood of `floodLoad` × L per W goes to each of
   * `floodKeys` keys on top.
   */
  keys?: number;
  /** Zipf exponent S of the keys' popularity: rank r has weight 1/r^S (0 = every key alike). Default 1. */
  popularity?: number;
  /**
   * When a quiet key is read (GatewayOptions.reads): 'on-request' only after a request here, for the
   * designs that can (Design.readsFollowRequests). Default 'every-sync'.
   */
  reads?: ReadsMode;
  /** Keys flooded (0 = none). Default 1. */
  floodKeys?: number;
  /** hot: the floodKeys most popular keys; random: that many drawn at random (seeded). Default hot. */
  floodPick?: FloodPick;
}

/** Which keys a many-keys flood hits. */
export type FloodPick = 'hot' | 'random';

/** The real-world parameters' defaults: instant, lossless syncs and an even flood. */
export const REAL_DEFAULTS = {
  storeDelayMs: 0,
  storeJitterMs: 0,
  syncLoss: 0,
  attack: 'even',
  floodLoad: 1000,
} as const satisfies Partial<RunParams>;

/** Every parameter present (rows of a study carry them all, so results.csv has no empty cells). */
export function withDefaults<P extends Partial<RunParams>>(
  p: P,
): P & Required<Pick<RunParams, keyof typeof REAL_DEFAULTS>> {
  return { ...REAL_DEFAULTS, ...p } as P & Required<Pick<RunParams, keyof typeof REAL_DEFAULTS>>;
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
  /** mean time a request waits on the store (round trips × their delay), ms */
  latencyMs: number;
  /** store operations (syncs sent + request-path calls) per second of simulated time */
  storeOpsPerSec: number;
  /** pulsed and onset traffic: the honest client's requests rejected, percent; otherwise rejectedPct */
  honestRejectedPct: number;
  /** onset and pulsed traffic: most admitted in a W-long span ending within W of the first flood onset, × L; 0 otherwise */
  onsetWorst: number;
}

/** What a many-keys run measures beyond RunMetrics (src/sim/many-keys.ts), over the steady state t ≥ W. */
export interface KeyCostMetrics {
  /** keys carried by syncs per second (every entry of every sync: pushed, read, released or asked) */
  syncKeysPerSec: number;
  /** store work in keys per second: keys carried by syncs + request-path calls (each on one key) */
  keyOpsPerSec: number;
  /** keys in one sync call: mean and most */
  keysPerSync: number;
  keysPerSyncMax: number;
  /** keys a gateway holds state for, sampled as each of its syncs starts: mean and most */
  keysPerGateway: number;
  keysPerGatewayMax: number;
  /** keysPerGateway × the design's measured bytes per held key (src/sim/key-bytes.ts) */
  bytesPerGateway: number;
  /** keys the store holds state for, sampled after each sync: mean and most */
  storeKeys: number;
  storeKeysMax: number;
  /** honest requests on keys no flood hits, percent rejected (honestRejectedPct counts the flooded keys' too) */
  unfloodedRejectedPct: number;
}

/**
 * One row of a study: the run's parameters, its metrics, the study group and the version. Many-keys rows
 * (group 'keys') also carry the KeyCostMetrics; single-key rows do not.
 */
export interface RunRow extends RunParams, RunMetrics, Partial<KeyCostMetrics> {
  /**
   * which part of the grid: 'flood' | 'honest' | 'busy'; the extended grid adds 'scorecard' (Δ = 1 s,
   * floods even and picked, honest clients at 80 %), 'delay' (store delay), 'loss' (sync loss) and
   * 'hard' (flood onset, pulsed flood), 'onset' (the scorecard's onsets: every flood rate on an empty and a busy
   * key, spread and sent to one gateway) and 'keys' (many keys: store cost and gateway memory against N)
   */
  group: 'flood' | 'honest' | 'busy' | 'scorecard' | 'delay' | 'loss' | 'hard' | 'onset' | 'keys';
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
