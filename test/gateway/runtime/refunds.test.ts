// The runtime's refunds (issue 36) where timing matters: an admit a sync in flight carries waits for
// that sync's answer, then goes to the store; a refund call that fails is resent and counted once; a
// lease design's slot returns to its grant at once; a decision is taken back once, and never one that
// admitted nothing.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createAsyncGateway } from '../../../src/gateway/runtime/index.js';
import type { AsyncStore } from '../../../src/store/contract.js';
import { MemoryStore } from '../../../src/store/memory-store.js';
import { HeldStore } from '../../support/held-store.js';

/** HeldStore with refunds, which fail while `failRefunds` (after they land: a reply lost). */
class RefundingStore extends HeldStore {
  failRefunds = 0;
  refundCalls = 0;
  refundAdmits: NonNullable<AsyncStore['refundAdmits']> = async (...a) => {
    this.refundCalls++;
    const n = this.memory.refundAdmits(...a);
    if (this.failRefunds > 0) {
      this.failRefunds--;
      throw new Error('reply lost');
    }
    return n;
  };
}

function setup(design: 'shared-counter' | 'leases-ask', limit = 3, storeTimeoutMs = 1_000) {
  const memory = new MemoryStore();
  const store = new RefundingStore(memory);
  let now = 1_000;
  const gw = createAsyncGateway({
    id: 'g',
    design,
    limit,
    windowMs: 60_000,
    gateways: 1,
    syncMs: 1_000,
    store,
    storeTimeoutMs,
    clock: () => now,
  });
  gw.on('storeCallError', () => {});
  const policy = gw.options.policy;
  return { memory, store, gw, policy, at: (t: number) => (now = t) };
}

describe('refunds in the async runtime', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('an admit a sync in flight carries: the refund waits for the answer, then the store takes it', async () => {
    const { memory, store, gw, policy, at } = setup('shared-counter');
    const d = await gw.admit('k');
    store.holding = true;
    const syncing = gw.syncNow();
    // the sync is built (the admit taken into it) and sent: it waits in the store
    while (store.held.length === 0) await new Promise((r) => setImmediate(r));
    at(1_010);
    expect(gw.refund('k', d)).toBe(true);
    expect(gw.refundStats.pending).toBe(1);
    store.land('sync 1');
    store.holding = false;
    await syncing;
    expect(memory.countOf('k', policy, 1_020)).toBe(1);
    at(1_020);
    await gw.syncNow();
    expect(memory.countOf('k', policy, 1_030)).toBe(0);
    expect(gw.refundStats).toEqual({ sent: 1, pending: 0 });
  });

  it('a sync that timed out: the refund waits for its resend to be answered, never goes before it', async () => {
    // the store timeout on fake time (setImmediate stays real: the held store answers on it)
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const { memory, store, gw, policy, at } = setup('shared-counter', 3, 50);
    const d = await gw.admit('k');
    store.holding = true;
    const syncing = gw.syncNow();
    while (store.held.length === 0) await new Promise((r) => setImmediate(r));
    at(1_010);
    expect(gw.refund('k', d)).toBe(true);
    await vi.advanceTimersByTimeAsync(50);
    expect(await syncing).toBe(false); // timed out: the sync (and the admit it pushes) is lost
    store.held.length = 0;
    store.holding = false;
    // the next round resends the sync; a refund sent ahead of it would find nothing to take
    at(1_020);
    await gw.syncNow();
    at(1_030);
    await gw.syncNow();
    expect(memory.countOf('k', policy, 1_030)).toBe(0);
  });

  it('a refund whose reply was lost is resent next round and taken once', async () => {
    const { memory, store, gw, policy, at } = setup('shared-counter');
    const d1 = await gw.admit('k');
    const d2 = await gw.admit('k');
    await gw.syncNow();
    expect(memory.countOf('k', policy, 1_000)).toBe(2);
    at(1_100);
    expect(gw.refund('k', d1)).toBe(true);
    store.failRefunds = 1;
    await gw.syncNow();
    expect(gw.refundStats.pending).toBe(1);
    at(1_200);
    await gw.syncNow();
    expect(store.refundCalls).toBe(2);
    // the resend took nothing more: d2 still counts
    expect(memory.countOf('k', policy, 1_200)).toBe(1);
    expect(gw.refund('k', d1)).toBe(false);
    expect(gw.refund('k', d2)).toBe(true);
    await gw.syncNow();
    expect(memory.countOf('k', policy, 1_300)).toBe(0);
  });

  it('leases-ask: an admit not pushed yet gives its slot back to the grant, no ask needed', async () => {
    const { store, gw } = setup('leases-ask', 1);
    await gw.syncNow();
    const asks = () => store.landed.filter((n) => n.startsWith('ask')).length;
    const d = await gw.admit('k');
    expect(d.allowed).toBe(true);
    // no slot left: it asks once, is refused, and rejects until its next sync
    expect((await gw.admit('k')).allowed).toBe(false);
    const before = asks();
    expect(gw.refund('k', d)).toBe(true);
    expect((await gw.admit('k')).allowed).toBe(true);
    expect(asks()).toBe(before);
  });

  it('takes back only an admit: a rejection, or a decision out of the window, takes nothing', async () => {
    const { gw, at } = setup('shared-counter', 1);
    const d = await gw.admit('k');
    const no = await gw.admit('k');
    expect(no.allowed).toBe(false);
    expect(gw.refund('k', no)).toBe(false);
    at(61_000);
    expect(gw.refund('k', d)).toBe(false);
  });
});
