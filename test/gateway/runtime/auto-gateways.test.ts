import { Registry } from 'prom-client';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { DesignId } from '../../../src/config.js';
import type { Decision } from '../../../src/gateway/decision.js';
import { LIVE_SYNCS } from '../../../src/gateway/options.js';
import { createPolicyGateways } from '../../../src/gateway/policies.js';
import {
  type AsyncGateway,
  type AsyncGatewayOptions,
  createAsyncGateway,
} from '../../../src/gateway/runtime/async-gateway.js';
import { MemoryStore } from '../../../src/store/memory-store.js';
import { TestAsyncStore } from '../../support/async-memory-store.js';

const T0 = 1_700_000_000_000;
const D = 100;
const TIMEOUT = 50;
beforeEach(() => {
  vi.useFakeTimers({ now: T0 });
});
afterEach(() => {
  vi.useRealTimers();
});

const advance = (ms: number) => vi.advanceTimersByTimeAsync(ms);

/**
 * A fleet with gateways 'auto' on one memory store (on the fake wall clock); each gateway has its own
 * TestAsyncStore over it, so one can be cut off from the store (mode 'fail') while the others are not.
 */
function fleet(design: DesignId, o: Partial<AsyncGatewayOptions> = {}) {
  const memory = new MemoryStore();
  const members: { gw: AsyncGateway; store: TestAsyncStore }[] = [];
  const join = (start = true) => {
    const store = new TestAsyncStore(memory, () => Date.now(), 'caller');
    const gw = createAsyncGateway({
      id: `gw-${members.length}`,
      design,
      limit: 12,
      windowMs: 60_000,
      gateways: 'auto',
      syncMs: D,
      storeTimeoutMs: TIMEOUT,
      store,
      clock: () => Date.now(),
      random: () => (members.length * 0.17) % 1,
      ...o,
    });
    members.push({ gw, store });
    if (start) gw.start();
    return { gw, store };
  };
  const ks = () => members.filter((m) => m.gw.running).map((m) => m.gw.stats().gateways);
  return { memory, join, members, ks };
}

const local = (d: Decision | Promise<Decision>): Decision => {
  if (d instanceof Promise) throw new Error('expected a decision without a store round trip');
  return d;
};

describe("gateways 'auto': K follows the fleet", () => {
  it('a gateway joining is counted by every other within one Δ of its first sync', async () => {
    const f = fleet('assume-others');
    f.join();
    f.join();
    // the first sync of each is within Δ; each other's next one within Δ after that
    await advance(2 * D);
    expect(f.ks()).toEqual([2, 2]);
    f.join();
    await advance(2 * D);
    expect(f.ks()).toEqual([3, 3, 3]);
    f.join();
    f.join();
    await advance(2 * D);
    expect(f.ks()).toEqual([5, 5, 5, 5, 5]);
    for (const m of f.members) await m.gw.stop();
  });

  it('a stopped gateway leaves at once: the others count it out at their next sync', async () => {
    const f = fleet('track-share');
    for (let i = 0; i < 4; i++) f.join();
    await advance(2 * D);
    expect(f.ks()).toEqual([4, 4, 4, 4]);
    await f.members[3].gw.stop();
    await f.members[2].gw.stop();
    await advance(D);
    expect(f.ks()).toEqual([2, 2]);
    for (const m of f.members) await m.gw.stop();
  });

  it('a gateway cut off from the store counts for 3Δ + storeTimeoutMs after its last beat, then not', async () => {
    const f = fleet('shared-counter');
    for (let i = 0; i < 3; i++) f.join();
    await advance(2 * D);
    expect(f.ks()).toEqual([3, 3, 3]);
    // cut off right after its beat: its syncs fail from now on (it keeps running, on its fail mode)
    f.members[2].store.mode = 'fail';
    const window = LIVE_SYNCS * D + TIMEOUT;
    await advance(window - D);
    expect(f.ks().slice(0, 2)).toEqual([3, 3]);
    await advance(2 * D);
    expect(f.ks().slice(0, 2)).toEqual([2, 2]);
    // it kept its last count: its store is away, and its fail mode governs
    expect(f.members[2].gw.stats().gateways).toBe(3);
    expect(f.members[2].gw.stats().heartbeatFailures).toBeGreaterThan(0);
    // back: it joins again
    f.members[2].store.mode = 'ok';
    await advance(2 * D);
    expect(f.ks()).toEqual([3, 3, 3]);
    for (const m of f.members) await m.gw.stop();
  });

  it('the first decision waits for the first count; before it, initialGateways', async () => {
    const f = fleet('split');
    f.join();
    f.join();
    f.join();
    await advance(D);
    const late = f.join(false).gw;
    expect(late.stats().gateways).toBe(1);
    const d = late.admitNow('k');
    expect(d).toBeInstanceOf(Promise);
    expect((await d).allowed).toBe(true);
    expect(late.stats().gateways).toBe(4);
    for (const m of f.members) await m.gw.stop();
  });

  it('initialGateways is the least K for one liveness window after the first count (a fleet started at once)', async () => {
    const f = fleet('assume-others', { initialGateways: 5 });
    f.join();
    f.join();
    await advance(2 * D);
    expect(f.ks()).toEqual([5, 5]);
    await advance(LIVE_SYNCS * D + TIMEOUT);
    expect(f.ks()).toEqual([2, 2]);
    for (const m of f.members) await m.gw.stop();
  });

  it('split: each gateway admits L/K of the K counted now, and a cost over that share is refused outright', async () => {
    const f = fleet('split');
    for (let i = 0; i < 3; i++) f.join();
    await advance(2 * D);
    const gw = f.members[0].gw;
    // L = 12, K = 3: 4 each
    for (let i = 0; i < 4; i++) expect(local(gw.admitNow('a')).allowed).toBe(true);
    expect(local(gw.admitNow('a')).allowed).toBe(false);
    expect(local(gw.admitNow('b', 5))).toMatchObject({ allowed: false, exceedsLimit: true });
    await f.members[1].gw.stop();
    await f.members[2].gw.stop();
    await advance(D);
    expect(gw.stats().gateways).toBe(1);
    // K = 1: the whole limit
    for (let i = 0; i < 8; i++) expect(local(gw.admitNow('a')).allowed).toBe(true);
    expect(local(gw.admitNow('a')).allowed).toBe(false);
    expect(local(gw.admitNow('b', 5)).allowed).toBe(true);
    await gw.stop();
  });

  it("fail mode 'local' splits the limit over the K counted last", async () => {
    const f = fleet('shared-counter', { staleAfterMs: 2 * D + TIMEOUT });
    for (let i = 0; i < 4; i++) f.join();
    await advance(2 * D);
    const { gw, store } = f.members[0];
    store.mode = 'fail';
    await advance(4 * D);
    expect(gw.stats().storeDown).toBe(true);
    const allowed = [];
    for (let i = 0; i < 6; i++) allowed.push(local(gw.admitNow('x')).allowed);
    // L = 12 over K = 4: 3 each
    expect(allowed).toEqual([true, true, true, false, false, false]);
    for (const m of f.members) await m.gw.stop();
  });

  it('the metric fleetlimit_gateways_live shows the K in use', async () => {
    const f = fleet('adaptive');
    f.join();
    f.join();
    await advance(2 * D);
    const registry = new Registry();
    f.members[0].gw.registerMetrics(registry);
    expect(await registry.metrics()).toMatch(/fleetlimit_gateways_live\{gateway="gw-0"\} 2/);
    for (const m of f.members) await m.gw.stop();
  });
});

describe("gateways 'auto': a round's replies are applied with that round's K", () => {
  it('a heartbeat slower than the sync still sets K before the keys take their replies', async () => {
    const memory = new MemoryStore();
    const store = new TestAsyncStore(memory, () => Date.now(), 'caller');
    const beat = store.heartbeat.bind(store);
    // the heartbeat answers 20 ms after the sync does
    store.heartbeat = async (b, now) => {
      await new Promise((r) => setTimeout(r, 20));
      return beat(b, now);
    };
    const gw = createAsyncGateway({
      id: 'g',
      design: 'assume-others',
      limit: 100,
      windowMs: 60_000,
      gateways: 'auto',
      syncMs: D,
      storeTimeoutMs: TIMEOUT,
      store,
      clock: () => Date.now(),
      random: () => 0,
    });
    const other = (id: string) =>
      memory.heartbeat({ gatewayId: id, policy: gw.options.policy, liveWithinMs: 60_000 }, Date.now());
    other('x');
    const first = gw.admitNow('k');
    await advance(30);
    expect((await first).allowed).toBe(true);
    expect(gw.stats().gateways).toBe(2);
    const lim = gw.limiterFor('k')!;
    const seen: number[] = [];
    const apply = lim.applySync.bind(lim);
    lim.applySync = (reply, now) => {
      seen.push(gw.options.fleet.gateways);
      apply(reply, now);
    };
    other('y');
    const round = gw.syncNow();
    await advance(30);
    expect(await round).toBe(true);
    expect(seen).toEqual([3]);
    const stopped = gw.stop();
    await advance(30);
    await stopped;
  });
});

describe("gateways 'auto' with named policies", () => {
  it('each policy counts its own gateways', async () => {
    const memory = new MemoryStore();
    const instance = (id: string, policies: string[]) =>
      createPolicyGateways({
        id,
        design: 'assume-others',
        gateways: 'auto',
        syncMs: D,
        store: memory,
        clock: () => Date.now(),
        policies: Object.fromEntries(policies.map((p) => [p, { limit: 10, windowMs: 1000 }])),
      });
    const all = [instance('a', ['free', 'pro']), instance('b', ['free', 'pro']), instance('c', ['free'])];
    for (const p of all) p.start();
    await advance(2 * D);
    expect(all[0].get('free').stats().gateways).toBe(3);
    expect(all[0].get('pro').stats().gateways).toBe(2);
    await all[2].stop();
    await advance(D);
    expect(all[1].get('free').stats().gateways).toBe(2);
    for (const p of all) await p.stop();
  });
});

describe('fixed K is unchanged', () => {
  it('a fixed K sends no heartbeat and reports its K', async () => {
    const store = new TestAsyncStore(new MemoryStore(), () => Date.now(), 'caller');
    const gw = createAsyncGateway({
      id: 'g',
      design: 'assume-others',
      limit: 10,
      windowMs: 1000,
      gateways: 7,
      syncMs: D,
      store,
      clock: () => Date.now(),
    });
    gw.start();
    await advance(3 * D);
    expect(store.heartbeats).toBe(0);
    expect(gw.stats().gateways).toBe(7);
    await gw.stop();
  });
});
