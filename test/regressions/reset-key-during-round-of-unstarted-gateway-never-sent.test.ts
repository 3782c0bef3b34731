/**
 * Bug (found with resetAll, issue 36): on a gateway whose sync timer does not run (not started, or
 * stopped), resetKey runs a round for the reset. A second resetKey while that round was still in
 * flight (its reset answered, its sync not) found the round running, so its tick was skipped, and
 * the key waited for a round that never came: the promise never settled (FleetlimitStore.resetKey
 * under express-rate-limit hung). Now a reset queued during a round runs one more round after it.
 */
import { expect, it } from 'vitest';
import { createAsyncGateway } from '../../src/gateway/runtime/index.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import { HeldStore } from '../support/held-store.js';

const flush = async () => {
  for (let i = 0; i < 20; i++) await Promise.resolve();
};

it('a reset queued while a round of a gateway without a timer is in flight goes in a round after it', async () => {
  const mem = new MemoryStore();
  const store = new HeldStore(mem);
  const now = 1_000;
  const gw = createAsyncGateway({
    id: 'g',
    design: 'shared-counter',
    limit: 5,
    windowMs: 10_000,
    gateways: 1,
    syncMs: 100,
    store,
    clock: () => now,
    random: () => 0.5,
  });
  await gw.admit('k');
  await gw.admit('j');
  store.holding = true;
  const first = gw.resetKey('k');
  await flush();
  store.land('reset k');
  expect(await first).toBe(true);
  await flush();
  // the round goes on with its sync; a reset of another key meanwhile
  expect(store.held.map((h) => h.name)).toEqual(['sync 1']);
  const second = gw.resetKey('j');
  await flush();
  store.land('sync 1');
  await flush();
  expect(store.held.map((h) => h.name)).toContain('reset j');
  store.holding = false;
  store.land('reset j');
  expect(await second).toBe(true);
  expect(mem.countOf('j', gw.options.policy, now)).toBe(0);
  await gw.stop();
});
