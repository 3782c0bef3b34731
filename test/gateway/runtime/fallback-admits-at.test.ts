import { describe, expect, it } from 'vitest';
import { makePolicy } from '../../../src/config.js';
import { Fallback } from '../../../src/gateway/runtime/fallback.js';

/**
 * The `local` fail mode's Retry-After: the first instant `cost` more fit under the share, as its own
 * outage admits age out (W = 1 s, sliding; share 2.5, so at most 3 live).
 */
describe('Fallback.admitsAt', () => {
  const fb = () => {
    const f = new Fallback(makePolicy(10, 1_000));
    for (const t of [0, 100, 200]) f.record(t, 1, Number.POSITIVE_INFINITY);
    return f;
  };

  it('one unit waits for the oldest admit, two for the second', () => {
    expect(fb().admitsAt(300, 1, 2.5)).toBe(1_000);
    expect(fb().admitsAt(300, 2, 2.5)).toBe(1_100);
    expect(fb().admitsAt(300, 3, 2.5)).toBe(1_200);
  });

  it('now when it fits, Infinity when it never can', () => {
    expect(fb().admitsAt(1_050, 1, 2.5)).toBe(1_050);
    expect(fb().admitsAt(300, 4, 2.5)).toBe(Number.POSITIVE_INFINITY);
  });
});
