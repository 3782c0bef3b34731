import type { DesignId } from '../config.js';
import type { ReadsMode } from '../gateway/options.js';
import { ONSET_AFTER_WINDOWS } from '../sim/engine.js';
import { zipfTotal } from '../sim/many-keys.js';
import type { Attack, FloodPick, Routing, TrafficKind } from '../sim/types.js';
import type { FloodOnset } from './arrivals.js';

/** A fault the proxy between the gateways and Redis applies (see fault-proxy.ts for what each does on the wire). */
export type Injection =
  | { kind: 'latency'; ms: number }
  | { kind: 'loss'; fraction: number; holdMs: number }
  | { kind: 'down'; forMs: number; atMs: number };

/** Everything that defines one live fleet run. Times in ms here; the CLI takes seconds. */
export interface FleetSettings {
  design: DesignId;
  /** K */
  gateways: number;
  /** L */
  limit: number;
  /** W */
  windowMs: number;
  /** Δ */
  syncMs: number;
  traffic: TrafficKind;
  /** multiple of L per W, as in the simulator */
  load: number;
  routing: Routing;
  durationMs: number;
  /** Redis to use; null = start a private redis-server */
  redisUrl: string | null;
  inject: Injection[];
  /** seeds the load process's arrivals */
  seed: number;
  /** simulator seeds 1..n for the comparison */
  simSeeds: number;
  /** a request-path or sync call slower than this counts as failed (the runtime's storeTimeoutMs) */
  storeTimeoutMs: number;
  /** warm-up traffic before the measured run, on a key of its own; ms. @default 1000 */
  warmupMs?: number;
  /** The gateways are configured with `gateways: 'auto'` (the store counts them) instead of K. @default false */
  autoGateways?: boolean;
  /**
   * Gateway processes joining and stopping mid-run: from `atMs` on, `gateways` of them are live (the
   * first `gateways` processes; the rest stay idle). `gateways` above is the count from the start.
   * Even routing only: the load spreads over the live ones. @default none
   */
  scale?: { atMs: number; gateways: number }[];
  /**
   * Many keys: requests spread over `count` keys by Zipf popularity of exponent `popularity`, the
   * honest client of key rank r at load / r^S × L per W (the simulator's many-keys mode). With
   * `flood`, `flood.keys` keys (the most popular, or drawn at random) each get a flood of
   * `flood.load` × L per W on top, spread evenly over the gateways (the simulator's floodKeys,
   * floodLoad, floodPick). Absent: every request counts against one key. @default one key
   */
  keys?: { count: number; popularity: number; flood?: FloodSettings };
  /**
   * The gateways' RedisStore expiryMarginMs: a key's records live this long past the last instant
   * anything in them counts (up to twice this on Redis's clock). @default 5000 (the store's)
   */
  expiryMarginMs?: number;
  /**
   * Onset traffic: the flood's rate, × L per W, coming on at ONSET_AFTER_WINDOWS × W on top of the honest
   * client at `load` (0: an empty key), as the simulator's onset traffic. @default 100
   */
  floodLoad?: number;
  /** flood and onset traffic: the flood spread evenly or sent whole to one gateway. @default 'even' */
  attack?: Attack;
  /**
   * The gateways' `reads` option, and the simulator's (docs/decisions/0013-reads-follow-requests.md).
   * @default 'every-sync' (absent: the settings, and the gateways' options, are as before the option)
   */
  reads?: ReadsMode;
}

/** When an onset's flood comes on, ms from the start (the simulator's instant); null without one. */
export function onsetAtMs(s: Pick<FleetSettings, 'traffic' | 'windowMs'>): number | null {
  return s.traffic === 'onset' ? ONSET_AFTER_WINDOWS * s.windowMs : null;
}

/** The flood an onset run adds to the honest client, for the load process's arrivals. */
export function floodOnset(s: FleetSettings): FloodOnset | undefined {
  const at = onsetAtMs(s);
  return at === null ? undefined : { load: s.floodLoad ?? 100, atMs: at, pick: s.attack === 'pick' };
}

/** Requests the whole run is expected to send: the honest client's, and an onset's flood from its instant. */
export function expectedRequests(s: FleetSettings): number {
  const at = onsetAtMs(s);
  const flood =
    at === null ? 0 : ((s.floodLoad ?? 100) * s.limit * Math.max(0, s.durationMs - at)) / s.windowMs;
  return (arrivalRate(s) * s.durationMs) / 1000 + flood;
}

/** Keys flooded on top of their honest traffic (many keys). */
export interface FloodSettings {
  /** how many keys */
  keys: number;
  /** each flooded key's flood, a multiple of L per W */
  load: number;
  /** 'hot': the most popular keys; 'random': drawn by the seed, as the simulator draws them */
  pick: FloodPick;
}

/** The store's default expiryMarginMs (src/store/redis/options.ts), which the fleet's gateways use unless told. */
export const DEFAULT_EXPIRY_MARGIN_MS = 5000;

/** Gateway processes a run starts: the most that are ever live. */
export function maxGateways(s: Pick<FleetSettings, 'gateways' | 'scale'>): number {
  return Math.max(s.gateways, ...(s.scale ?? []).map((x) => x.gateways));
}

/**
 * Requests per second the settings ask for: load × L per W (× Σ 1/r^S over the keys with many keys),
 * plus the flood on the flooded keys.
 */
export function arrivalRate(s: Pick<FleetSettings, 'load' | 'limit' | 'windowMs' | 'keys'>): number {
  return ((loadOverKeys(s) + floodLoadOverKeys(s)) * s.limit) / (s.windowMs / 1000);
}

/** The flood of all flooded keys together, in multiples of L per W (0 without one). */
export function floodLoadOverKeys(s: Pick<FleetSettings, 'keys'>): number {
  const f = s.keys?.flood;
  return f === undefined ? 0 : f.keys * f.load;
}

/** The load of all keys together in multiples of L per W: the hottest key's load × Σ 1/r^S. */
export function loadOverKeys(s: Pick<FleetSettings, 'load' | 'keys'>): number {
  return s.keys === undefined ? s.load : s.load * zipfTotal(s.keys.count, s.keys.popularity);
}
