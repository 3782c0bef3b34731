/**
 * The number of i in [0, max) for which `holds` is true, given that it is true for a prefix: checks a
 * guess (exact when the guess is right, two calls), else bisects. The lease designs' idle-sync skip
 * (LeaseKey.idleRun) counts its syncs with it: the guess comes from a division or a logarithm, which
 * rounding can put one off, so the exact test has the last word.
 */
export function prefixLength(max: number, holds: (i: number) => boolean, guess = Number.NaN): number {
  if (max <= 0) return 0;
  if (guess >= 1 && guess < max && holds(guess - 1) && !holds(guess)) return guess;
  if (guess >= max && holds(max - 1)) return max;
  if (!holds(0)) return 0;
  let lo = 0;
  let hi = max;
  while (hi - lo > 1) {
    const mid = (lo + hi) >>> 1;
    if (holds(mid)) lo = mid;
    else hi = mid;
  }
  return lo + 1;
}
