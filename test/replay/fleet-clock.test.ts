// ReplayFleet.clockTo's inlined common case (no sync due): a request at a sync's very instant still
// runs it first, and none is taken once the figures were.
import { describe, expect, it } from 'vitest';
import { ReplayFleet } from '../../src/replay/run/fleet.js';

const fleet = () =>
  new ReplayFleet({
    design: 'shared-counter',
    gateways: 4,
    limit: 10,
    windowMs: 60_000,
    syncMs: 1000,
    seed: 1,
    origin: 5000,
  });

describe('ReplayFleet.clockTo', () => {
  it('passes a sync due at the request’s instant, and none after it', () => {
    const f = fleet();
    const first = f.syncAt(0);
    expect(f.clockTo(first - 0.5)).toBe(0);
    expect(f.clockTo(first)).toBe(1);
    expect(f.clockTo(f.syncAt(1) - 0.5)).toBe(1);
  });

  it('takes no request once the figures were taken', () => {
    const f = fleet();
    f.clockTo(5000);
    f.storeCalls();
    expect(() => f.clockTo(5000)).toThrow(/after the figures were taken/);
  });
});
