import type { WindowKind } from '../config.js';

/**
 * The instant an admit made at `t` stops counting. A sliding window counts it while now < t + W;
 * a fixed window (aligned to multiples of W) counts it until the end of its window.
 * Both are monotone in t, so a log sorted by time is also sorted by expiry.
 */
export function expiryOf(t: number, windowMs: number, kind: WindowKind): number {
  return kind === 'sliding' ? t + windowMs : (Math.floor(t / windowMs) + 1) * windowMs;
}
