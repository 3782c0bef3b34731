import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Policy } from '../../src/config.js';
import type { SyncEntry, SyncResult } from '../../src/store/contract.js';
import { RedisStore } from '../../src/store/redis/index.js';
import { infoSum } from '../support/cluster-fleet.js';
import { useClusterNodes } from '../support/cluster-nodes.js';
import { type SingleFixture, singleServer } from '../support/redis-fixtures.js';

/**
 * Issue 35: on a cluster, a sync's calls of a few keys each (a key group's keys) are carried several
 * to a script call, and sync.lua runs once for all of them (dispatch.lua's merge), answering each
 * carried call apart. Each reply must be what the call would have got alone: here the same syncs go
 * to one server (one call per 100 keys) and to a 3-master cluster (keys of ~190 groups, a few calls
 * per master), on the caller's clock, and every reply matches field for field: counts, expiries
 * listed, grants and their lapse, the oldest expiry, belowLimitAt and pastHorizonAt, the lease
 * designs' release answers, and a retried sync's replay.
 */

const fx = useClusterNodes({ clientTimeoutMs: 5000 });
let single: SingleFixture;
beforeAll(async () => {
  single = await singleServer();
});
afterAll(async () => {
  await single?.close();
});

/** Entries of every kind sync.lua answers differently (see its Reply), by key index. */
function entries(n: number, now: number, round: number): SyncEntry[] {
  return Array.from({ length: n }, (_, i) => {
    const kind = i % 6;
    // 1 to 9 admits, some at one instant (runs of several)
    const k = 1 + ((i * 7 + round) % 9);
    const admits = Array.from({ length: k }, (_, j) => now - 4000 + j * 300 - (j % 3 === 0 ? 0 : 1));
    admits.sort((a, b) => a - b);
    return {
      key: `user:${i}`,
      admits: kind === 5 ? [] : admits,
      // reads alone (shared-counter family), releases and asks (lease designs), pushes alone
      read: kind <= 2,
      release: kind === 3,
      ask: kind === 3 || kind === 4 ? 1 + (i % 4) : 0,
    };
  });
}

describe('a cluster sync carrying several groups per call (issue 35)', () => {
  it('answers every key as one server does, merged calls included', async () => {
    // limit 12: keys pushed over a few rounds cross it, so belowLimitAt and pastHorizonAt are sent;
    // a window of 20 s inside the horizon of 30 s: reads list expiries
    const policy: Policy = { limit: 12, windowMs: 20_000, windowKind: 'sliding' };
    const opts = { clock: 'caller' as const, expiryMarginMs: 600_000 };
    const one = single.store({ ...opts, prefix: 'merge1:' });
    const many = new RedisStore(fx.client, { ...opts, prefix: 'mergeN:' });
    const N = 300;
    const conns = fx.nodes.map((n) => n.conn);
    const t0 = Date.now();
    const results: [SyncResult, SyncResult][] = [];
    const calls0 = await infoSum(conns, 'cmdstat_evalsha', 'calls');
    for (let round = 0; round < 4; round++) {
      const now = t0 + round * 1000;
      const req = {
        gatewayId: 'gw-1',
        seq: round + 1,
        policy,
        leaseTtlMs: 3000,
        horizonMs: 30_000,
        entries: entries(N, now, round),
      };
      results.push([await one.sync(req, now), await many.sync(req, now)]);
      if (round === 2) {
        // the same sync again (a lost reply's retry): every key answers it as a replay
        results.push([await one.sync(req, now), await many.sync(req, now)]);
      }
    }
    const calls = (await infoSum(conns, 'cmdstat_evalsha', 'calls')) - calls0;
    // not vacuous: 300 keys in ~190 groups took a few calls per master per sync, not one per group
    expect(calls).toBeLessThanOrEqual(5 * 3 * 3);
    for (const [a, b] of results) {
      expect(b.now).toBe(a.now);
      expect(b.replies).toEqual(a.replies);
    }
    // and the replies say something: expiries listed, counts over the limit, grants
    const last = results[results.length - 1][1].replies;
    expect(last.some((r) => r.count >= policy.limit)).toBe(true);
    expect(last.some((r) => r.expiries.length > 0)).toBe(true);
    expect(last.some((r) => r.granted > 0)).toBe(true);
  });
});
