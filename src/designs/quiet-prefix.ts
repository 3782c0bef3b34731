/**
 * LeaseKey.idleRun's count of the syncs before its gateway goes quiet, with the guess checked first
 * without a closure: the closure prefixLength needs lives in its own function, so a call whose guess
 * is right (nearly every one) allocates no context (the replay's lease runs call idleRun per idle
 * gateway and key: a context and two closures per call were ~290 bytes a line of leases-ask's garbage).
 */
import { prefixLength } from './prefix-length.js';

/**
 * How many of the instants at(0 … count − 1) are less than `windowMs` after `last` (a prefix: the
 * instants only grow), given a guess: exactly prefixLength's answer.
 */
export function quietPrefix(
  at: (i: number) => number,
  count: number,
  last: number,
  windowMs: number,
  guess: number,
): number {
  // prefixLength's own first two checks
  if (count <= 0) return 0;
  if (guess >= 1 && guess < count && at(guess - 1) - last < windowMs && !(at(guess) - last < windowMs))
    return guess;
  if (guess >= count && at(count - 1) - last < windowMs) return count;
  return bisect(at, count, last, windowMs, guess);
}

function bisect(at: (i: number) => number, count: number, last: number, windowMs: number, guess: number) {
  return prefixLength(count, (i) => at(i) - last < windowMs, guess);
}
