import type { DesignId } from '../config.js';
import type { ReadsMode } from '../gateway/options.js';
import type { RunMetrics, RunParams } from '../sim/types.js';
import type { Finding } from './diagnose.js';

/** What the operator asks: the fleet, the limit, the threat, and what they will tolerate. */
export interface AdviceInput {
  /** K */
  gateways: number;
  /** L */
  limit: number;
  /** W in seconds */
  windowS: number;
  /** the attacker's arrival rate, as a multiple of the limit (1000 = a 1,000× flood) */
  attack: number;
  /** how the honest client's requests spread over gateways (the flood is always spread evenly) */
  routing: RunParams['routing'];
  /** the honest client's steady load, as a fraction of the limit (0.8 = 80 %) */
  honestLoad: number;
  /**
   * largest worst window a row may have (`--max-over`, alias `--max-worst`): the most admitted in any W-long
   * span under the attack, × L, judged by the max over seeds; no bound when undefined
   */
  maxWorst?: number;
  /** largest mean admitted per W under the attack, × L (`--max-mean`); no bound when undefined */
  maxMean?: number;
  /** largest honest rejection a row may have, percent */
  maxRejectedPct: number;
  /** largest share of honest requests that may wait on a store round trip, percent; no bound when undefined */
  maxRoundTripsPct?: number;
  designs: readonly DesignId[];
  /** Δ values to try, seconds; each must be ≤ W */
  deltasS: readonly number[];
  floodMinutes: number;
  honestMinutes: number;
  seeds: readonly number[];
  /**
   * When the gateways read a quiet key (`--reads`, GatewayOptions.reads): absent is 'every-sync', the
   * library's default; a sidecar's default is 'on-request' (decision 0016)
   */
  reads?: ReadsMode;
}

export type SimSetting = Omit<RunParams, 'seed'>;

/** One design at one Δ (Δ null: the design never syncs, so Δ changes nothing). */
export interface AdviceRow {
  design: DesignId;
  syncS: number | null;
  /** mean admitted per W under the attack, × L (mean over seeds) */
  floodMultiple: number;
  /**
   * most admitted in any W-long span under the attack, × L: the MAX over seeds of each seed's worst window,
   * since a limit promises every window (flood.mean.worstWindow is the mean over seeds, as `sim` prints it)
   */
  worstWindow: number;
  /** the honest client's rejected requests, percent */
  honestRejectedPct: number;
  /** store round trips on the request path per honest request (what honest users wait on) */
  roundTripsPerRequest: number;
  /** store operations per second for one attacked key; see storeOps() */
  storeOpsPerSec: number;
  storeOps: { syncsPerSec: number; requestPathPerSec: number };
  meetsTargets: boolean;
  /** the flags whose target this row misses */
  misses: string[];
  /** the simulations behind the row, exactly as `fleetlimit sim` takes them, and their mean metrics */
  flood: { params: SimSetting; seeds: number[]; mean: RunMetrics };
  honest: { params: SimSetting; seeds: number[]; mean: RunMetrics };
}

export interface Advice {
  input: AdviceInput;
  /** for a small limit (L < 5 K): why only the designs that hold L exactly promise its worst window, ranked first; else null */
  smallLimit: string | null;
  /** rows meeting every target, best first (the designs that hold L exactly first for a small limit) */
  ranked: AdviceRow[];
  /** every row simulated, in design × Δ order */
  all: AdviceRow[];
  recommendation: AdviceRow | null;
  /** one sentence: why the recommendation, or why nothing qualifies */
  reason: string;
  /** when nothing qualifies: why, target by target, and what would (empty otherwise) */
  diagnosis: Finding[];
  ranking: string;
  version: string;
}
