/**
 * Why no setting meets the targets, and what would: each finding is computed from the rows advise simulated,
 * from the designs' own facts (DESIGNS) and from Erlang's loss formula, never canned.
 */
import { DESIGN_IDS, type DesignId } from '../config.js';
import { DESIGNS } from '../designs/index.js';
import { erlangB } from '../sim/erlang.js';
import type { AdviceInput, AdviceRow } from './types.js';

/** --max-over is the worst-window target (--max-worst is its alias on the command line). */
export type TargetFlag = '--max-over' | '--max-mean' | '--max-rejected' | '--max-round-trips';

/** One setting and its figure for the target in question. */
export interface Near {
  design: DesignId;
  syncS: number | null;
  value: number;
}

/** L per W and the least the exact central log rejects there (Erlang B), percent. */
export interface LimitFloor {
  limit: number;
  windowS: number;
  floorPct: number;
}

/**
 * Where the floor first meets the target (`meets`, with the step before it), and where it is at most half the
 * target (`room`): the designs lose more than the floor and seeds scatter around it, so a setting right at the
 * threshold is possible, not likely.
 */
export interface LimitSteps {
  meets: LimitFloor;
  before: LimitFloor;
  room: LimitFloor;
}

/** the share of the target the floor may take in LimitSteps.room */
export const ROOM = 0.5;

export type Finding =
  | {
      /** the honest target is below what even the exact central log loses at this L */
      kind: 'loss-floor';
      flag: '--max-rejected';
      target: number;
      /** B(L, load·L) in percent: a design that holds the flood to the limit cannot reject less */
      floorPct: number;
      /** the central log's own simulated figure, when it was tried */
      centralLog: number | null;
      /** the lowest rejection among the settings meeting every other target */
      nearest: Near | null;
      /** the same rate over a longer window, k·L per k·W: see longerWindow() */
      longerWindow: LimitSteps | null;
      /** the same W and client with a larger L (more headroom): see largerLimit() */
      largerLimit: LimitSteps | null;
    }
  | {
      /** no setting tried meets this target, whatever the others */
      kind: 'out-of-reach';
      flag: TargetFlag;
      target: number;
      /**
       * the setting closest to this target among those meeting every other target; when none does, among all,
       * and `alsoMisses` names the other targets it misses (so a worst window over --max-over is never put
       * forward unsaid)
       */
      nearest: Near;
      /** true: nearest meets every other target */
      withinOthers: boolean;
      alsoMisses: { flag: TargetFlag; value: number }[];
      /** the nearest design does worse at its next longer Δ: a Δ shorter than any tried may get closer */
      shorterDelta: { next: Near; tryS: number } | null;
      /** designs not tried whose rules meet this target by construction */
      untried: DesignId[];
    }
  | {
      /** some settings meet this target and some meet all the others, but none both */
      kind: 'trade-off';
      flag: TargetFlag;
      target: number;
      others: TargetFlag[];
      /** the settings meeting every other target, with their figure for this one */
      meetOthers: Near[];
      nearest: Near;
    };

interface Metric {
  of: (r: AdviceRow) => number;
  target: (i: AdviceInput) => number | undefined;
  /** the designs whose rules meet any value this flag accepts */
  byConstruction: (d: DesignId) => boolean;
}

const METRICS: Record<TargetFlag, Metric> = {
  // a design bounded at L admits at most L in any window; --max-over and --max-mean are at least 1
  '--max-over': {
    of: (r) => r.worstWindow,
    target: (i) => i.maxWorst,
    byConstruction: (d) => DESIGNS[d].bound === 'L',
  },
  '--max-mean': {
    of: (r) => r.floodMultiple,
    target: (i) => i.maxMean,
    byConstruction: (d) => DESIGNS[d].bound === 'L',
  },
  '--max-rejected': {
    of: (r) => r.honestRejectedPct,
    target: (i) => i.maxRejectedPct,
    byConstruction: () => false,
  },
  // a design with no request-path call decides every request on the gateway
  '--max-round-trips': {
    of: (r) => 100 * r.roundTripsPerRequest,
    target: (i) => i.maxRoundTripsPct,
    byConstruction: (d) => DESIGNS[d].requestPath === null,
  },
};

const FLAGS: readonly TargetFlag[] = ['--max-over', '--max-mean', '--max-rejected', '--max-round-trips'];

// the same float-noise allowance as missedTargets
const EPS = 1e-9;
/** the largest L the loss-floor search tries */
export const MAX_LIMIT = 1_000_000;

/** B(L, load·L) in percent: what the exact central log rejects of a steady (Poisson) client at `load` × L. */
export function lossFloorPct(limit: number, load: number): number {
  return 100 * erlangB(limit, load * limit);
}

/** The smallest integer n in [lo, hi] with ok(n), for ok monotone (false … true); null when ok(hi) is false. */
function smallest(lo: number, hi: number, ok: (n: number) => boolean): number | null {
  if (!ok(hi)) return null;
  while (lo < hi) {
    const mid = Math.floor((lo + hi) / 2);
    if (ok(mid)) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/**
 * The same rate over a longer window: k·L per k·W. B(n, ρn) falls as n grows (ρ ≤ 1), so the smallest k whose
 * floor meets the target is found by bisection; k − 1 is shown beside it to say it is the smallest.
 */
export function longerWindow(
  input: Pick<AdviceInput, 'limit' | 'windowS' | 'honestLoad'>,
  targetPct: number,
): LimitSteps | null {
  const { limit, windowS, honestLoad } = input;
  const at = (k: number): LimitFloor => ({
    limit: k * limit,
    windowS: k * windowS,
    floorPct: lossFloorPct(k * limit, honestLoad),
  });
  return steps(1, Math.max(1, Math.floor(MAX_LIMIT / limit)), at, targetPct);
}

function steps(lo: number, hi: number, at: (n: number) => LimitFloor, targetPct: number): LimitSteps | null {
  const k = smallest(lo, hi, (n) => at(n).floorPct <= targetPct + EPS);
  const room = smallest(lo, hi, (n) => at(n).floorPct <= ROOM * targetPct + EPS);
  if (k === null || k === lo || room === null) return null;
  return { meets: at(k), before: at(k - 1), room: at(room) };
}

/** The same W and the same client (load·L per W) with more headroom: the smallest L' whose floor meets the target. */
export function largerLimit(
  input: Pick<AdviceInput, 'limit' | 'windowS' | 'honestLoad'>,
  targetPct: number,
): LimitSteps | null {
  const erlangs = input.honestLoad * input.limit;
  const at = (n: number): LimitFloor => ({
    limit: n,
    windowS: input.windowS,
    floorPct: 100 * erlangB(n, erlangs),
  });
  return steps(input.limit, MAX_LIMIT, at, targetPct);
}

function near(r: AdviceRow, flag: TargetFlag): Near {
  return { design: r.design, syncS: r.syncS, value: METRICS[flag].of(r) };
}

function lowest(rows: readonly AdviceRow[], flag: TargetFlag): AdviceRow | undefined {
  const of = METRICS[flag].of;
  return rows.reduce<AdviceRow | undefined>((a, r) => (a === undefined || of(r) < of(a) ? r : a), undefined);
}

/** The nearest design's trend in Δ: worse at its next longer Δ means a shorter Δ than any tried may help. */
function shorterDelta(
  rows: readonly AdviceRow[],
  best: AdviceRow,
  flag: TargetFlag,
): { next: Near; tryS: number } | null {
  if (best.syncS === null) return null;
  const mine = rows
    .filter((r) => r.design === best.design && r.syncS !== null)
    .sort((a, b) => a.syncS! - b.syncS!);
  if (mine[0] !== best || mine.length < 2) return null;
  const next = mine[1]!;
  if (!(METRICS[flag].of(next) > METRICS[flag].of(best))) return null;
  return { next: near(next, flag), tryS: +(best.syncS / 3).toPrecision(1) };
}

/** The active targets: --max-rejected always, the others when given. */
export function activeFlags(input: AdviceInput): TargetFlag[] {
  return FLAGS.filter((f) => METRICS[f].target(input) !== undefined);
}

/** Why nothing meets the targets (empty when something does), one finding per target that explains it. */
export function diagnose(input: AdviceInput, all: readonly AdviceRow[]): Finding[] {
  if (all.length === 0 || all.some((r) => r.misses.length === 0)) return [];
  const active = activeFlags(input);
  const findings: Finding[] = [];
  for (const flag of active) {
    const target = METRICS[flag].target(input)!;
    const others = active.filter((f) => f !== flag);
    const meetOthers = all.filter((r) => !r.misses.some((m) => others.includes(m as TargetFlag)));
    const meetAlone = all.filter((r) => !r.misses.includes(flag));
    const floorPct = lossFloorPct(input.limit, input.honestLoad);
    if (flag === '--max-rejected' && floorPct > target + EPS) {
      const central = all.find((r) => r.design === 'central-log');
      const best = lowest(meetOthers, flag);
      findings.push({
        kind: 'loss-floor',
        flag,
        target,
        floorPct,
        centralLog: central === undefined ? null : central.honestRejectedPct,
        nearest: best === undefined ? null : near(best, flag),
        longerWindow: longerWindow(input, target),
        largerLimit: largerLimit(input, target),
      });
    } else if (meetAlone.length === 0) {
      const withinOthers = meetOthers.length > 0;
      const best = lowest(withinOthers ? meetOthers : all, flag)!;
      findings.push({
        kind: 'out-of-reach',
        flag,
        target,
        nearest: near(best, flag),
        withinOthers: withinOthers && others.length > 0,
        alsoMisses: others
          .filter((o) => best.misses.includes(o))
          .map((o) => ({ flag: o, value: METRICS[o].of(best) })),
        shorterDelta: shorterDelta(all, best, flag),
        untried: DESIGN_IDS.filter((d) => !input.designs.includes(d) && METRICS[flag].byConstruction(d)),
      });
    } else if (meetOthers.length > 0) {
      findings.push({
        kind: 'trade-off',
        flag,
        target,
        others,
        meetOthers: meetOthers.map((r) => near(r, flag)),
        nearest: near(lowest(meetOthers, flag)!, flag),
      });
    }
  }
  return findings;
}
