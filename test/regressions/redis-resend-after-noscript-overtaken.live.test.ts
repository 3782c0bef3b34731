import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Policy } from '../../src/config.js';
import type { SyncEntry } from '../../src/store/contract.js';
import type { RedisStore } from '../../src/store/redis/index.js';
import { composeScript } from '../../src/store/redis/script.js';
import { type SingleFixture, singleServer } from '../support/redis-fixtures.js';

// Issue 17, item 1 (Redis half): a call that came back NOSCRIPT was resent on its own after the
// write gate was released, so a call made later (already sent, or sent meanwhile) could land before
// the resend. A sync's release then handed back the grant of an ask made after the sync. Here
// another client reloads one script between the flush and the calls (as another gateway's resend
// does), so the later call succeeds at once while the earlier one must be resent.

let fx: SingleFixture;
beforeAll(async () => {
  fx = await singleServer();
});
afterAll(async () => {
  await fx?.close();
});

const policy: Policy = { limit: 100, windowMs: 60_000, windowKind: 'sliding' };
const release = (key: string): SyncEntry => ({ key, admits: [], read: false, release: true, ask: 0 });

async function grantOf(store: RedisStore, gw: string, key: string): Promise<number> {
  const g = await fx.client().hget(store.keyNames(key, policy).meta, `g:${gw}`);
  if (g === null) return 0;
  // '<lapse>:<tag>:<slots>[:<tag>:<slots>...]' (common.lua): the slots of every part
  const f = g.split(':').map(Number);
  let slots = 0;
  for (let i = 2; i < f.length; i += 2) slots += f[i];
  return slots;
}

describe('calls land in the order they were made, through NOSCRIPT resends', () => {
  it('an ask made after a sync that hit NOSCRIPT lands after the sync’s resend', async () => {
    const store = fx.store();
    const admin = fx.client();
    expect(
      (await store.ask({ gatewayId: 'gw', key: 'X', policy, leaseTtlMs: 60_000, ask: 5 }, 0)).granted,
    ).toBe(5);
    await admin.script('FLUSH');
    await admin.script('LOAD', composeScript('ask.lua', 'window-exact.lua').source);
    const sync = store.sync(
      { gatewayId: 'gw', seq: 1, policy, leaseTtlMs: 60_000, horizonMs: 1, entries: [release('X')] },
      0,
    );
    const ask = store.ask({ gatewayId: 'gw', key: 'X', policy, leaseTtlMs: 60_000, ask: 3 }, 0);
    await sync;
    expect((await ask).granted).toBe(3);
    // in order: the release drops the 5, then the ask's 3 are held
    expect(await grantOf(store, 'gw', 'X')).toBe(3);
  });

  it('a sync made after an ask that hit NOSCRIPT lands after the ask’s resend', async () => {
    const store = fx.store();
    const admin = fx.client();
    expect(
      (await store.ask({ gatewayId: 'gw', key: 'X', policy, leaseTtlMs: 60_000, ask: 5 }, 0)).granted,
    ).toBe(5);
    await admin.script('FLUSH');
    await admin.script('LOAD', composeScript('sync.lua', 'window-exact.lua', false, true, true).source);
    const ask = store.ask({ gatewayId: 'gw', key: 'X', policy, leaseTtlMs: 60_000, ask: 3 }, 0);
    const sync = store.sync(
      { gatewayId: 'gw', seq: 1, policy, leaseTtlMs: 60_000, horizonMs: 1, entries: [release('X')] },
      0,
    );
    expect((await ask).granted).toBe(3);
    await sync;
    // in order: the ask takes 8 in all, then the release hands all 8 back
    expect(await grantOf(store, 'gw', 'X')).toBe(0);
  });

  it('SCRIPT FLUSH every few ms during 150 rounds of sync-then-ask: every ask’s grant survives', async () => {
    const store = fx.store();
    const flusher = fx.client();
    const loader = fx.client();
    const askSource = composeScript('ask.lua', 'window-exact.lua').source;
    let stop = false;
    let flushes = 0;
    const flushing = (async () => {
      while (!stop) {
        await flusher.script('FLUSH');
        // another gateway reloading ask.lua right away
        await loader.script('LOAD', askSource);
        flushes++;
        await new Promise((r) => setTimeout(r, 2));
      }
    })();
    const lost: number[] = [];
    try {
      for (let round = 0; round < 150; round++) {
        const key = `X${round}`;
        await store.ask({ gatewayId: 'gw', key, policy, leaseTtlMs: 60_000, ask: 5 }, 0);
        const sync = store.sync(
          {
            gatewayId: 'gw',
            seq: round + 1,
            policy,
            leaseTtlMs: 60_000,
            horizonMs: 1,
            entries: [release(key)],
          },
          0,
        );
        const ask = store.ask({ gatewayId: 'gw', key, policy, leaseTtlMs: 60_000, ask: 3 }, 0);
        await sync;
        await ask;
        if ((await grantOf(store, 'gw', key)) !== 3) lost.push(round);
      }
    } finally {
      stop = true;
      await flushing;
    }
    console.log(`resend order: ${flushes} flushes, ${lost.length} of 150 asks overtaken`);
    expect(flushes).toBeGreaterThan(10);
    expect(lost).toEqual([]);
  }, 60_000);
});
