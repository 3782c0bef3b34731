import type { WindowKind } from '../config.js';

/**
 * The instant an admit made at `t` stops counting. A sliding window counts it while now < t + W;
 * a fixed window (aligned to multiples of W) counts it until the end of its window.
 * Both are monotone in t, so a log sorted by time is also sorted by expiry.
 */
export function expiryOf(t: number, windowMs: number, kind: WindowKind): number {
  // the fixed case in a function of its own: this one's bytecode stays small enough for V8 to inline
  // wherever it is called (at 44 bytes it was left as a call in the larger sync paths, each call's
  // double returned boxed)
  return kind === 'sliding' ? t + windowMs : fixedExpiryOf(t, windowMs);
}

/** expiryOf for a fixed window. */
function fixedExpiryOf(t: number, windowMs: number): number {
  return (Math.floor(t / windowMs) + 1) * windowMs;
}
