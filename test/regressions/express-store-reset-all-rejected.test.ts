/**
 * Bug (issue 36): FleetlimitStore.resetAll rejected ("not supported yet"), so express-rate-limit users
 * who call `store.resetAll()` (between tests, from an admin endpoint) could not start every key
 * afresh. It now resets every key of the limiter: the keys the gateway holds and those only the store
 * holds (another instance's), through the instant of the call.
 */
import { expect, it } from 'vitest';
import { createAsyncGateway } from '../../src/gateway/runtime/index.js';
import { FleetlimitStore } from '../../src/http/index.js';
import { MemoryStore } from '../../src/store/memory-store.js';

it('FleetlimitStore.resetAll resets every key across the fleet', async () => {
  const mem = new MemoryStore();
  const make = (id: string) =>
    createAsyncGateway({
      id,
      design: 'leases-ask',
      limit: 2,
      windowMs: 60_000,
      gateways: 2,
      syncMs: 1_000,
      store: mem,
    });
  const [a, b] = [make('a'), make('b')];
  const store = new FleetlimitStore(a);
  store.init({ limit: 2, windowMs: 60_000 });
  const other = new FleetlimitStore(b);
  other.init({ limit: 2, windowMs: 60_000 });
  for (let i = 0; i < 3; i++) await store.increment('k');
  for (let i = 0; i < 3; i++) await other.increment('j');
  expect((await store.increment('k')).totalHits).toBe(3);
  await b.syncNow();
  await store.resetAll();
  expect((await store.increment('k')).totalHits).toBe(1);
  expect(mem.countOf('j', a.options.policy, a.now())).toBe(0);
  await b.syncNow();
  expect((await other.increment('j')).totalHits).toBeLessThanOrEqual(2);
  await Promise.all([a.stop(), b.stop()]);
});
