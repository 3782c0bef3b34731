import { describe, expect, it } from 'vitest';
import type { Decision } from '../../../src/gateway/decision.js';
import { createAsyncGateway } from '../../../src/gateway/runtime/index.js';
import { TestAsyncStore } from '../../support/async-memory-store.js';

/**
 * maxKeys on the request path: room for a new key is made from the least recently used eighth of
 * the cap only (bounded work per request), idle state first, then keys the store has every admit of;
 * keys holding unconfirmed admits are never dropped.
 */
function gateway(maxKeys: number, extra: { horizonMs?: number; staleAfterMs?: number } = {}) {
  let t = 1_000_000;
  // the gateway reads the store's own clock: nothing to learn before deciding
  const store = new TestAsyncStore(undefined, () => t, 'caller');
  const gw = createAsyncGateway({
    id: 'cap',
    design: 'shared-counter',
    limit: 10,
    windowMs: 10_000,
    gateways: 2,
    syncMs: 100,
    storeTimeoutMs: 1000,
    store,
    clock: () => t,
    maxKeys,
    ...extra,
  });
  const admit = (key: string): Decision => {
    const d = gw.admitNow(key);
    if (d instanceof Promise) throw new Error('shared-counter never waits');
    return d;
  };
  return { gw, admit, later: (ms: number) => (t += ms) };
}

describe('AsyncGateway: the key cap', () => {
  it('drops the least recently used keys the store has, an eighth of the cap at a time; a key in use keeps its state', async () => {
    const { gw, admit } = gateway(800);
    for (let i = 0; i < 800; i++) admit(`a${i}`);
    for (let i = 0; i < 5; i++) admit('a0'); // a0 is in use: the most recently used key
    expect(await gw.syncNow()).toBe(true);
    expect(admit('new').allowed).toBe(true);
    const s = gw.stats();
    expect(s.evictions).toBe(100);
    expect(gw.keyCount).toBe(701);
    expect(gw.limiterFor('a0')?.remaining(Number.NaN)).not.toBeUndefined();
    expect(gw.limiterFor('a1')).toBeUndefined();
    expect(gw.limiterFor('a101')).toBeDefined();
  });

  it('idle state goes first, before any key the store still counts', async () => {
    // a horizon past the window: the gateway knows when every counted admit expires; and the store
    // still counts as up a whole window after the last sync
    const { gw, admit, later } = gateway(80, { horizonMs: 20_000, staleAfterMs: 10_000 });
    for (let i = 0; i < 40; i++) admit(`old${i}`);
    expect(await gw.syncNow()).toBe(true);
    later(10_000); // the old keys' admits have aged out: their state is idle
    for (let i = 0; i < 40; i++) admit(`fresh${i}`);
    expect(admit('one-more')).toMatchObject({ allowed: true });
    expect(gw.stats().storeDown).toBe(false);
    // the old keys were idle: dropped without evicting a key the store still counts
    expect(gw.stats().evictions).toBe(0);
    expect(gw.keyCount).toBe(41);
  });

  it('never drops unconfirmed admits: a new key is refused until a sync confirms them', async () => {
    const { gw, admit } = gateway(80);
    for (let i = 0; i < 80; i++) admit(`k${i}`);
    const refused = admit('k80');
    expect(refused).toMatchObject({ allowed: false, retryAfterMs: 100 });
    expect(gw.stats().keyCapRejections).toBe(1);
    expect(gw.keyCount).toBe(80);
    expect(await gw.syncNow()).toBe(true);
    expect(admit('k80').allowed).toBe(true);
    expect(gw.stats().unsyncedAdmits).toBe(1);
  });
});
