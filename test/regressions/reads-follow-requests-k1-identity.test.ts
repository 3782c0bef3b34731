/**
 * Reads follow requests (issue 35): a quiet key far from L is not read again after the read that
 * follows its last request. With one gateway the synced designs must still decide exactly as the
 * central log: its own admits the store counted past the reply's horizon stayed in a view nobody read
 * again, so a key refused requests the central log admits (FC_SEED=133528803 in
 * test/designs/fleet-bounds.property.test.ts). They leave the view at their own expiries now.
 */
import { describe, expect, it } from 'vitest';
import type { DesignId } from '../../src/config.js';
import { type AsyncGateway, createAsyncGateway } from '../../src/gateway/runtime/index.js';
import { MemoryStore } from '../../src/store/memory-store.js';

const SYNCED: DesignId[] = ['shared-counter', 'assume-others', 'track-share', 'adaptive', 'adaptive-early'];
const W = 10_000;
const D = 1_000;
const L = 10;

async function admittedAfterQuiet(design: DesignId): Promise<number> {
  let now = 0;
  const gw: AsyncGateway = createAsyncGateway({
    id: 'g0',
    design,
    limit: L,
    windowMs: W,
    gateways: 1,
    syncMs: D,
    // the rule is opt-in (GatewayOptions.reads); these regressions are of its 'on-request' mode
    reads: 'on-request',
    store: new MemoryStore(),
    clock: () => now,
    random: () => 0.5,
  });
  // four admits, pushed and read at the next sync (expiring past its horizon of 4Δ), then a quiet key
  for (const t of [100, 200, 300, 400]) {
    now = t;
    expect((await gw.admit('k')).allowed).toBe(true);
  }
  for (let s = D; s <= 10 * D; s += D) {
    now = s;
    await gw.syncNow();
  }
  // all four left at 10,100–10,400: the central log admits L now
  now = 10_500;
  let admitted = 0;
  for (let i = 0; i < 2 * L; i++) if ((await gw.admit('k')).allowed) admitted++;
  await gw.stop();
  return admitted;
}

describe('reads follow requests, one gateway: the synced designs decide as the central log', () => {
  for (const design of SYNCED) {
    it(`${design}: own admits past the horizon leave the unread view at their expiries`, async () => {
      expect(await admittedAfterQuiet(design)).toBe(L);
    });
  }
});
