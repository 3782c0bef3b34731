/**
 * adaptive with reads on request (decision 0013, the sidecar's default) admitted 1.088 × L per window
 * under a 30× flood at K = 32 (1.033 with reads at every sync; the bound is 1.05). Each gateway gets
 * about 1.5 flood requests per Δ, so in about one Δ in five it gets none; and when an echo's admits
 * expire together the window's count dips below L/2, so the key was no longer "near L" either: the
 * read was skipped and the next request was decided on a view up to 2Δ old while the other gateways
 * refilled the window (17 % of the admits, on about 1.6 × the headroom a fresh view showed). A key is
 * now also read while its own arrivals, scaled to the fleet over the blind span, would take the
 * headroom. Seen failing with AdaptiveKey.readDue removed (the first test; the sim's figure is in
 * test/sim/reads-on-request-floods.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { makePolicy } from '../../src/config.js';
import { AdaptiveKey } from '../../src/designs/adaptive.js';
import type { FleetParams } from '../../src/designs/key-limiter.js';
import type { SyncReply } from '../../src/store/contract.js';

const DELTA = 1000;
const W = 60 * DELTA;
const L = 100;
const params: FleetParams = {
  policy: makePolicy(L, W),
  gateways: 32,
  syncMs: DELTA,
  leaseTtlMs: 3 * DELTA,
  horizonMs: DELTA,
  readsOnRequest: true,
};

function sync(lim: AdaptiveKey, now: number, count: number): void {
  lim.syncEntry('k', now);
  const reply: SyncReply = { count, expiries: [], horizon: now + DELTA, granted: 0, grantExpiresAt: 0 };
  lim.applySync(reply, now);
}

/** A key read at 0 with the window full, `arrivals` requests evenly over (0, 6 s), read at 6 s with `dip`. */
function keyAfter(arrivals: number, dip: number): AdaptiveKey {
  const lim = new AdaptiveKey(params, 0);
  sync(lim, 0, L);
  for (let i = 1; i <= arrivals; i++) lim.decide((i * 6 * DELTA) / (arrivals + 1), 1);
  sync(lim, 6 * DELTA, dip);
  return lim;
}

describe('adaptive, reads on request: a flooded key is read in the dip of its window', () => {
  it('no request in the last Δ, the view below L/2: read while the flood goes on (1.5 per Δ)', () => {
    const lim = keyAfter(9, 30);
    expect(lim.readDue(7 * DELTA)).toBe(true);
  });

  it('a quiet key (one request in 6 s) far from L is still not read', () => {
    const lim = keyAfter(1, 30);
    expect(lim.readDue(7 * DELTA)).toBe(false);
  });

  it('once the flood has gone quiet for a while, its reads stop', () => {
    const lim = keyAfter(9, 30);
    expect(lim.readDue(60 * DELTA)).toBe(false);
  });
});
