/** What a replay reports: plain values, the same for the table, --json, CSV and the HTML page. */
import type { DesignId } from '../../config.js';
import type { ReadsMode } from '../../gateway/options.js';
import type { ReadStats } from '../arrival.js';

export interface ReplaySettings {
  /** The designs compared with the central log, in the order asked for. */
  designs: readonly DesignId[];
  /** K */
  gateways: number;
  /** L admits per window W */
  limit: number;
  windowMs: number;
  /** Δ */
  syncMs: number;
  /** Draws the sync phases (and, upstream, the spread and the attack's arrivals). */
  seed: number;
  /** How many keys each "most affected" list shows. */
  top: number;
  /**
   * When the gateways read a quiet key (GatewayOptions.reads, --reads); absent is 'every-sync', so a
   * default replay's settings (and its JSON) are what they were before the option.
   */
  reads?: ReadsMode;
}

/** One design's figures over the whole replay, against the central log on the same arrivals. */
export interface DesignResult {
  design: DesignId;
  requests: number;
  admitted: number;
  rejected: number;
  /** Non-flood requests the central log admits and this design rejects. */
  honestRejected: number;
  /** honestRejected over the non-flood requests, in %. */
  honestRejectedPct: number;
  /** Admits that left more than L admits in the trailing window of their key. */
  overAdmitted: number;
  /** Keys that had more than L admits in some window. */
  keysOverLimit: number;
  /** The most admits of one key in any window W, over L (≤ 1 means never over). */
  worstWindow: number;
  /** The key of that worst window ('' when nothing was admitted). */
  worstKey: string;
  /** Store round trips a request waits on, per request (central-log 1, leases-ask its asks, else 0). */
  roundTripsPerRequest: number;
  storeCalls: number;
  /** Store calls (syncs and request-path calls) per second of the log's span. */
  storeCallsPerSec: number;
  /**
   * Keys carried by the syncs (each a push or a read at the store: its work, which --reads on-request
   * lowers while the calls stay one per gateway per Δ); 0 for the reference and a design that never syncs.
   */
  keySyncs: number;
  /** keySyncs per second of the log's span. */
  keySyncsPerSec: number;
}

/** One key in a "most affected" list. */
export interface KeyRow {
  key: string;
  requests: number;
  floodRequests: number;
  honestRejected: number;
  overAdmitted: number;
  /** The most admits in any window, over L. */
  worstWindow: number;
}

export interface TopKeys {
  design: DesignId;
  byHonestRejected: KeyRow[];
  byOverAdmitted: KeyRow[];
}

/** Per-key admitted and rejected over time, for the worst keys (the HTML page's timelines). */
export interface Timeline {
  key: string;
  /** ms since the epoch at the start of bucket 0 */
  origin: number;
  bucketMs: number;
  requests: number[];
  /** per design in `designs` order, central log first */
  designs: { design: DesignId; admitted: number[]; rejected: number[] }[];
}

export interface ReplayResult {
  settings: ReplaySettings;
  /** first and last arrival, ms since the epoch (NaN when there were none) */
  from: number;
  to: number;
  arrivals: number;
  floodArrivals: number;
  /** Distinct keys seen (a key back after a whole idle window counts again). */
  keys: number;
  /** The most keys live within W at once: what the replay's memory follows. */
  peakLiveKeys: number;
  /** Non-flood arrivals the log recorded as 429: today's limiter rejected them. */
  logRejected: number;
  /** Non-flood arrivals the central log rejects. */
  centralRejected: number;
  /** Of the log's 429s, how many the central log would have admitted. */
  logRejectedCentralAdmits: number;
  central: DesignResult;
  designs: DesignResult[];
  top: TopKeys[];
  /** Affected keys dropped from the bounded ranking (0: the lists are exact). */
  rankingPruned: number;
  read: ReadStats | null;
  timelines?: Timeline[];
}
