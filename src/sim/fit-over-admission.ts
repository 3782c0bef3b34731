/**
 * The over-admission formula fitted to a study's flood runs: a pure function of result rows.
 * Model: admitted/L = 1 + S·(1 − exp(−c·x/S)), x = load·Δ/W (a sync interval's flood in units of L),
 * S = a·(K − 1)^b (the ceiling, reached when every gateway fills on its own).
 */
import type { DesignId } from '../config.js';
import type { RunRow } from './types.js';

export interface OverAdmissionCoefficients {
  /** initial slope: the share of one sync interval's flood that gets through */
  c: number;
  /** the ceiling S = a·(K − 1)^b */
  a: number;
  b: number;
}

export interface OverFit extends OverAdmissionCoefficients {
  design: DesignId;
  /** root mean square of log(admitted) residuals over the points */
  rmsLog: number;
  points: number;
}

/** One configuration's mean over its seeds: x = load·Δ/W, K gateways, y = admitted per window (× L). */
export interface OverAdmissionPoint {
  x: number;
  K: number;
  y: number;
}

/** Admitted per window (× L) the model predicts at x = load·Δ/W with K gateways. */
export function overAdmission(x: number, K: number, f: OverAdmissionCoefficients): number {
  const S = f.a * (K - 1) ** f.b;
  if (!(S > 0)) return 1;
  return 1 + S * (1 - Math.exp((-f.c * x) / S));
}

/**
 * The largest Δ (s) a design's flood runs are fitted on. adaptive's (and adaptive-early's) blind span is capped at W/6, so at Δ
 * near W it turns floods away below L: fitted on Δ ≤ 1 s.
 */
const FIT_MAX_SYNC_S: Partial<Record<DesignId, number>> = { adaptive: 1, 'adaptive-early': 1 };

/** Summed in row order and divided once, as the report's cell means are, so the fit sees the same figures. */
function meanAdmitted(rows: readonly RunRow[]): number {
  let sum = 0;
  for (const r of rows) sum += r.admittedPerWindow;
  return sum / rows.length;
}

/**
 * A design's flood runs (sliding window, own sync phases, K > 1) reduced to one point per (K, Δ, load),
 * in the order the configurations first appear.
 */
export function overAdmissionPoints(rows: readonly RunRow[], design: DesignId): OverAdmissionPoint[] {
  const maxSyncS = FIT_MAX_SYNC_S[design] ?? Number.POSITIVE_INFINITY;
  const mine = rows.filter(
    (r) =>
      r.design === design &&
      r.group === 'flood' &&
      r.windowKind === 'sliding' &&
      !r.alignedSyncs &&
      r.syncS <= maxSyncS,
  );
  const configs = new Map<string, RunRow[]>();
  for (const r of mine) {
    const k = `${r.gateways}|${r.syncS}|${r.load}`;
    const g = configs.get(k);
    if (g) g.push(r);
    else configs.set(k, [r]);
  }
  return [...configs.values()]
    .filter((g) => g[0]!.gateways > 1)
    .map((g) => ({
      x: (g[0]!.load * g[0]!.syncS) / g[0]!.windowS,
      K: g[0]!.gateways,
      y: meanAdmitted(g),
    }));
}

/** Root mean square of the log residuals: the typical relative error of the model over the points. */
export function rmsLogError(points: readonly OverAdmissionPoint[], f: OverAdmissionCoefficients): number {
  let s = 0;
  for (const p of points) {
    // the model is of over-admission: a point under L (a flood not yet filling the window) counts as L
    const d = Math.log(Math.max(p.y, 1)) - Math.log(overAdmission(p.x, p.K, f));
    s += d * d;
  }
  return Math.sqrt(s / Math.max(1, points.length));
}

/**
 * Least squares on log(admitted) by a coarse-to-fine grid over (c, a, b): deterministic and dependency-free.
 * Each of 5 rounds tries 17 values per coefficient (c and a on a log scale, b linear), then narrows every
 * range to a quarter around the best so far.
 */
export function fitOverAdmissionPoints(
  points: readonly OverAdmissionPoint[],
): OverAdmissionCoefficients & { rmsLog: number } {
  let best = { a: 0, b: 0, c: 0 };
  let bestErr = Number.POSITIVE_INFINITY;
  let ranges = { c: [-3, 1.5], a: [-3, 1.5], b: [0, 1.2] } as Record<'a' | 'b' | 'c', [number, number]>;
  for (let round = 0; round < 5; round++) {
    const n = 16;
    for (let i = 0; i <= n; i++) {
      const c = 10 ** (ranges.c[0] + ((ranges.c[1] - ranges.c[0]) * i) / n);
      for (let j = 0; j <= n; j++) {
        const a = 10 ** (ranges.a[0] + ((ranges.a[1] - ranges.a[0]) * j) / n);
        for (let k = 0; k <= n; k++) {
          const b = ranges.b[0] + ((ranges.b[1] - ranges.b[0]) * k) / n;
          const e = rmsLogError(points, { a, b, c });
          if (e < bestErr) {
            bestErr = e;
            best = { a, b, c };
          }
        }
      }
    }
    const lc = Math.log10(best.c);
    const la = Math.log10(best.a);
    const wc = (ranges.c[1] - ranges.c[0]) / 8;
    const wa = (ranges.a[1] - ranges.a[0]) / 8;
    const wb = (ranges.b[1] - ranges.b[0]) / 8;
    ranges = {
      c: [lc - wc, lc + wc],
      a: [la - wa, la + wa],
      b: [Math.max(0, best.b - wb), best.b + wb],
    };
  }
  return { ...best, rmsLog: bestErr };
}

/** The formula fitted to a design's flood runs; null with fewer than 3 points to fit. */
export function fitOverAdmission(rows: readonly RunRow[], design: DesignId): OverFit | null {
  const points = overAdmissionPoints(rows, design);
  if (points.length < 3) return null;
  return { design, ...fitOverAdmissionPoints(points), points: points.length };
}
