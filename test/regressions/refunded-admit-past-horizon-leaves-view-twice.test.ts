/**
 * Reads follow requests (issue 35): an own admit the store counts past the reply's horizon leaves the
 * view at its own expiry. A refunded one left it twice: the next reply's count no longer held it and
 * the view still walked past its expiry, so a key far from L (no read due) undercounted by one, and
 * one gateway admitted L + 1 in a window. A refund that goes to the store takes it out of the
 * gateway's own late admits too, and asks a read.
 */
import { describe, expect, it } from 'vitest';
import type { DesignId } from '../../src/config.js';
import { type AsyncGateway, createAsyncGateway } from '../../src/gateway/runtime/index.js';
import { MemoryStore } from '../../src/store/memory-store.js';

const SYNCED: DesignId[] = ['shared-counter', 'assume-others', 'track-share', 'adaptive', 'adaptive-early'];
const W = 10_000;
const D = 1_000;
const L = 6;

async function worstWindow(design: DesignId): Promise<number> {
  let now = 0;
  const store = new MemoryStore();
  const gw: AsyncGateway = createAsyncGateway({
    id: 'g0',
    design,
    limit: L,
    windowMs: W,
    gateways: 1,
    syncMs: D,
    // the rule is opt-in (GatewayOptions.reads); these regressions are of its 'on-request' mode
    reads: 'on-request',
    store,
    clock: () => now,
    random: () => 0.5,
  });
  const kept: number[] = [];
  now = 100;
  const first = await gw.admit('k');
  expect(first.allowed).toBe(true);
  now = 200;
  expect((await gw.admit('k')).allowed).toBe(true);
  kept.push(200);
  now = D;
  await gw.syncNow(); // pushes both, past the reply's horizon
  now = 1_500;
  expect(gw.refund('k', first, 1)).toBe(true);
  for (let s = 2 * D; s <= 10 * D; s += D) {
    now = s;
    await gw.syncNow();
  }
  expect(store.countOf('k', gw.options.policy, now)).toBe(1);
  // the admit at 200 counts until 10,200: L − 1 more fit before then
  now = 10_150;
  for (let i = 0; i < 2 * L; i++) if ((await gw.admit('k')).allowed) kept.push(now);
  await gw.stop();
  return kept.filter((t) => t > now - W).length;
}

describe('a refunded admit past the horizon leaves the view once', () => {
  for (const design of SYNCED) {
    it(`${design}: one gateway never admits more than L in a window`, async () => {
      expect(await worstWindow(design)).toBe(L);
    });
  }
});
