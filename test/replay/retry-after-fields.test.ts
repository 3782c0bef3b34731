/**
 * The replay's syncs leave a read's Retry-After fields out of the store's reply (MemoryStore.syncNext
 * with `retryAfter` false) where its keys read none of them (readsRetryAfter): the keys decide, sync
 * and answer Retry-After as with the whole reply, and the store makes none of those fields for them.
 */
import { describe, expect, it } from 'vitest';
import type { DesignId } from '../../src/config.js';
import { DESIGNS } from '../../src/designs/index.js';
import type { FleetParams } from '../../src/designs/key-limiter.js';
import { DROP, syncEntryOf } from '../../src/designs/key-steps.js';
import type { SyncedKey } from '../../src/designs/synced.js';
import { readsRetryAfter, replayLimiter } from '../../src/replay/run/replay-limiter.js';
import type { SyncReply } from '../../src/store/contract.js';
import { newReply } from '../../src/store/memory/sync-entry.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import { DELTA, draws, params, SYNCED, W } from '../support/replay-limiter-fixture.js';

/**
 * Three gateways' replay limiters of one key against one store, synced one entry at a time as the
 * replay syncs (syncNext, the reply's Retry-After fields asked for as `told`): the verdicts, entries
 * and (keys made with it) Retry-After answers, in order; the replies apart.
 */
function drive(design: DesignId, p: FleetParams, told: boolean): { seen: string[]; replies: SyncReply[] } {
  const lims = [0, 1, 2].map(() => replayLimiter(DESIGNS[design], p, 0) as SyncedKey);
  const store = new MemoryStore();
  const seen: string[] = [];
  const replies: SyncReply[] = [];
  const next = draws(5);
  const seq = [0, 0, 0];
  for (let t = 0; t < 6 * W; t += 7) {
    const g = Math.floor(next() * 3);
    // bursts then quiet: the store's count goes to L and over, and back to 0
    if (next() < (Math.floor(t / 3000) % 2 === 0 ? 0.4 : 0.02)) {
      seen.push(`${t} ${g} ${lims[g].decide(t, 1)}`);
      if (lims[g].readsRetryAfter) seen.push(`${lims[g].retryAt(t, 1, t + DELTA)}`);
    }
    if (t % DELTA !== 0) continue;
    for (let h = 0; h < 3; h++) {
      const e = syncEntryOf(lims[h], 'k', t);
      seen.push(`${t} ${h} ${e === null || e === DROP ? e : JSON.stringify(e)}`);
      if (e === null || e === DROP) continue;
      const req = {
        gatewayId: `g${h}`,
        seq: ++seq[h],
        policy: p.policy,
        leaseTtlMs: 3 * DELTA,
        horizonMs: 4 * DELTA,
        entries: [e],
      };
      const reply = store.syncNext(req, e, t, newReply(), told);
      replies.push({ ...reply });
      lims[h].applySync(reply, t);
    }
  }
  return { seen, replies };
}

const retryFields = (r: SyncReply) => [r.oldestExpiry, r.belowLimitAt, r.pastHorizonAt];

describe('the replay’s replies without Retry-After fields (readsRetryAfter)', () => {
  for (const design of SYNCED)
    for (const onRequest of [false, true])
      it(`${design}, reads ${onRequest ? 'on request' : 'at every sync'}: as with the whole reply`, () => {
        const p = params(onRequest);
        const told = readsRetryAfter(DESIGNS[design], p);
        // reads on request keep `late` for their view (listLate), not Retry-After: told nowhere
        expect(told).toBe(false);
        const whole = drive(design, p, true);
        const replay = drive(design, p, told);
        expect(replay.seen).toEqual(whole.seen);
        expect(whole.seen.filter((s) => s.endsWith(' 1')).length).toBeGreaterThan(20);
        // the whole replies told them (at L and near it): those without, none
        expect(whole.replies.some((r) => retryFields(r).some((f) => f !== undefined))).toBe(true);
        expect(replay.replies.every((r) => retryFields(r).every((f) => f === undefined))).toBe(true);
      });

  it('the lease designs’ keys read them (the store tells them, as it did)', () => {
    expect(readsRetryAfter(DESIGNS.leases, params(false))).toBe(true);
    expect(readsRetryAfter(DESIGNS['central-log'], params(false))).toBe(true);
  });
});
