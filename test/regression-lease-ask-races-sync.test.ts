import { describe, expect, it } from 'vitest';
import { createKeyLimiter, NEED_STORE } from '../src/designs/index.js';
import { resolveGatewayOptions } from '../src/gateway/options.js';
import { MemoryStore } from '../src/store/memory-store.js';

// Found by the real-Redis concurrency test: leases-ask admitted L + 2 in a window when an ask was
// sent just before a sync. The store applied the ask, then the sync's release took every slot of
// the gateway back, the asked ones too; the gateway then spent slots the store counted as free.
describe('leases-ask: an ask that races a sync', () => {
  it('does not spend slots that the sync released', () => {
    const { fleet, policy } = resolveGatewayOptions({
      id: 'a',
      design: 'leases-ask',
      limit: 3,
      windowMs: 1000,
      gateways: 2,
      syncMs: 100,
    });
    const store = new MemoryStore();
    const lim = createKeyLimiter('leases-ask', fleet, 0);
    const req = (seq: number, entries: ReturnType<typeof lim.syncEntry>[]) => ({
      gatewayId: 'a',
      seq,
      policy,
      leaseTtlMs: fleet.leaseTtlMs,
      horizonMs: fleet.horizonMs,
      entries: entries.filter((e) => e !== null),
    });

    expect(lim.decide(1, 1)).toBe(NEED_STORE); // no slots: ask the store (askSize: the ask goes out)...
    const size = lim.askSize(1);
    const sync = lim.syncEntry('k', 2); // ...and the timer starts a sync before the ask is answered
    const askReply = store.ask('a', 'k', policy, fleet.leaseTtlMs, size, 1); // applied first
    const syncReply = store.sync(req(1, [sync]), 2).replies[0]; // releases everything the gateway held
    expect(lim.onAskReply(askReply, 3, 1)).toBe(false);
    lim.applySync(syncReply, 4);
    // whatever the gateway may spend now, the store counts as outstanding
    expect(lim.remaining(5)).toBeLessThanOrEqual(store.outstandingOf('k', policy, 5));
  });
});
