import { describe, expect, it } from 'vitest';
import type { DesignId } from '../../src/config.js';
import type { Decision } from '../../src/gateway/decision.js';
import { Gateway } from '../../src/gateway/gateway.js';
import { MemoryStore } from '../../src/store/memory-store.js';

/**
 * A lease gateway short of one slot for a cost-2 request, after the store's oldest admit had left,
 * answered Retry-After from its own oldest unpushed admit (when it ages out, at the sync after),
 * although the store's other admits leave from that oldest expiry on at instants the store never
 * said — here at the very same instant. LeaseKey.retryAt counted one slot freed by the oldest expiry
 * and took the own-admit instant as known: Retry-After 164 (leases-ask) and 195 (leases) where the
 * central log admits at once and the gateway itself admits at its next sync, 2 and 33 ms away
 * (FC_SEED=209 of test/gateway/retry-after-remaining.property.test.ts: "Retry-After 164 at 200 on
 * g0 (k1, cost 2): the true wait is 0"). Now retryAt says it cannot know (Infinity) whenever an
 * untold store admit could free the slot before that instant: Retry-After is its next sync.
 *
 * One gateway, L per W = 200 ms sliding, syncing every Δ = 81 ms from 40 (as the property's fleet).
 */
const syncMs = 81;

function gateway(design: DesignId, limit: number) {
  const gw = new Gateway(
    { id: 'g0', design, limit, windowMs: 200, windowKind: 'sliding', gateways: 1, syncMs },
    new MemoryStore(),
  );
  let next = 40;
  return (t: number, cost: number): Decision => {
    for (; next <= t; next += syncMs) gw.sync(next);
    return gw.admit('k', t, cost);
  };
}

describe('a lease gateway does not wait for its own admit while untold store admits may free the slot', () => {
  it('leases-ask: two admits at 0 leave at 200 (the store said only "oldest 200"); a cost-2 retry is not a window late', () => {
    const at = gateway('leases-ask', 3);
    at(0, 1);
    at(0, 1);
    expect(at(124, 1).allowed).toBe(true);
    // the store has no slot left: refused, and no more asks until the next sync (202)
    expect(at(124, 1).allowed).toBe(false);
    const d = at(200, 2);
    expect(d.allowed).toBe(false);
    // the central log admits at 200 (one admit, at 124, counts): the true wait is 0; at most Δ late
    expect(d.retryAfterMs).toBeLessThanOrEqual(syncMs + 1);
    expect(at(200 + (d.retryAfterMs ?? 0), 2).allowed).toBe(true);
  });

  it('leases: admits at 41, 41 leave at 241 (the store said only "oldest 241"); a cost-2 retry is not a window late', () => {
    const at = gateway('leases', 4);
    at(0, 1);
    at(0, 1);
    expect(at(41, 1).allowed).toBe(true);
    expect(at(41, 1).allowed).toBe(true);
    expect(at(130, 1).allowed).toBe(true);
    expect(at(210, 1).allowed).toBe(true);
    const d = at(250, 2);
    expect(d.allowed).toBe(false);
    // live at 250: the admits of 130 and 210; 2 + 2 <= 4, the true wait is 0
    expect(d.retryAfterMs).toBeLessThanOrEqual(syncMs + 1);
    expect(at(250 + (d.retryAfterMs ?? 0), 2).allowed).toBe(true);
  });
});
