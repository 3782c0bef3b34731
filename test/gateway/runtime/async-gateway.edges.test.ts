import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { DesignId } from '../../../src/config.js';
import type { Decision } from '../../../src/gateway/decision.js';
import {
  type AsyncGatewayOptions,
  createAsyncGateway,
  type FailMode,
} from '../../../src/gateway/runtime/async-gateway.js';
import type { AsyncStore } from '../../../src/store/contract.js';
import { MemoryStore } from '../../../src/store/memory-store.js';

/**
 * AsyncGateway's edges, one at a time on an in-memory store that fails on demand, on a clock the test
 * sets and fake timers (issue 32: the mutants of async-gateway.ts the runtime tests let through): the
 * decision counters, the fail modes' exact decisions, refunds and resets and their guards, the
 * request-path calls' failures.
 */

const T0 = 1_000_000;
beforeEach(() => {
  vi.useFakeTimers({ now: T0 });
});
afterEach(() => {
  vi.useRealTimers();
});

/** A MemoryStore behind promises; every call fails at once while `down`. Calls are counted. */
function flaky(memory = new MemoryStore(), o: { refunds?: boolean; resets?: boolean } = {}) {
  const calls = { sync: 0, logAdmit: 0, ask: 0, voidLogAdmits: 0, refundAdmits: 0, resetKey: 0 };
  const s = {
    down: false,
    askDelayMs: 0,
    calls,
    memory,
    voided: [] as unknown[],
    sync: async (...a: Parameters<MemoryStore['sync']>) => {
      calls.sync++;
      if (s.down) throw new Error('down');
      return memory.sync(...a);
    },
    logAdmit: async (...a: Parameters<MemoryStore['logAdmit']>) => {
      calls.logAdmit++;
      if (s.down) throw new Error('down');
      return memory.logAdmit(...a);
    },
    ask: async (...a: Parameters<MemoryStore['ask']>) => {
      calls.ask++;
      if (s.askDelayMs > 0) await new Promise((r) => setTimeout(r, s.askDelayMs));
      if (s.down) throw new Error('down');
      return memory.ask(...a);
    },
    voidLogAdmits: async (...a: Parameters<MemoryStore['voidLogAdmits']>) => {
      calls.voidLogAdmits++;
      if (s.down) throw new Error('down');
      s.voided.push(a[2]);
      return memory.voidLogAdmits(...a);
    },
  } as {
    down: boolean;
    askDelayMs: number;
    calls: typeof calls;
    memory: MemoryStore;
    voided: unknown[];
  } & AsyncStore;
  if (o.refunds !== false) {
    s.refundAdmits = async (...a) => {
      calls.refundAdmits++;
      if (s.down) throw new Error('down');
      return memory.refundAdmits(...a);
    };
  }
  if (o.resets !== false) {
    s.resetKey = async (...a) => {
      calls.resetKey++;
      if (s.down) throw new Error('down');
      return memory.resetKey(...a);
    };
  }
  return s;
}

function setup(design: DesignId, o: Partial<AsyncGatewayOptions> & { failMode?: FailMode } = {}) {
  const store = (o.store as ReturnType<typeof flaky> | undefined) ?? flaky();
  const gw = createAsyncGateway({
    id: 'g',
    design,
    limit: 10,
    windowMs: 10_000,
    gateways: 2,
    syncMs: 100,
    storeTimeoutMs: 50,
    clock: () => Date.now(),
    random: () => 0.5,
    ...o,
    store,
  });
  gw.on('storeCallError', () => {});
  gw.on('syncError', () => {});
  return { gw, store };
}

function local(d: Decision | Promise<Decision>): Decision {
  if (d instanceof Promise) throw new Error('expected a decision without a store round trip');
  return d;
}

/** The store goes away, a failed sync marks it failing, and the last good reply ages past staleAfterMs. */
async function outage(gw: ReturnType<typeof setup>['gw'], store: ReturnType<typeof flaky>) {
  store.down = true;
  await gw.syncNow();
  vi.advanceTimersByTime(gw.staleAfterMs + 1);
  expect(gw.stats().storeDown).toBe(true);
}

describe('AsyncGateway: decisions counted', () => {
  it('counts each local decision once, under allowed or limited; a request over the limit is limited, not degraded', () => {
    const { gw } = setup('shared-counter');
    // K = 2, L = 10: the local share
    const ds = Array.from({ length: 12 }, () => local(gw.admitNow('a')));
    const allowed = ds.filter((d) => d.allowed).length;
    expect(allowed).toBeGreaterThan(0);
    expect(allowed).toBeLessThan(12);
    const over = local(gw.admitNow('a', 11));
    expect(over).toMatchObject({ allowed: false, exceedsLimit: true });
    expect(over.degraded).toBeUndefined();
    expect(gw.stats().decisions).toEqual({
      allowed,
      limited: 12 - allowed + 1,
      degradedAllowed: 0,
      degradedLimited: 0,
    });
    expect(gw.stats().unsyncedAdmits).toBe(allowed);
  });

  it('a request over the limit on a held key: its reset is the window of the admits it holds', () => {
    const { gw } = setup('shared-counter');
    expect(local(gw.admitNow('a')).allowed).toBe(true);
    vi.advanceTimersByTime(1_000);
    const over = local(gw.admitNow('a', 11));
    expect(over.resetMs).toBe(9_000);
    expect(over.remaining).toBeLessThan(10);
  });

  it('central-log: a request the store decides is counted once, not degraded; a failed call is counted by cause and reported', async () => {
    const { gw, store } = setup('central-log', { limit: 2 });
    const errors: unknown[] = [];
    gw.on('storeCallError', (e) => errors.push(e));
    expect((await gw.admit('a')).allowed).toBe(true);
    expect((await gw.admit('a')).allowed).toBe(true);
    const no = await gw.admit('a');
    expect(no.allowed).toBe(false);
    expect(no.degraded).toBeUndefined();
    expect(gw.stats().decisions).toEqual({ allowed: 2, limited: 1, degradedAllowed: 0, degradedLimited: 0 });
    store.down = true;
    const d = await gw.admit('b');
    expect(d.degraded).toBe(true);
    expect(errors).toEqual([{ call: 'logAdmit', key: 'b', reason: 'error', error: new Error('down') }]);
    const s = gw.stats();
    expect(s.storeCallFailures).toBe(1);
    expect(s.storeCallFailuresBy).toEqual({ timeout: 0, refused: 0, error: 1 });
    // the call may have landed: it is taken back at the next round
    expect(s.pendingVoids).toBe(1);
    store.down = false;
    await gw.syncNow();
    expect(store.voided).toEqual([[{ key: 'b', seq: expect.any(Number), cost: 1 }]]);
    expect(gw.stats().voidedCalls).toBe(1);
  });

  it('leases-ask: a request without a slot asks the store (never logs), and is counted once', async () => {
    const { gw, store } = setup('leases-ask', { gateways: 1 });
    const errors: unknown[] = [];
    gw.on('storeCallError', (e) => errors.push(e));
    const d = await gw.admit('a');
    expect(d.allowed).toBe(true);
    expect(store.calls).toMatchObject({ ask: 1, logAdmit: 0 });
    expect(gw.stats().decisions).toEqual({ allowed: 1, limited: 0, degradedAllowed: 0, degradedLimited: 0 });
    expect(gw.stats().unsyncedAdmits).toBe(1);
    store.down = true;
    const f = await gw.admit('b');
    expect(f).toMatchObject({ allowed: false, degraded: true });
    expect(errors).toEqual([{ call: 'ask', key: 'b', reason: 'error', error: new Error('down') }]);
    // the failed ask's request went through its limiter once: not counted into it again
    expect(gw.stats().decisions).toEqual({ allowed: 1, limited: 0, degradedAllowed: 0, degradedLimited: 1 });
    expect(gw.stats().unsyncedAdmits).toBe(1);
  });
});

describe('AsyncGateway: the fail modes decide exactly', () => {
  it('local (a split of L over K): remaining, reset and Retry-After from its own outage admits', async () => {
    const { gw, store } = setup('shared-counter');
    await outage(gw, store);
    const t = Date.now();
    const first = local(gw.admitNow('a'));
    expect(first).toEqual({ allowed: true, remaining: 4, resetMs: 10_000, degraded: true, at: t });
    vi.advanceTimersByTime(1_000);
    for (let i = 0; i < 4; i++) expect(local(gw.admitNow('a')).allowed).toBe(true);
    const no = local(gw.admitNow('a'));
    expect(no).toEqual({
      allowed: false,
      remaining: 0,
      resetMs: 9_000,
      degraded: true,
      at: t + 1_000,
      retryAfterMs: 9_000,
    });
    expect(gw.stats().decisions).toMatchObject({
      degradedAllowed: 5,
      degradedLimited: 1,
      allowed: 0,
      limited: 0,
    });
    expect(gw.stats().unsyncedAdmits).toBe(5);
  });

  it('open: admits, remaining L less its outage admits, reset from the first', async () => {
    const { gw, store } = setup('shared-counter', { failMode: 'open' });
    await outage(gw, store);
    const t = Date.now();
    expect(local(gw.admitNow('a', 3))).toEqual({
      allowed: true,
      remaining: 7,
      resetMs: 10_000,
      degraded: true,
      at: t,
    });
    vi.advanceTimersByTime(2_000);
    expect(local(gw.admitNow('a'))).toEqual({
      allowed: true,
      remaining: 6,
      resetMs: 8_000,
      degraded: true,
      at: t + 2_000,
    });
  });

  it('open with the key cap full of outage records: admitted all the same, recorded nowhere', async () => {
    const { gw, store } = setup('shared-counter', { failMode: 'open', maxKeys: 2 });
    await outage(gw, store);
    expect(local(gw.admitNow('a')).allowed).toBe(true);
    expect(local(gw.admitNow('b')).allowed).toBe(true);
    const d = local(gw.admitNow('c'));
    expect(d).toEqual({ allowed: true, remaining: 0, resetMs: 0, degraded: true, at: Date.now() });
    expect(gw.stats().keyCapRejections).toBe(0);
  });

  it('local with the key cap full of outage records: a new key is rejected, degraded, until a sync', async () => {
    const { gw, store } = setup('shared-counter', { maxKeys: 2 });
    await outage(gw, store);
    expect(local(gw.admitNow('a')).allowed).toBe(true);
    expect(local(gw.admitNow('b')).allowed).toBe(true);
    const d = local(gw.admitNow('c'));
    expect(d).toMatchObject({ allowed: false, remaining: 0, resetMs: 0, degraded: true });
    expect(d.retryAfterMs).toBeGreaterThan(0);
    expect(gw.stats().keyCapRejections).toBe(1);
    expect(gw.stats().decisions).toMatchObject({ degradedAllowed: 2, degradedLimited: 1 });
  });

  it('a lease design, local: spends its grant only; with the key cap full, a new key is rejected, degraded', async () => {
    const { gw, store } = setup('leases', { maxKeys: 1, gateways: 1 });
    expect(local(gw.admitNow('a')).allowed).toBe(false);
    await gw.syncNow();
    expect(local(gw.admitNow('a')).allowed).toBe(true);
    await outage(gw, store);
    // the grant lapses at the sync attempt: nothing to spend
    const d = local(gw.admitNow('a'));
    expect(d).toMatchObject({ allowed: false, degraded: true });
    const c = local(gw.admitNow('b'));
    expect(c).toMatchObject({ allowed: false, degraded: true, remaining: 0 });
    expect(gw.stats().keyCapRejections).toBe(1);
    expect(gw.stats().decisions).toMatchObject({
      allowed: 1,
      limited: 1,
      degradedAllowed: 0,
      degradedLimited: 2,
    });
  });

  it('a request for a new key while the key cap is full of unconfirmed admits: rejected, not degraded', () => {
    const { gw } = setup('shared-counter', { maxKeys: 1 });
    expect(local(gw.admitNow('a')).allowed).toBe(true);
    const d = local(gw.admitNow('b'));
    expect(d).toMatchObject({ allowed: false, remaining: 0, resetMs: 0 });
    expect(d.degraded).toBeUndefined();
    expect(gw.stats().decisions).toEqual({ allowed: 1, limited: 1, degradedAllowed: 0, degradedLimited: 0 });
  });
});

describe('AsyncGateway: refunds', () => {
  it('takes back an unpushed admit at once, once; never a rejection, a degraded decision or one without an instant', async () => {
    const { gw, store } = setup('shared-counter', { gateways: 1, limit: 2 });
    const d = local(gw.admitNow('a'));
    expect(gw.stats().unsyncedAdmits).toBe(1);
    expect(gw.refund('a', d)).toBe(true);
    expect(gw.stats().unsyncedAdmits).toBe(0);
    expect(gw.refund('a', d)).toBe(false);
    expect(local(gw.admitNow('a')).allowed).toBe(true);
    expect(local(gw.admitNow('a')).allowed).toBe(true);
    const no = local(gw.admitNow('a'));
    expect(no.allowed).toBe(false);
    expect(gw.refund('a', no)).toBe(false);
    expect(gw.refund('a', { allowed: true, remaining: 0, resetMs: 0 })).toBe(false);
    await outage(gw, store);
    const deg = local(gw.admitNow('b'));
    expect(deg).toMatchObject({ allowed: true, degraded: true });
    expect(gw.refund('b', deg)).toBe(false);
    expect(store.calls.refundAdmits).toBe(0);
  });

  it('a pushed admit goes to the store at the next round; central-log sends its refunds at once', async () => {
    const sc = setup('shared-counter', { gateways: 1 });
    const d = local(sc.gw.admitNow('a'));
    await sc.gw.syncNow();
    expect(sc.gw.refund('a', d)).toBe(true);
    expect(sc.gw.refundStats.pending).toBe(1);
    expect(sc.store.calls.refundAdmits).toBe(0);
    await sc.gw.syncNow();
    expect(sc.store.calls.refundAdmits).toBe(1);
    expect(sc.gw.refundStats).toEqual({ sent: 1, pending: 0 });
    const cl = setup('central-log', { gateways: 1 });
    const c = await cl.gw.admit('a');
    expect(cl.gw.refund('a', c)).toBe(true);
    await vi.advanceTimersByTimeAsync(0);
    expect(cl.store.calls.refundAdmits).toBe(1);
    expect(cl.gw.refundStats).toEqual({ sent: 1, pending: 0 });
  });

  it('an admit at or before its key was reset takes nothing back; one made after the reset does', async () => {
    const { gw } = setup('shared-counter', { gateways: 1 });
    const before = local(gw.admitNow('a'));
    await gw.syncNow();
    const reset = gw.resetKey('a');
    await gw.syncNow();
    expect(await reset).toBe(true);
    expect(gw.refund('a', before)).toBe(false);
    vi.advanceTimersByTime(1);
    const after = local(gw.admitNow('a'));
    await gw.syncNow();
    expect(gw.refund('a', after)).toBe(true);
    expect(gw.refundStats.pending).toBe(1);
  });

  it('a reset is remembered for at most maxKeys keys, the oldest dropped first', async () => {
    const { gw } = setup('shared-counter', { gateways: 1, maxKeys: 2 });
    const a = local(gw.admitNow('a'));
    const b = local(gw.admitNow('b'));
    await gw.syncNow();
    for (const key of ['a', 'b', 'c']) {
      const r = gw.resetKey(key);
      await gw.syncNow();
      expect(await r).toBe(true);
    }
    // a's reset was dropped to keep two: a refund of its admit goes to the store; b's is still held
    expect(gw.refund('b', b)).toBe(false);
    expect(gw.refund('a', a)).toBe(true);
  });

  it('a store without refundAdmits refuses refunds, naming it; split needs none', () => {
    const { gw } = setup('shared-counter', { store: flaky(new MemoryStore(), { refunds: false }) });
    expect(gw.refunds).toBe(false);
    expect(() => gw.refund('a', { allowed: true, remaining: 0, resetMs: 0, at: T0 })).toThrow(
      'fleetlimit: refund: the store has no refundAdmits, so the shared-counter design cannot take admits back',
    );
    const split = setup('split', { store: flaky(new MemoryStore(), { refunds: false, resets: false }) });
    expect(split.gw.refunds).toBe(true);
    expect(split.gw.resets).toBe(true);
    const d = local(split.gw.admitNow('a'));
    expect(split.gw.refund('a', d)).toBe(true);
    expect(split.gw.stats().unsyncedAdmits).toBe(0);
  });
});

describe('AsyncGateway: resets', () => {
  it("forgets the key's unpushed admits at once; a gateway whose timer does not run syncs the reset now", async () => {
    const { gw, store } = setup('shared-counter', { gateways: 1 });
    local(gw.admitNow('a'));
    local(gw.admitNow('a'));
    expect(gw.stats().unsyncedAdmits).toBe(2);
    const reset = gw.resetKey('a');
    expect(gw.stats().unsyncedAdmits).toBe(0);
    expect(gw.resetStats.pending).toBe(1);
    await vi.advanceTimersByTimeAsync(0);
    expect(store.calls.resetKey).toBe(1);
    expect(await reset).toBe(true);
    expect(gw.resetStats).toEqual({ sent: 1, pending: 0 });
  });

  it('a running gateway sends the reset with its next round; central-log sends it at once', async () => {
    const { gw, store } = setup('shared-counter', { gateways: 1 });
    gw.start();
    await vi.advanceTimersByTimeAsync(60);
    const syncs = store.calls.sync;
    void gw.resetKey('a');
    await vi.advanceTimersByTimeAsync(0);
    expect(store.calls.resetKey).toBe(0);
    expect(store.calls.sync).toBe(syncs);
    await vi.advanceTimersByTimeAsync(100);
    expect(store.calls.resetKey).toBe(1);
    await gw.stop();
    const cl = setup('central-log', { gateways: 1 });
    cl.gw.start();
    await vi.advanceTimersByTimeAsync(60);
    const r = cl.gw.resetKey('a');
    await vi.advanceTimersByTimeAsync(0);
    expect(cl.store.calls.resetKey).toBe(1);
    expect(await r).toBe(true);
    await cl.gw.stop();
  });

  it('with maxKeys resets waiting, another key is not reset', async () => {
    const { gw, store } = setup('shared-counter', { gateways: 1, maxKeys: 1 });
    store.down = true;
    gw.start();
    void gw.resetKey('a');
    expect(await gw.resetKey('b')).toBe(false);
    expect(gw.resetStats.pending).toBe(1);
    await gw.stop();
  });
});

describe("AsyncGateway: the store's clock", () => {
  it('a design that never syncs does not wait for the clock of a store on its own clock', async () => {
    const store = Object.assign(flaky(), { clock: 'store' as const });
    const { gw } = setup('central-log', { store });
    expect((await gw.admit('a')).allowed).toBe(true);
    expect(store.calls).toMatchObject({ sync: 0, logAdmit: 1 });
    const synced = setup('shared-counter', { store: Object.assign(flaky(), { clock: 'store' as const }) });
    expect(synced.gw.clockKnown).toBe(false);
    expect((await synced.gw.admit('a')).allowed).toBe(true);
    expect(synced.gw.clockKnown).toBe(true);
  });

  it('admit rejects, never throws, on a bad key', async () => {
    const { gw } = setup('shared-counter');
    await expect(gw.admit('')).rejects.toThrow();
  });
});

describe('AsyncGateway: requests waiting on an ask (leases-ask)', () => {
  it('a request that waited on the ask in flight, then asked again, is counted once as allowed', async () => {
    const { gw, store } = setup('leases-ask', { gateways: 1 });
    store.askDelayMs = 20;
    const both = [gw.admit('a'), gw.admit('a')];
    await vi.advanceTimersByTimeAsync(100);
    const ds = await Promise.all(both);
    expect(ds.map((d) => [d.allowed, d.degraded])).toEqual([
      [true, undefined],
      [true, undefined],
    ]);
    // the first ask's grant was the first request's slot: the waiter asked again
    expect(store.calls.ask).toBe(2);
    const s = gw.stats();
    expect(s.coalescedAsks).toBe(1);
    expect(s.decisions).toEqual({ allowed: 2, limited: 0, degradedAllowed: 0, degradedLimited: 0 });
    expect(s.unsyncedAdmits).toBe(2);
  });

  it('a waiter that finds the grant used up asks again, and is limited (not degraded) when the store has none', async () => {
    const { gw, store } = setup('leases-ask', { gateways: 1, limit: 1 });
    store.askDelayMs = 20;
    const both = [gw.admit('a'), gw.admit('a')];
    await vi.advanceTimersByTimeAsync(40);
    const ds = await Promise.all(both);
    expect(ds.map((d) => [d.allowed, d.degraded])).toEqual([
      [true, undefined],
      [false, undefined],
    ]);
    expect(ds[1].retryAfterMs).toBeGreaterThan(0);
    expect(store.calls.ask).toBe(2);
    expect(gw.stats().decisions).toEqual({ allowed: 1, limited: 1, degradedAllowed: 0, degradedLimited: 0 });
    expect(gw.stats().unsyncedAdmits).toBe(1);
  });
});

describe('AsyncGateway: shapes and counters (hand-checked mutants)', () => {
  it("a local admit's decision has its reset and no Retry-After; a refund of an aged-out admit queues nothing", () => {
    const { gw } = setup('shared-counter', { gateways: 1 });
    const d = local(gw.admitNow('a'));
    expect(d).toEqual({ allowed: true, remaining: 9, resetMs: 10_000, at: T0 });
    vi.advanceTimersByTime(10_001);
    expect(gw.refund('a', d)).toBe(false);
    expect(gw.refundStats.pending).toBe(0);
  });

  it('open with the key cap full counts its admit as degraded', async () => {
    const { gw, store } = setup('shared-counter', { failMode: 'open', maxKeys: 1 });
    await outage(gw, store);
    local(gw.admitNow('a'));
    local(gw.admitNow('b'));
    expect(gw.stats().decisions).toEqual({ allowed: 0, limited: 0, degradedAllowed: 2, degradedLimited: 0 });
  });

  it('request-path failures are summed over their causes', async () => {
    const store = flaky();
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' });
    store.logAdmit = async () => {
      throw refused;
    };
    const { gw } = setup('central-log', { store });
    await gw.admit('a');
    expect(gw.stats().storeCallFailuresBy).toEqual({ timeout: 0, refused: 1, error: 0 });
    expect(gw.stats().storeCallFailures).toBe(1);
  });

  it('split: a reset touches no store and leaves no unsynced admits behind', async () => {
    const { gw, store } = setup('split');
    local(gw.admitNow('a'));
    expect(await gw.resetKey('a')).toBe(true);
    await vi.advanceTimersByTimeAsync(0);
    expect(store.calls).toMatchObject({ sync: 0, resetKey: 0 });
    expect(gw.stats().unsyncedAdmits).toBe(0);
  });
});
