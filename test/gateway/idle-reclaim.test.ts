import { describe, expect, it } from 'vitest';
import { DESIGN_IDS } from '../../src/config.js';
import { createGateway } from '../../src/gateway/gateway.js';
import { MemoryStore } from '../../src/store/memory-store.js';

// The heap with a million idle keys: idle-reclaim-million-keys.live.test.ts
describe('idle state is reclaimed on the gateway and in the store', () => {
  it('every design but leases drops an idle key', () => {
    for (const design of DESIGN_IDS.filter((d) => d !== 'leases')) {
      const store = new MemoryStore();
      const gw = createGateway({
        id: 'g',
        design,
        limit: 10,
        windowMs: 1000,
        gateways: 2,
        syncMs: 100,
        store,
      });
      gw.admit('k', 0);
      gw.sync(50);
      gw.sync(5000);
      gw.sync(5100);
      expect([design, gw.keyCount]).toEqual([design, 0]);
    }
  });

  it('leases keeps a quiet key while the store has a slot for it, and lets it go once it has none', () => {
    const store = new MemoryStore();
    const opts = { design: 'leases', limit: 2, windowMs: 1000, gateways: 2, syncMs: 100, store } as const;
    const gw = createGateway({ id: 'g', ...opts });
    gw.admit('k', 0);
    gw.sync(50);
    gw.sync(5000);
    gw.sync(5100);
    // the studied rule asks ceil(1.5·m) + 1 ≥ 1 at every sync: the key holds a slot, so it is kept
    expect(gw.keyCount).toBe(1);
    expect(gw.limiterFor('k')?.remaining(5100)).toBeGreaterThan(0);
    expect(store.keyCount).toBe(1);
    // g stops syncing and its lease lapses (at 5100 + TTL 1000; counted until 6100 + W); another
    // gateway takes the limit
    const other = createGateway({ id: 'h', ...opts });
    other.admit('k', 7200);
    other.sync(7250);
    expect(other.admit('k', 7260).allowed && other.admit('k', 7270).allowed).toBe(true);
    other.sync(7300);
    gw.sync(7400); // asks 2 of a full store: granted none, so nothing of the key is left on g
    expect(gw.keyCount).toBe(0);
  });
});
