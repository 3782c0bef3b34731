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

/** The syncs' cost over the steady state: a sample per sync there (keys carried, keys held, store keys). */
export class SyncCostMeter {
  samples = 0;
  /** Keys the syncs carried (early syncs' added by the run at its end). */
  entries = 0;
  entriesMax = 0;
  held = 0;
  heldMax = 0;
  storeKeys = 0;
  storeKeysMax = 0;
  /** Request-path calls at the first sample (NaN: none yet). */
  private pathCallsAtFrom = Number.NaN;

  /** One sync: the keys its gateway held before it, the keys it carried, the store after it. */
  sample(heldBefore: number, keys: number, store: PathCalls): void {
    if (Number.isNaN(this.pathCallsAtFrom)) this.pathCallsAtFrom = store.logAdmits + store.asks;
    this.samples++;
    this.entries += keys;
    if (keys > this.entriesMax) this.entriesMax = keys;
    this.held += heldBefore;
    if (heldBefore > this.heldMax) this.heldMax = heldBefore;
    const sk = store.keyCount;
    this.storeKeys += sk;
    if (sk > this.storeKeysMax) this.storeKeysMax = sk;
  }

  /** Request-path calls made since the first sample, of `pathCalls` made in all. */
  pathCallsSince(pathCalls: number): number {
    return pathCalls - (Number.isNaN(this.pathCallsAtFrom) ? pathCalls : this.pathCallsAtFrom);
  }

  keysPerGateway(): number {
    return this.samples > 0 ? this.held / this.samples : 0;
  }

  keysPerSync(): number {
    return this.samples > 0 ? this.entries / this.samples : 0;
  }

  storeKeysMean(): number {
    return this.samples > 0 ? this.storeKeys / this.samples : 0;
  }
}
