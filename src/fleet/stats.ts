import type { LatencySummary } from './protocol.js';

/** p50, p99 and max of a sample (nearest rank); zeros for an empty one. */
export function summarize(sample: ArrayLike<number>): LatencySummary {
  const n = sample.length;
  if (n === 0) return { count: 0, p50: 0, p99: 0, max: 0 };
  const s = Float64Array.from(sample).sort();
  const at = (q: number) => s[Math.min(n - 1, Math.max(0, Math.ceil(q * n) - 1))];
  return { count: n, p50: at(0.5), p99: at(0.99), max: s[n - 1] };
}

export interface WindowFigures {
  /** mean admitted per W after the first W, × L (the simulator's admittedPerWindow) */
  admittedPerWindow: number;
  /** most admitted in any W-long span, × L */
  worstWindow: number;
  /** admits whose trailing W-long span holds more than L (the simulator's windowsOverLimit) */
  windowsOverLimit: number;
  /**
   * By how much the tightest span holding L + 1 admits falls short of W, ms (0 when none does): the
   * clock error that would explain every window over L.
   */
  overLimitByMs: number;
  /** admits in [0, duration) */
  admitted: number;
  /** the most admits in a W-long span ending within W of the onset, × L (the simulator's onsetWorst); 0 without one */
  onsetWorst: number;
}

/**
 * The simulator's window figures from a log of admit instants (ms since the run's start, any order):
 * the same definitions as src/sim/engine/window-meter.ts, so live and simulated figures compare one to one.
 * Admits outside [0, duration) are left out, as the simulator never makes them.
 */
export function windowFigures(
  times: ArrayLike<number>,
  windowMs: number,
  limit: number,
  durationMs: number,
  onsetAt: number | null = null,
): WindowFigures {
  const onsetFrom = onsetAt ?? Number.POSITIVE_INFINITY;
  const onsetEnd = onsetAt === null ? Number.NEGATIVE_INFINITY : onsetAt + windowMs;
  let onsetWorst = 0;
  const ts = Float64Array.from(times)
    .filter((t) => t >= 0 && t < durationMs)
    .sort();
  let afterFirst = 0;
  let worst = 0;
  let over = 0;
  let overBy = 0;
  let lo = 0;
  for (let hi = 0; hi < ts.length; hi++) {
    if (ts[hi] >= windowMs) afterFirst++;
    while (ts[hi] - ts[lo] >= windowMs) lo++;
    const inSpan = hi - lo + 1;
    if (inSpan > worst) worst = inSpan;
    if (ts[hi] >= onsetFrom && ts[hi] < onsetEnd && inSpan > onsetWorst) onsetWorst = inSpan;
    if (inSpan > limit) over++;
    if (hi >= limit) {
      const short = windowMs - (ts[hi] - ts[hi - limit]);
      if (short > overBy) overBy = short;
    }
  }
  const windowsAfterFirst = Math.max(durationMs - windowMs, 0) / windowMs;
  return {
    admittedPerWindow: windowsAfterFirst > 0 ? afterFirst / windowsAfterFirst / limit : 0,
    worstWindow: worst / limit,
    windowsOverLimit: over,
    overLimitByMs: overBy,
    admitted: ts.length,
    onsetWorst: onsetWorst / limit,
  };
}
