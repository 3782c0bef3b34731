import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAsyncGateway } from '../../../src/gateway/runtime/index.js';
import type { SyncEntry } from '../../../src/store/contract.js';
import { SLICE_MS, setSliceBudgetMs } from '../../../src/util/slicer.js';
import { type SingleFixture, singleServer } from '../../support/redis-fixtures.js';

/**
 * A sync of many keys is prepared, written and applied in slices with turns of the event loop in
 * between (issue 6, item 10: no event-loop stall). With a slice budget of 0 every loop pauses at
 * each check, so requests land in the middle of every phase; these tests check that nothing is
 * counted twice or lost that way, and that calls made meanwhile still land at Redis in call order.
 */

let fx: SingleFixture;
beforeAll(async () => {
  fx = await singleServer();
  setSliceBudgetMs(0);
});
afterAll(async () => {
  setSliceBudgetMs(SLICE_MS);
  await fx?.close();
});

const policy = { limit: 1000, windowMs: 60_000, windowKind: 'sliding' as const };
const turn = () => new Promise<void>((r) => setImmediate(r));

describe('a sync of many keys, in slices (real redis-server)', () => {
  it('requests decided between the slices are pushed once: the store holds exactly what was admitted, key by key', async () => {
    const store = fx.store();
    const gw = createAsyncGateway({
      id: 'sliced',
      design: 'shared-counter',
      limit: policy.limit,
      windowMs: policy.windowMs,
      gateways: 2,
      syncMs: 1000,
      storeTimeoutMs: 30_000,
      store,
    });
    // the first sync brings Redis's clock: decisions before it would wait for it
    expect(await gw.syncNow()).toBe(true);
    const N = 3000;
    const admitted = new Map<string, number>();
    const admit = (key: string) => {
      const d = gw.admitNow(key);
      if (d instanceof Promise) throw new Error('shared-counter never waits');
      if (d.allowed) admitted.set(key, (admitted.get(key) ?? 0) + 1);
    };
    for (let i = 0; i < N; i++) admit(`k${i}`);
    let settled = false;
    const first = gw.syncNow().finally(() => {
      settled = true;
    });
    // while the sync is built, written and applied: old keys (walked or not yet) and new ones
    let turns = 0;
    for (let j = 0; !settled && j < 100_000; j++) {
      admit(`k${(j * 7919) % N}`);
      if (j % 5 === 0) admit(`new${j}`);
      if (j % 20 === 0) {
        turns++;
        await turn();
      }
    }
    expect(await first).toBe(true);
    expect(await gw.syncNow()).toBe(true);
    expect(gw.stats().unsyncedAdmits).toBe(0);
    const keys = [...admitted.keys()];
    const read = await store.sync(
      {
        gatewayId: 'reader',
        seq: 1,
        policy,
        leaseTtlMs: 1000,
        horizonMs: 1,
        entries: keys.map((key): SyncEntry => ({ key, admits: [], read: true, release: false, ask: 0 })),
      },
      Date.now(),
    );
    const wrong = keys.filter((k, i) => read.replies[i].count !== admitted.get(k));
    const total = [...admitted.values()].reduce((a, b) => a + b, 0);
    console.log(
      `sliced sync: ${N} keys, ${turns} turns of the loop while the first sync ran, ${keys.length} keys and ${total} admits in all; ${wrong.length} keys whose store count differs`,
    );
    expect(turns).toBeGreaterThan(1);
    expect(wrong).toEqual([]);
  }, 60_000);

  it('an ask made while a sync is being prepared lands after it: the sync’s release cannot hand back the ask’s grant', async () => {
    const store = fx.store();
    const gwId = 'asker';
    // the gateway holds 5 slots of key X
    expect(
      (await store.ask({ gatewayId: gwId, key: 'X', policy, leaseTtlMs: 60_000, ask: 5 }, Date.now()))
        .granted,
    ).toBe(5);
    // a big sync whose last entry hands X's grant back, then at once an ask for 3 more
    const entries: SyncEntry[] = Array.from({ length: 3000 }, (_, i) => ({
      key: `filler${i}`,
      admits: [Date.now()],
      read: false,
      release: false,
      ask: 0,
    }));
    entries.push({ key: 'X', admits: [], read: false, release: true, ask: 0 });
    const sync = store.sync(
      { gatewayId: gwId, seq: 7, policy, leaseTtlMs: 60_000, horizonMs: 1, entries },
      Date.now(),
    );
    const ask = store.ask({ gatewayId: gwId, key: 'X', policy, leaseTtlMs: 60_000, ask: 3 }, Date.now());
    await sync;
    expect((await ask).granted).toBe(3);
    // made after the sync, the ask's 3 slots are what the gateway holds: had it landed first, the
    // release would have dropped them with the 5
    const grant = await fx.client().hget(store.keyNames('X', policy).meta, `g:${gwId}`);
    // '<lapse>:<tag>:<slots>' (common.lua): one part, the ask's
    expect(grant?.split(':').slice(1)).toEqual(['1', '3']);
  });
});
