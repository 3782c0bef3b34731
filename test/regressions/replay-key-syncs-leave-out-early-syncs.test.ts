import { afterEach, describe, expect, it, vi } from 'vitest';
import { ReplayFleet } from '../../src/replay/run/fleet.js';
import { ReadSteps } from '../../src/replay/run/read-steps.js';
import { MemoryStore } from '../../src/store/memory-store.js';

/**
 * A replay's key-syncs (DesignResult.keySyncs: the keys carried by the syncs, the store's work) left
 * out adaptive-early's early syncs: the walk summed only the regular syncs' keys (Gateway.sync's
 * SyncStats), while the early ones went to Gateway.earlySyncKeys and were never added, though their
 * store calls were counted and the many-keys simulator counts their keys. Here every key a sync
 * carries is one syncNext at the memory store: the figure must equal them, walk and per key (where
 * an idle read applied at once, src/replay/run/read-steps.ts, stands for the syncNext it leaves out).
 */
afterEach(() => {
  vi.restoreAllMocks();
});

function flood(walk: boolean): { keySyncs: number; carried: number; early: number } {
  const carried = vi.spyOn(MemoryStore.prototype, 'syncNext');
  const idle = vi.spyOn(ReadSteps.prototype, 'idle');
  const fleet = new ReplayFleet({
    design: 'adaptive-early',
    gateways: 2,
    limit: 20,
    windowMs: 10_000,
    syncMs: 1000,
    seed: 1,
    origin: 0,
    walk,
  });
  // a flood on one key over both gateways beside a quiet key: parts spent within Δ, early syncs sent
  for (let t = 0; t < 20_000; t += 25) {
    fleet.arrive('hot', (t / 25) % 2, t);
    if (t % 1000 === 0) fleet.arrive('quiet', 0, t);
  }
  const keySyncs = fleet.keySyncs();
  const applied = idle.mock.results.filter((r) => r.value === true).length;
  const out = { keySyncs, carried: carried.mock.calls.length + applied, early: fleet.earlySyncs() };
  carried.mockRestore();
  idle.mockRestore();
  return out;
}

describe("regression: a replay's key-syncs left out the early syncs' keys", () => {
  it('the walk counts every key its syncs carry, early ones too', () => {
    const r = flood(true);
    expect(r.early).toBeGreaterThan(10);
    expect(r.keySyncs).toBe(r.carried);
  });

  it('the per-key syncs count the same', () => {
    const walk = flood(true);
    const perKey = flood(false);
    expect(perKey.carried).toBe(walk.carried);
    expect(perKey.keySyncs).toBe(walk.keySyncs);
  });
});
