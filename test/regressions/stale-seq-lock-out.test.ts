import { Registry } from 'prom-client';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type AsyncGatewayOptions, createAsyncGateway } from '../../src/gateway/runtime/index.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import { TestAsyncStore } from '../support/async-memory-store.js';

/**
 * Issue 17, item 8: sync sequence numbers came from the wall clock, so a gateway restarted with the
 * same id on a clock behind the old one's, or two live gateways sharing an id, got STALE_SEQ on every
 * sync (or had their pushes taken for replays) and ran degraded with admits never pushed.
 */

const T0 = 10_000_000;
beforeEach(() => {
  vi.useFakeTimers({ now: T0 });
});
afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

const advance = (ms: number) => vi.advanceTimersByTimeAsync(ms);

function gateway(store: TestAsyncStore, o: Partial<AsyncGatewayOptions> = {}) {
  return createAsyncGateway({
    id: 'gw-1',
    design: 'shared-counter',
    limit: 1_000,
    windowMs: 60_000,
    gateways: 2,
    syncMs: 100,
    store,
    random: () => 0.5,
    ...o,
  });
}

describe('regression: STALE_SEQ lock-out (issue 17 item 8)', () => {
  it('a gateway restarted with the same id on a clock 60 s behind syncs, and its admits reach the store', async () => {
    // the store runs on its own clock (as Redis does on TIME)
    const store = new TestAsyncStore(new MemoryStore(), () => Date.now());
    const old = gateway(store, { clock: () => Date.now() });
    old.start();
    await advance(1_000);
    for (let i = 0; i < 5; i++) await old.admitNow('k');
    await advance(200);
    old.stop();
    await advance(500);
    // the same id, a clock one minute behind
    const fresh = gateway(store, { clock: () => Date.now() - 60_000 });
    const errors: unknown[] = [];
    fresh.on('syncError', (e) => errors.push(e.error ?? e.reason));
    fresh.start();
    await advance(300);
    const decisions = [];
    for (let i = 0; i < 5; i++) {
      const d = fresh.admitNow('k');
      await advance(0);
      decisions.push(await d);
    }
    await advance(1_000);
    expect(errors).toEqual([]);
    expect(decisions.filter((d) => d.degraded).length).toBe(0);
    expect(fresh.stats().storeDown).toBe(false);
    expect(fresh.stats().unsyncedAdmits).toBe(0);
    expect(store.memory.countOf('k', fresh.options.policy, Date.now())).toBe(10);
    fresh.stop();
    await advance(500);
  });

  it('central-log: calls taken back by the previous run do not refuse a restart’s calls (clock 60 s behind)', async () => {
    const store = new TestAsyncStore(new MemoryStore(), () => Date.now());
    const cl = { design: 'central-log' as const, limit: 10, storeTimeoutMs: 200 };
    const old = gateway(store, { ...cl, clock: () => Date.now() });
    expect((await old.admitNow('k')).allowed).toBe(true);
    // a call that times out is taken back (voidLogAdmits) before the next sync
    store.mode = 'hang';
    const lost = old.admitNow('k');
    await advance(250);
    expect((await lost).degraded).toBe(true);
    store.mode = 'ok';
    const synced = old.syncNow();
    await advance(10);
    await synced;
    expect(old.stats().voidedCalls).toBe(1);
    const stopped = old.stop();
    await advance(10);
    await stopped;
    const fresh = gateway(store, { ...cl, clock: () => Date.now() - 60_000 });
    const d = fresh.admitNow('k');
    await advance(0);
    const decision = await d;
    expect(decision.degraded).toBeUndefined();
    expect(decision.allowed).toBe(true);
    // the first call, the one decided without the store (pushed as an outage admit), the restart's
    expect(store.memory.countOf('k', fresh.options.policy, Date.now())).toBe(3);
  });

  it('two live gateways with one id: both push every admit, and the duplicate id is reported once, loudly', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const store = new TestAsyncStore(new MemoryStore(), () => Date.now(), 'caller');
    const a = gateway(store, { clock: () => Date.now() });
    const b = gateway(store, { clock: () => Date.now(), random: () => 0.2 });
    const errors: unknown[] = [];
    for (const g of [a, b]) g.on('syncError', (e) => errors.push(e.error ?? e.reason));
    const registry = new Registry();
    a.registerMetrics(registry);
    b.registerMetrics(registry);
    a.start();
    b.start();
    let admitted = 0;
    for (let t = 0; t < 2_000; t += 50) {
      for (const g of [a, b]) if ((await g.admitNow('k')).allowed) admitted++;
      await advance(50);
    }
    await advance(500);
    expect(errors).toEqual([]);
    expect(admitted).toBe(80);
    expect(store.memory.countOf('k', a.options.policy, Date.now())).toBe(80);
    expect(a.stats().unsyncedAdmits + b.stats().unsyncedAdmits).toBe(0);
    // loudly: one log line per gateway, and a metric
    const lines = warn.mock.calls.map((c) => String(c[0])).filter((m) => m.includes('gw-1'));
    expect(lines.length).toBe(2);
    expect(lines[0]).toMatch(/another live gateway/);
    const text = await registry.metrics();
    expect(text).toMatch(/fleetlimit_duplicate_id\{gateway="gw-1"\} 1/);
    a.stop();
    b.stop();
    await advance(500);
  });

  it('a restart is not a duplicate: no warning when the old incarnation is gone', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const store = new TestAsyncStore(new MemoryStore(), () => Date.now(), 'caller');
    const old = gateway(store, { clock: () => Date.now() });
    old.start();
    await advance(1_000);
    old.stop();
    await advance(200);
    const fresh = gateway(store, { clock: () => Date.now() });
    fresh.start();
    await advance(2_000);
    expect(warn).not.toHaveBeenCalled();
    expect(fresh.stats().duplicateId).toBe(false);
    fresh.stop();
    await advance(200);
  });
});
