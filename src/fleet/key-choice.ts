import type { Random } from '../sim/random.js';

/**
 * Zipf key popularity, drawn as src/sim/many-keys.ts draws an honest arrival's key: rank r (0-based)
 * ∝ 1/(r+1)^S, picked by one uniform draw against the cumulative weights (binary search). The
 * simulator keeps its picker inside runManyKeys, so this is the same arithmetic in the same order:
 * the same seeded stream gives the same keys, live and simulated.
 */
export class ZipfKeys {
  private readonly cum: Float64Array;
  private readonly total: number;

  constructor(
    readonly count: number,
    readonly exponent: number,
  ) {
    if (!Number.isInteger(count) || count < 1)
      throw new RangeError(`keys: must be an integer ≥ 1, got ${count}`);
    if (!(exponent >= 0) || !Number.isFinite(exponent))
      throw new RangeError(`popularity: must be ≥ 0, got ${exponent}`);
    this.cum = new Float64Array(count);
    for (let r = 0, c = 0; r < count; r++) this.cum[r] = c += (r + 1) ** -exponent;
    this.total = this.cum[count - 1];
  }

  /** A key's 0-based popularity rank, from one uniform draw of rng. */
  pick(rng: Random): number {
    const u = rng.uniform() * this.total;
    let lo = 0;
    let hi = this.count - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.cum[mid] > u) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }
}

/** The key name of a rank, as the simulator names it. */
export const keyName = (rank: number): string => `k${rank}`;

/** The request path that carries a rank to the gateways, and back. */
export const keyPath = (rank: number): string => `/k/${rank}`;
/** The key a path names: /k/<rank> with rank a decimal integer below count; anything else null. */
export function keyOfPath(url: string | undefined, count: number): string | null {
  if (url === undefined || !url.startsWith('/k/')) return null;
  const digits = url.slice(3);
  if (!/^(0|[1-9]\d{0,8})$/.test(digits) || Number(digits) >= count) return null;
  return `k${digits}`;
}
