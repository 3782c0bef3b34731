import { describe, expect, it } from 'vitest';
import { createKeyLimiter } from '../../src/designs/index.js';
import { createGateway } from '../../src/gateway/gateway.js';
import { resolveGatewayOptions } from '../../src/gateway/options.js';
import { MemoryStore } from '../../src/store/memory-store.js';

// Issue 17, item 4: plain `leases` asked for nothing at a sync a whole window W after its last
// arrival and so gave up its slot (and, holding none, its key state). The studied rule
// (docs/architecture.md) always asks ceil(1.5·m) + 1, so a gateway keeps at least one slot and an
// honest client that comes back after a quiet spell longer than W is admitted, not rejected until
// the next sync.
describe('leases asks ceil(1.5·m) + 1 at every sync, quiet or not', () => {
  const opts = { id: 'g', design: 'leases', limit: 10, windowMs: 1000, gateways: 2, syncMs: 100 } as const;

  it('a sync a window after the last arrival still asks for the rule, not 0', () => {
    const { fleet } = resolveGatewayOptions(opts);
    const lim = createKeyLimiter('leases', fleet, 0);
    lim.decide(50, 1); // one arrival (denied: no grant yet), so m > 0
    for (let t = 100; t <= 3000; t += 100) {
      const e = lim.syncEntry('k', t);
      // m > 0 decays but never reaches 0 here: ceil(1.5·m) + 1 = 2
      expect([t, e?.ask]).toEqual([t, 2]);
      lim.applySync({ count: 0, expiries: [], horizon: t, granted: 0, grantExpiresAt: t }, t);
    }
  });

  it('an honest client back after 3 W of quiet is admitted at once', () => {
    const store = new MemoryStore();
    const gw = createGateway({ ...opts, store });
    gw.sync(0); // nothing held yet
    expect(gw.admit('k', 10).allowed).toBe(false); // a new key holds no slot before its first sync
    for (let t = 100; t <= 3000; t += 100) gw.sync(t);
    expect(gw.keyCount).toBe(1);
    expect(gw.admit('k', 3050).allowed).toBe(true);
  });
});
