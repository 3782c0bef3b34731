/**
 * KeyCheckpoints.quiet, the keys a checked chunk decides unsaved: what the key's store record holds
 * counts in the bound (a gateway that comes to the key in the chunk reads it), with the key's own
 * limiters' views. test/designs/adaptive-early.quiet.test.ts drives the limiter's part of the bound;
 * test/replay/grouped.property.test.ts the chunks (a quiet key that wants an early sync throws).
 */
import { describe, expect, it } from 'vitest';
import { makePolicy } from '../../src/config.js';
import { AdaptiveEarlyKey } from '../../src/designs/adaptive-early.js';
import type { FleetParams } from '../../src/designs/key-limiter.js';
import { newEntry } from '../../src/designs/key-steps.js';
import { KeyCheckpoints } from '../../src/replay/run/key-checkpoints.js';
import { MemoryStore } from '../../src/store/memory-store.js';

const W = 60_000;
const DELTA = 1000;
const policy = makePolicy(100, W);
const fleet: FleetParams = { policy, gateways: 2, syncMs: DELTA, leaseTtlMs: 3 * DELTA, horizonMs: DELTA };

/** A store whose record of `key` holds `n` admits of gateway 'a' at 1,000. */
function storeWith(key: string, n: number): MemoryStore {
  const store = new MemoryStore();
  const entry = { ...newEntry(), key, admits: Array<number>(n).fill(1000), read: true };
  const req = { gatewayId: 'a', seq: 1, policy, leaseTtlMs: 3 * DELTA, horizonMs: DELTA, entries: [] };
  expect(store.syncKey(req, entry, 1000).count).toBe(n);
  return store;
}

describe('KeyCheckpoints.quiet', () => {
  it('counts what the key’s record holds: a gateway new to a key near the limit is not quiet', () => {
    const store = storeWith('k', 90);
    const checks = new KeyCheckpoints(store, policy, [fleet, fleet]);
    // the key's five first requests, on gateway 1 from 2,000: its limiter reads 90 at its first sync,
    // and its part is then (100 − 90) · 0.5 / 1.5 = 3.3, which they spend (below)
    const ts = Float64Array.of(2000, 2001, 2002, 2003, 2004);
    const gs = Int32Array.of(1, 1, 1, 1, 1);
    expect(checks.quiet('k', undefined, ts, gs, 5, 2000, 2004)).toBe(false);
    // with room in the record they are quiet
    const room = new KeyCheckpoints(storeWith('k', 5), policy, [fleet, fleet]);
    expect(room.quiet('k', undefined, ts, gs, 5, 2000, 2004)).toBe(true);
    // the limiter: after a read of 90, five admits in Δ want an early sync
    const lim = new AdaptiveEarlyKey(fleet, 2000);
    lim.syncEntry('k', 2000);
    lim.applySync({ count: 90, expiries: [], horizon: 3000, granted: 0, grantExpiresAt: 0 }, 2000);
    let wanted = false;
    for (let d = 0; d < 5; d++) {
      lim.decide(2001 + d, 1);
      wanted ||= lim.wantsEarlySync(2001 + d);
    }
    expect(wanted).toBe(true);
  });

  it('is false for requests out of time order (its spans need them in order)', () => {
    const checks = new KeyCheckpoints(storeWith('k', 5), policy, [fleet, fleet]);
    expect(
      checks.quiet('k', undefined, Float64Array.of(3000, 2000), Int32Array.of(1, 1), 2, 2000, 3000),
    ).toBe(false);
  });
});
