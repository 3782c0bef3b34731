/**
 * A seeded random source (xoshiro128**) with the draws the simulator needs. Same seed, same
 * sequence, on every machine: runs are reproducible bit for bit.
 */
export class Random {
  // initialized as small integers, as they stay (a field first set to undefined is a generic one)
  private a = 0;
  private b = 0;
  private c = 0;
  private d = 0;

  constructor(seed: number) {
    // splitmix32 spreads any integer seed over the 128-bit state
    let s = seed >>> 0;
    const next = () => {
      s = (s + 0x9e3779b9) >>> 0;
      let z = s;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
      return (z ^ (z >>> 16)) >>> 0;
    };
    // The state is kept as signed 32-bit integers (every operation below reads its operands' 32 bits
    // alike, signed or not): small integers to the JIT, so its fields and results are never boxed.
    this.a = next() | 0;
    this.b = next() | 0;
    this.c = next() | 0;
    this.d = next() | 0;
    if ((this.a | this.b | this.c | this.d) === 0) this.a = 1;
  }

  /** 32 random bits. */
  nextU32(): number {
    return this.nextI32() >>> 0;
  }

  /** The same 32 bits as nextU32, read as a signed integer (not boxed when a call is not inlined). */
  private nextI32(): number {
    const result = Math.imul(rotl32(Math.imul(this.b, 5), 7), 9);
    const t = this.b << 9;
    this.c ^= this.a;
    this.d ^= this.b;
    this.b ^= this.c;
    this.a ^= this.d;
    this.c ^= t;
    this.d = rotl32(this.d, 11);
    return result;
  }

  /** Uniform in (0, 1): never 0, so -log(u) is finite. */
  uniform(): number {
    return ((this.nextI32() >>> 0) + 0.5) * 2.3283064365386963e-10;
  }

  /** Exponential with the given rate (mean 1/rate). */
  exponential(rate: number): number {
    return -Math.log(this.uniform()) / rate;
  }

  /** Poisson with mean mu: inversion for small means, Hörmann's PTRS (1993) above. */
  poisson(mu: number): number {
    if (!(mu > 0)) return 0;
    if (mu < 12) {
      // inversion by sequential search
      let k = 0;
      let p = Math.exp(-mu);
      let s = p;
      const u = this.uniform();
      while (u > s) {
        k++;
        p *= mu / k;
        s += p;
        if (p < 1e-300 && k > mu) break;
      }
      return k;
    }
    const smu = Math.sqrt(mu);
    const b = 0.931 + 2.53 * smu;
    const a = -0.059 + 0.02483 * b;
    const invAlpha = 1.1239 + 1.1328 / (b - 3.4);
    const vr = 0.9277 - 3.6224 / (b - 2);
    const logMu = Math.log(mu);
    for (;;) {
      const u = this.uniform() - 0.5;
      const v = this.uniform();
      const us = 0.5 - Math.abs(u);
      const k = Math.floor(((2 * a) / us + b) * u + mu + 0.43);
      if (us >= 0.07 && v <= vr) return k;
      if (k < 0 || (us < 0.013 && v > us)) continue;
      if (
        Math.log(v) + Math.log(invAlpha) - Math.log(a / (us * us) + b) <=
        -mu + k * logMu - logFactorial(k)
      ) {
        return k;
      }
    }
  }
}

/** x rotated left by k bits, as a signed 32-bit integer. */
function rotl32(x: number, k: number): number {
  return (x << k) | (x >>> (32 - k));
}

const LOG_FACT = (() => {
  const t = new Float64Array(256);
  for (let i = 1; i < 256; i++) t[i] = t[i - 1] + Math.log(i);
  return t;
})();

/** log(k!) exactly from a table, then by Stirling's series (error < 1e-15 relative there). */
export function logFactorial(k: number): number {
  if (k < 256) return LOG_FACT[k];
  const x = k + 1;
  return (x - 0.5) * Math.log(x) - x + 0.5 * Math.log(2 * Math.PI) + 1 / (12 * x) - 1 / (360 * x * x * x);
}
