import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Policy } from '../../src/config.js';
import { createKeyLimiter, NEED_STORE } from '../../src/designs/index.js';
import type { LeaseKey } from '../../src/designs/leases.js';
import { resolveGatewayOptions } from '../../src/gateway/options.js';
import type { AsyncStore, Store, SyncEntry } from '../../src/store/contract.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import { type SingleFixture, singleServer } from '../support/redis-fixtures.js';

// Issue 17, item 1: on Redis, a call resent after NOSCRIPT (or MOVED / ASK / TRYAGAIN) could land
// after a call made later. An ask sent after a sync was built then landed before that sync, whose
// release handed the asked slots back while the gateway spent them: 21–23 admitted in a window of
// L = 20 (8 gateways, SCRIPT FLUSH every 100 ms). Grants are now tagged with the last sync the
// gateway built when it asked; a sync hands back only grants tagged below its own seq, so the order
// the two land in no longer matters.

let fx: SingleFixture;
beforeAll(async () => {
  fx = await singleServer();
});
afterAll(async () => {
  await fx?.close();
});

const stores: [string, () => AsyncStore | Store][] = [
  ['MemoryStore', () => new MemoryStore()],
  ['RedisStore', () => fx.store({ clock: 'caller' })],
];

describe.each(stores)('leases-ask: an ask that lands before the sync built ahead of it (%s)', (_n, make) => {
  it('keeps the asked slots outstanding while the gateway spends them', async () => {
    const { fleet, policy } = resolveGatewayOptions({
      id: 'a',
      design: 'leases-ask',
      limit: 4,
      windowMs: 1000,
      gateways: 2,
      syncMs: 100,
    });
    const p: Policy = policy;
    const s = make();
    const lim = createKeyLimiter('leases-ask', fleet, 0) as LeaseKey;
    const sync = (seq: number, e: SyncEntry, now: number) =>
      Promise.resolve(
        s.sync(
          { gatewayId: 'a', seq, policy: p, leaseTtlMs: fleet.leaseTtlMs, horizonMs: 0, entries: [e] },
          now,
        ),
      );
    // the gateway builds sync 1 (nothing to push, nothing held)
    const built = lim.syncEntry('k', 0)!;
    // a request finds no slot and asks, tagged "after sync 1"; the ask lands first
    expect(lim.decide(1, 1)).toBe(NEED_STORE);
    const asked = await s.ask(
      { gatewayId: 'a', key: 'k', policy: p, leaseTtlMs: fleet.leaseTtlMs, ask: lim.askSize(1), seq: 1 },
      1,
    );
    expect(asked.granted).toBeGreaterThan(0);
    expect(lim.onAskReply(asked, 2, 1)).toBe(true);
    // then sync 1 lands: its release must not take the ask's grant back
    lim.applySync((await sync(1, built, 3)).replies[0], 4);
    // the other gateway takes whatever is free
    const other = await s.ask(
      { gatewayId: 'b', key: 'k', policy: p, leaseTtlMs: fleet.leaseTtlMs, ask: 100 },
      5,
    );
    // what a spent and may still spend, plus what b got, stays within L
    const aSpent = 1;
    expect(aSpent + lim.slots(5) + other.granted).toBeLessThanOrEqual(p.limit);
  });
});
