import { describe, expect, it } from 'vitest';
import { makePolicy } from '../../../src/config.js';
import type { LeaseKey } from '../../../src/designs/leases.js';
import type { Decision } from '../../../src/gateway/decision.js';
import { createAsyncGateway } from '../../../src/gateway/runtime/index.js';
import { TestAsyncStore } from '../../support/async-memory-store.js';

/**
 * Plain leases asks ceil(1.5·m) + 1 ≥ 1 at every sync (the studied rule), so a key it has seen keeps
 * a slot and never goes idle while the store has one to grant. Its state is then let go only by the
 * key cap: a key with no unconfirmed admit and no ask in flight is evicted, and its grant stays
 * outstanding at the store until the lease TTL lapses it and a window more (a lapsed grant stays
 * counted while what was spent from it could count): stranded, never spent twice.
 */
describe('AsyncGateway: the key cap with leases (keys that never go idle)', () => {
  it('evicts least recently used keys holding slots; their grants are freed at the store a window after the TTL', async () => {
    let t = 1_000_000;
    const store = new TestAsyncStore(undefined, () => t, 'caller');
    const gw = createAsyncGateway({
      id: 'cap',
      design: 'leases',
      limit: 10,
      windowMs: 10_000,
      gateways: 2,
      syncMs: 100,
      leaseTtlMs: 1000,
      storeTimeoutMs: 1000,
      store,
      clock: () => t,
      maxKeys: 80,
    });
    const admit = (key: string): Decision => {
      const d = gw.admitNow(key);
      if (d instanceof Promise) throw new Error('leases never waits');
      return d;
    };
    const policy = makePolicy(10, 10_000, 'sliding');
    for (let i = 0; i < 80; i++) expect(admit(`k${i}`).allowed).toBe(false); // no slot before a sync
    expect(await gw.syncNow()).toBe(true);
    for (let i = 0; i < 80; i++) expect(admit(`k${i}`).allowed).toBe(true);
    expect(await gw.syncNow()).toBe(true);
    // three windows without an arrival: every key still holds the rule's slots
    for (let i = 0; i < 300; i++) {
      t += 100;
      expect(await gw.syncNow()).toBe(true);
    }
    expect(gw.keyCount).toBe(80);
    expect((gw.limiterFor('k0') as LeaseKey).slots(t)).toBe(2);
    expect(store.memory.outstandingOf('k0', policy, t)).toBe(2);
    // a new key: no idle key to drop, so the least recently used ones are evicted, down to 7/8
    expect(admit('new').allowed).toBe(false);
    const s = gw.stats();
    expect(s.keyCapRejections).toBe(0);
    expect(s.evictions).toBe(10);
    expect(gw.limiterFor('k0')).toBeUndefined();
    // the evicted key's grant is still counted at the store until its lease lapses and a window
    // after (the store cannot tell that nothing spent from it is still on its way), then freed
    expect(store.memory.outstandingOf('k0', policy, t)).toBe(2);
    expect(store.memory.outstandingOf('k0', policy, t + 1000 + 10_000 - 1)).toBe(2);
    expect(store.memory.outstandingOf('k0', policy, t + 1000 + 10_000)).toBe(0);
    // a key that comes back starts afresh: its first sync hands back what the old state held
    expect(admit('k0').allowed).toBe(false);
    expect(await gw.syncNow()).toBe(true);
    expect(store.memory.outstandingOf('k0', policy, t)).toBe(2);
  });
});
