/**
 * Pieces of a many-keys run (src/sim/many-keys.ts) with a job of their own: the draws that pick an
 * arrival's key and gateway, and the meter of what its syncs cost over the steady state.
 */
import type { Random } from './random.js';

/** Draws an honest arrival's key: rank r (0-based) with weight (r + 1)^−S, by one uniform draw. */
export function keyPicker(rng: Random, n: number, s: number): () => number {
  const cum = new Float64Array(n);
  for (let r = 0, c = 0; r < n; r++) cum[r] = c += (r + 1) ** -s;
  const total = cum[n - 1];
  return () => {
    const u = rng.uniform() * total;
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cum[mid] > u) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  };
}

/** Draws an arrival's gateway by the routing weights (summing to 1), by one uniform draw. */
export function gatewayPicker(rng: Random, weights: ArrayLike<number>): () => number {
  const k = weights.length;
  const cum = new Float64Array(k);
  for (let i = 0, c = 0; i < k; i++) cum[i] = c += weights[i];
  return () => {
    const u = rng.uniform();
    for (let i = 0; i < k - 1; i++) if (u < cum[i]) return i;
    return k - 1;
  };
}

/** What the store counted so far on the request path (central-log's logAdmits, leases-ask's asks). */
export interface PathCalls {
  readonly logAdmits: number;
  readonly asks: number;
  readonly keyCount: number;
}

/** A figure sampled per sync: its sum and its largest sample. */
export class SumMax {
  sum = 0;
  max = 0;

  add(v: number): void {
    this.sum += v;
    if (v > this.max) this.max = v;
  }
}

/** The syncs' cost over the steady state: a sample per sync there (keys carried, keys held, store keys). */
export class SyncCostMeter {
  samples = 0;
  /** Keys the syncs carried (early syncs' added to the sum by the run at its end). */
  readonly entries = new SumMax();
  /** Keys the syncing gateway held before the sync. */
  readonly held = new SumMax();
  /** Keys the store held after it. */
  readonly storeKeys = new SumMax();
  /** Request-path calls at the first sample (NaN: none yet). */
  private pathCallsAtFrom = Number.NaN;

  /** One sync: the keys its gateway held before it, the keys it carried, the store after it. */
  sample(heldBefore: number, keys: number, store: PathCalls): void {
    if (Number.isNaN(this.pathCallsAtFrom)) this.pathCallsAtFrom = store.logAdmits + store.asks;
    this.samples++;
    this.entries.add(keys);
    this.held.add(heldBefore);
    this.storeKeys.add(store.keyCount);
  }

  /** Request-path calls made since the first sample, of `pathCalls` made in all. */
  pathCallsSince(pathCalls: number): number {
    return pathCalls - (Number.isNaN(this.pathCallsAtFrom) ? pathCalls : this.pathCallsAtFrom);
  }

  /** A figure's mean per sample (0 before the first). */
  mean(figure: SumMax): number {
    return this.samples > 0 ? figure.sum / this.samples : 0;
  }
}
