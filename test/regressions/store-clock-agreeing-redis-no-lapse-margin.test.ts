import { describe, expect, it } from 'vitest';
import { StoreClock } from '../../src/gateway/runtime/store-clock.js';

// The runtime told an echo (a store on the caller's clock) from a real store clock by equality: a
// reply whose store time equalled the time sent was skipped. A Redis whose TIME agrees with the
// gateway to the millisecond answers exactly that, so its replies were never samples: the offset's
// error stayed NaN and leases were spent up to their lapse with no margin for that error.
describe('regression: a store clock that agrees with the gateway leaves no lapse margin', () => {
  it('a store with its own clock is sampled even when its time equals the time sent', () => {
    const c = new StoreClock(true, true);
    // sent at decision time 5,000 (local 5,000: offset 0); Redis TIME says 5,000; round trip 0.8 ms
    c.learn(5_000, 4_999.6, 5_000.4);
    expect(c.offsetMs).toBe(0);
    expect(c.offsetErrorMs).toBeCloseTo(0.4 + 1, 9);
    // the grant is spent until its lapse less that error and the store's tick
    expect(c.withLapseMargin({ granted: 2, grantExpiresAt: 9_000 }).grantExpiresAt).toBeCloseTo(
      9_000 - 1.4 - 1,
      9,
    );
  });

  it('a store on the caller’s clock still teaches no offset', () => {
    const c = new StoreClock(false, false);
    c.learn(5_000, 4_999.6, 5_000.4);
    expect(Number.isNaN(c.offsetErrorMs)).toBe(true);
  });
});
