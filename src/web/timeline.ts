import { AdaptiveKey } from '../designs/adaptive.js';
import { CentralLogKey } from '../designs/central-log.js';
import { ALLOW, type KeyLimiter } from '../designs/key-limiter.js';
import { LeaseKey } from '../designs/leases.js';
import { SplitKey } from '../designs/split.js';
import { AssumeOthersKey, SharedCounterKey, SyncedKey, TrackShareKey } from '../designs/synced.js';
import { SyncedView } from '../designs/synced-view.js';
import { type RunOutput, runSimulation } from '../sim/engine.js';
import type { RunParams } from '../sim/types.js';

// The three calls through which a design admits: decide → ALLOW, or a request-path reply → true.
const ADMITTING = ['decide', 'onLogReply', 'onAskReply'] as const;
// every class on the designs' prototype chains that defines one of them (SyncedView holds decide)
const CLASSES = [
  CentralLogKey,
  SplitKey,
  SyncedView,
  SyncedKey,
  SharedCounterKey,
  AssumeOthersKey,
  TrackShareKey,
  LeaseKey,
  AdaptiveKey,
];

/**
 * Runs one simulation and also returns the instant of every admit, in order.
 *
 * The engine reports totals only. Rather than replicate it, this wraps the design classes' admitting
 * methods for the length of one synchronous run and notes `now` when they admit; decisions and random
 * draws are untouched, so the metrics are runSimulation's own (a test checks it, and that the admits add
 * up to `admitted`). A per-admit hook in EngineOptions would make this wrapper unnecessary.
 */
export function runWithAdmits(params: RunParams): { metrics: RunOutput; admits: Float64Array } {
  let admits = new Float64Array(1024);
  let n = 0;
  const note = (t: number) => {
    if (n === admits.length) {
      const grown = new Float64Array(n * 2);
      grown.set(admits);
      admits = grown;
    }
    admits[n++] = t;
  };
  // TrackShareKey.decide calls SyncedKey.decide: only the outermost call of a request counts
  let depth = 0;
  const restore: (() => void)[] = [];
  for (const cls of CLASSES) {
    const proto = cls.prototype as unknown as Record<string, (this: KeyLimiter, ...a: unknown[]) => unknown>;
    for (const name of ADMITTING) {
      if (!Object.hasOwn(proto, name)) continue;
      const original = proto[name];
      proto[name] = function (this: KeyLimiter, ...args: unknown[]) {
        depth++;
        try {
          const out = original.apply(this, args);
          if (depth === 1 && (out === true || (name === 'decide' && out === ALLOW))) {
            note(args[name === 'decide' ? 0 : 1] as number);
          }
          return out;
        } finally {
          depth--;
        }
      };
      restore.push(() => {
        proto[name] = original;
      });
    }
  }
  try {
    const metrics = runSimulation(params);
    return { metrics, admits: admits.slice(0, n) };
  } finally {
    for (const r of restore) r();
  }
}

export interface TimelinePoint {
  /** minutes since the start */
  t: number;
  /** admitted in the W-long window ending at t, × L */
  perL: number;
}

/**
 * Admitted in the trailing window W, × L, sampled every `stepMs` (an admit at a counts at t while
 * a ≤ t < a + W). `admits` must be in time order, as runWithAdmits returns them.
 */
export function slidingCounts(
  admits: Float64Array,
  windowMs: number,
  limit: number,
  endMs: number,
  stepMs: number,
): TimelinePoint[] {
  const points: TimelinePoint[] = [];
  let lo = 0;
  let hi = 0;
  for (let t = 0; t <= endMs + 1e-9; t += stepMs) {
    while (hi < admits.length && admits[hi] <= t) hi++;
    while (lo < hi && admits[lo] <= t - windowMs) lo++;
    points.push({ t: t / 60_000, perL: (hi - lo) / limit });
  }
  return points;
}

/** A step that keeps the chart to at most `maxPoints` points and resolves a tenth of W where it can. */
export function timelineStepMs(windowMs: number, endMs: number, maxPoints = 600): number {
  return Math.max(windowMs / 10, endMs / maxPoints);
}
