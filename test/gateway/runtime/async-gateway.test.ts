import { Registry } from 'prom-client';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ConfigError } from '../../../src/config.js';
import type { LeaseKey } from '../../../src/designs/leases.js';
import type { Decision } from '../../../src/gateway/decision.js';
import { type AsyncGatewayOptions, createAsyncGateway } from '../../../src/gateway/runtime/index.js';
import { TestAsyncStore } from '../../support/async-memory-store.js';

const T0 = 1_000_000;

beforeEach(() => {
  vi.useFakeTimers({ now: T0 });
});
afterEach(() => {
  vi.useRealTimers();
});

type Setup = Partial<AsyncGatewayOptions> & Pick<AsyncGatewayOptions, 'design'>;

/**
 * One gateway on a test store that runs on the (fake) wall clock, as Redis runs on TIME. Δ = 100 ms,
 * first sync at +50 ms. The gateway reads the same clock, and the store says so ('caller'): there is
 * no clock to learn before the first decision (that wait has tests of its own).
 */
function setup(o: Setup) {
  const store = new TestAsyncStore(undefined, () => Date.now(), 'caller');
  const gw = createAsyncGateway({
    id: 'gw-1',
    limit: 10,
    windowMs: 10_000,
    gateways: 2,
    syncMs: 100,
    store,
    clock: () => Date.now(),
    random: () => 0.5,
    ...o,
  });
  const count = (key: string) => store.memory.countOf(key, gw.options.policy, Date.now());
  return { gw, store, count };
}

/** One shared-counter gateway (L = 10 per 1 s, K = 1, Δ = 100 ms) on a store whose own clock runs `offsetMs` ahead of the gateway's. */
function onStoreClock(offsetMs: number) {
  const store = new TestAsyncStore(undefined, () => Date.now() + offsetMs);
  const gw = createAsyncGateway({
    id: 'gw-1',
    design: 'shared-counter',
    limit: 10,
    windowMs: 1_000,
    gateways: 1,
    syncMs: 100,
    store,
    clock: () => Date.now(),
  });
  return { gw, store };
}

function local(d: Decision | Promise<Decision>): Decision {
  if (d instanceof Promise) throw new Error('expected a decision without a store round trip');
  return d;
}

const advance = (ms: number) => vi.advanceTimersByTimeAsync(ms);

describe('AsyncGateway: syncing', () => {
  it('syncs on its timer at the seeded phase and pushes the admits made since', async () => {
    const { gw, store, count } = setup({ design: 'shared-counter' });
    gw.start();
    for (let i = 0; i < 3; i++) expect(local(gw.admitNow('a')).allowed).toBe(true);
    expect(gw.stats().unsyncedAdmits).toBe(3);
    await advance(49);
    expect(store.calls.sync).toBe(0);
    await advance(1);
    expect(store.calls.sync).toBe(1);
    expect(count('a')).toBe(3);
    expect(gw.stats()).toMatchObject({ syncs: 1, unsyncedAdmits: 0, keys: 1, storeDown: false });
    await advance(200);
    expect(store.calls.sync).toBe(3);
    await gw.stop();
  });

  it('decides the synced designs without touching the store on the request path', async () => {
    for (const design of ['shared-counter', 'assume-others', 'track-share', 'split', 'leases'] as const) {
      const { gw, store } = setup({ design });
      for (let i = 0; i < 20; i++) local(gw.admitNow(`k${i % 3}`));
      expect(store.calls.logAdmit + store.calls.ask + store.calls.sync).toBe(0);
      await expect(gw.admit('k0')).resolves.toHaveProperty('allowed');
    }
  });

  it('keeps one sync in flight: a tick that finds one running skips', async () => {
    const { gw, store } = setup({ design: 'shared-counter' });
    store.delayMs = 150; // slower than Δ, faster than the 200 ms timeout
    gw.start();
    await advance(260); // ticks at 50 (answered at 200), 150 (skipped), 250
    expect(store.calls.sync).toBe(2);
    expect(gw.stats().syncTimeouts).toBe(0);
    const stopped = gw.stop(); // waits for the sync in flight, then its own
    await advance(300);
    await expect(stopped).resolves.toBe(true);
  });

  it('central-log waits on the store per request and is exact', async () => {
    const { gw, store, count } = setup({ design: 'central-log', limit: 2 });
    const ds = [await gw.admit('a'), await gw.admit('a'), await gw.admit('a')];
    expect(ds.map((d) => d.allowed)).toEqual([true, true, false]);
    expect(ds[2].retryAfterMs).toBeGreaterThan(0);
    expect(store.calls.logAdmit).toBe(3);
    expect(count('a')).toBe(2);
  });

  it('stop() pushes pending admits and hands every unused lease slot back', async () => {
    const { gw, store, count } = setup({ design: 'leases', gateways: 1 });
    gw.start();
    expect(local(gw.admitNow('a')).allowed).toBe(false); // no grant before the first sync
    await advance(50);
    expect(store.memory.outstandingOf('a', gw.options.policy, Date.now())).toBeGreaterThan(1);
    expect(local(gw.admitNow('a')).allowed).toBe(true);
    await expect(gw.stop()).resolves.toBe(true);
    expect(store.memory.outstandingOf('a', gw.options.policy, Date.now())).toBe(0);
    expect(count('a')).toBe(1);
    expect(store.applied.at(-1)?.entries.every((e) => e.ask === 0)).toBe(true);
    expect(gw.running).toBe(false);
  });

  it('learns the store clock offset at sync and decides on store time', async () => {
    const { gw } = onStoreClock(5_000);
    await gw.syncNow();
    expect(gw.stats().offsetMs).toBe(5_000);
    expect(gw.now()).toBe(Date.now() + 5_000);
  });

  it('on a store with its own clock, waits for the first reply before deciding, then counts on the store’s time', async () => {
    for (const skew of [5_000, -5_000]) {
      // the gateway's clock runs 5 s ahead of the store's (skew > 0) or behind it
      const { gw, store } = onStoreClock(-skew);
      const first = gw.admitNow('a');
      expect(first).toBeInstanceOf(Promise);
      const d = await first;
      expect(d).toMatchObject({ allowed: true, at: Date.now() - skew });
      expect(store.calls.sync).toBe(1);
      // from then on at once, on store time
      expect(local(gw.admitNow('a')).at).toBe(Date.now() - skew);
      await gw.syncNow();
      const policy = gw.options.policy;
      expect(store.memory.countOf('a', policy, Date.now() - skew)).toBe(2);
      // one window later on the store's clock both have aged out there and here
      await advance(1_000);
      expect(store.memory.countOf('a', policy, Date.now() - skew)).toBe(0);
      // (the timer is not running: a sync brings the view that old admits aged out; a view left to
      // age without one keeps counting what it cannot see expire, see StoreHealth)
      await gw.syncNow();
      expect(local(gw.admitNow('a')).remaining).toBe(9);
    }
  });

  it('a first sync does not hold a clock that runs ahead at its own reading', async () => {
    const { gw } = onStoreClock(-5_000);
    await gw.syncNow();
    expect(gw.now()).toBe(Date.now() - 5_000);
  });

  it('decides on its own clock when the sync it waited on for the store’s clock fails', async () => {
    const { gw, store } = onStoreClock(5_000);
    store.mode = 'fail';
    await expect(gw.admitNow('a')).resolves.toMatchObject({ allowed: true, at: Date.now() });
    expect(store.calls.sync).toBe(1);
    expect(local(gw.admitNow('a')).allowed).toBe(true);
  });

  it('takes the offset from the reply with the shortest round trip, and stops spending a grant that much before it lapses', async () => {
    // the store's clock runs 5 s ahead; each sync is applied and answered when the test says
    let t = 1_000;
    const answers: (() => void)[] = [];
    const storeClock = () => t + 5_000;
    const store = new TestAsyncStore(undefined, storeClock);
    const sync = store.sync.bind(store);
    store.sync = (req, now) => new Promise((r) => answers.push(() => r(sync(req, now))));
    const gw = createAsyncGateway({
      id: 'gw-1',
      design: 'leases',
      limit: 10,
      windowMs: 10_000,
      gateways: 1,
      syncMs: 100,
      leaseTtlMs: 1_000,
      store,
      clock: () => t,
      storeTimeoutMs: 1e9,
      staleAfterMs: 10_000,
    });
    const syncAt = async (applyAt: number, answerAt: number) => {
      const s = gw.syncNow();
      // the sync reaches the store a turn later (it is built in slices)
      for (let i = 0; answers.length === 0; i++) {
        if (i > 1000) throw new Error(`no sync reached the store (apply at ${applyAt})`);
        await vi.advanceTimersByTimeAsync(0);
      }
      t = applyAt;
      answers.shift()!();
      await Promise.resolve();
      t = answerAt;
      await vi.advanceTimersByTimeAsync(0);
      await s;
    };
    // sent at 1,000, applied at 1,000 (store 6,000), answered at 1,100: the midpoint is 50 ms late
    t = 1_000;
    await syncAt(1_000, 1_100);
    expect(gw.stats()).toMatchObject({ offsetMs: 4_950, offsetErrorMs: 51 });
    local(gw.admitNow('k')); // an arrival, so the next syncs ask for slots
    // a 4 ms round trip: off by at most 2, + 1 for the local clock's millisecond tick
    t = 2_000;
    await syncAt(2_002, 2_004);
    expect(gw.stats()).toMatchObject({ offsetMs: 5_000, offsetErrorMs: 3 });
    // a reply that waited 300 ms behind a stalled event loop is not the one the offset comes from
    local(gw.admitNow('k'));
    t = 3_000;
    await syncAt(3_000, 3_300);
    expect(gw.stats()).toMatchObject({ offsetMs: 5_000, offsetErrorMs: 3 });
    // that sync granted slots lapsing at store time 8,000 + 1,000; spent until 4 ms (3 + the store's 1 ms tick) before
    const held = () => (gw.limiterFor('k') as LeaseKey).slots(gw.now());
    expect(held()).toBeGreaterThan(0);
    t = 3_995;
    expect(held()).toBeGreaterThan(0);
    t = 3_996;
    expect(held()).toBe(0);
  });
});

describe('AsyncGateway: allowNow', () => {
  it('makes the decisions admitNow makes, counted the same, through syncs and an outage', async () => {
    for (const design of ['shared-counter', 'leases-ask', 'central-log', 'split'] as const) {
      const a = setup({ design, limit: 5 });
      const b = setup({ design, limit: 5 });
      a.gw.start();
      b.gw.start();
      const got: boolean[] = [];
      const want: boolean[] = [];
      for (let i = 0; i < 40; i++) {
        const key = i % 3 === 0 ? 'x' : 'y';
        if (i === 20) {
          a.store.mode = 'fail';
          b.store.mode = 'fail';
        }
        if (i === 32) {
          a.store.mode = 'ok';
          b.store.mode = 'ok';
        }
        want.push((await a.gw.admitNow(key)).allowed);
        got.push(await b.gw.allowNow(key));
        await advance(37);
      }
      expect(got).toEqual(want);
      expect(b.gw.stats().decisions).toEqual(a.gw.stats().decisions);
      expect(b.count('y')).toBe(a.count('y'));
      await a.gw.stop();
      await b.gw.stop();
    }
  });

  it('answers at once, without a Promise, when the gateway decides locally', () => {
    const { gw } = setup({ design: 'shared-counter' });
    expect(gw.allowNow('a')).toBe(true);
  });
});

describe('AsyncGateway: fail modes', () => {
  it('local: after the last good sync is stale, splits the limit over K, flags degraded, then pushes once', async () => {
    const { gw, store, count } = setup({ design: 'shared-counter' }); // L = 10, K = 2: 5 each
    gw.start();
    await advance(50);
    store.mode = 'hang';
    for (let i = 0; i < 4; i++) expect(local(gw.admitNow('a'))).toMatchObject({ allowed: true });
    expect(local(gw.admitNow('a')).degraded).toBeUndefined();
    await advance(500); // stale after 2Δ + timeout = 400 ms
    expect(gw.stats().storeDown).toBe(true);
    const during = Array.from({ length: 8 }, () => local(gw.admitNow('a')));
    expect(during.every((d) => d.degraded === true)).toBe(true);
    expect(during.filter((d) => d.allowed)).toHaveLength(5);
    expect(during.at(-1)?.retryAfterMs).toBeGreaterThan(0);
    const admitted = 5 + 5;
    store.mode = 'ok';
    await advance(400);
    expect(gw.stats()).toMatchObject({ storeDown: false, unsyncedAdmits: 0 });
    expect(count('a')).toBe(admitted);
    await advance(300); // later syncs push nothing again
    expect(count('a')).toBe(admitted);
    expect(local(gw.admitNow('a')).allowed).toBe(false); // back on the shared count: 10 of 10
    expect(local(gw.admitNow('a')).degraded).toBeUndefined();
    await gw.stop();
  });

  it('local: a fleet flooded through an outage admits at most K·ceil(L/K), and the store gets every admit once', async () => {
    const store = new TestAsyncStore(undefined, () => Date.now());
    const K = 3;
    const fleet = Array.from({ length: K }, (_, i) =>
      createAsyncGateway({
        id: `gw-${i}`,
        design: 'track-share',
        limit: 10,
        windowMs: 60_000,
        gateways: K,
        syncMs: 100,
        store,
        clock: () => Date.now(),
        random: () => i / K,
      }),
    );
    for (const g of fleet) g.start();
    await advance(100);
    store.mode = 'hang';
    await advance(600);
    let admitted = 0;
    for (let i = 0; i < 60; i++) {
      const d = local(fleet[i % K].admitNow('k'));
      expect(d.degraded).toBe(true);
      if (d.allowed) admitted++;
    }
    expect(admitted).toBe(K * Math.ceil(10 / K));
    store.mode = 'ok';
    await advance(500);
    expect(store.memory.countOf('k', fleet[0].options.policy, Date.now())).toBe(admitted);
    for (const g of fleet) expect(g.stats()).toMatchObject({ storeDown: false, unsyncedAdmits: 0 });
    await Promise.all(fleet.map((g) => g.stop()));
  });

  it('holds no state for keys whose outage admits aged out while the store is still away', async () => {
    const { gw, store } = setup({ design: 'shared-counter', windowMs: 1_000 });
    store.mode = 'fail';
    gw.start();
    await advance(450);
    for (let i = 0; i < 100; i++) local(gw.admitNow(`k${i}`));
    expect(gw.stats().unsyncedAdmits).toBe(100);
    await advance(1_200);
    expect(gw.stats()).toMatchObject({ unsyncedAdmits: 0, keys: 0, storeDown: true });
  });

  it('closed: rejects every request while the store is away, flagged degraded', async () => {
    const { gw, store } = setup({ design: 'shared-counter', failMode: 'closed' });
    store.mode = 'fail';
    gw.start();
    await advance(450);
    const d = local(gw.admitNow('a'));
    expect(d).toMatchObject({ allowed: false, degraded: true });
    expect(d.retryAfterMs).toBe(100);
    expect(gw.stats().decisions.degradedLimited).toBe(1);
  });

  it('closed, leases-ask: a request whose ask fails is rejected, and so are the requests waiting on it', async () => {
    // closed mode was tested only with shared-counter, central-log and leases: an ask's failure goes
    // through degraded() with the request counted by its limiter already, and a closed gateway that
    // skipped its fail mode there admitted it by the outage split (issue 32)
    const { gw, store, count } = setup({ design: 'leases-ask', failMode: 'closed', gateways: 1 });
    store.mode = 'fail';
    const d = await gw.admit('a');
    expect(d).toMatchObject({ allowed: false, degraded: true });
    expect(d.retryAfterMs).toBeGreaterThan(0);
    expect(store.calls.ask).toBe(1);
    // the store answers a sync again; then an ask hangs, and a second request waits on it: both are
    // rejected by the fail mode when the ask times out
    store.mode = 'ok';
    await gw.syncNow();
    store.mode = 'hang';
    const waiting = [gw.admit('b'), gw.admit('b')];
    await advance(200);
    const ds = await Promise.all(waiting);
    expect(store.calls.ask).toBe(2);
    expect(gw.stats().coalescedAsks).toBe(1);
    expect(ds.map((x) => [x.allowed, x.degraded])).toEqual([
      [false, true],
      [false, true],
    ]);
    expect(gw.stats().decisions).toMatchObject({ allowed: 0, degradedAllowed: 0, degradedLimited: 3 });
    // nothing reaches the store once it is back: nothing was admitted
    store.mode = 'ok';
    await advance(100);
    await gw.syncNow();
    expect(count('a') + count('b')).toBe(0);
  });

  it('open: admits every request while the store is away and pushes them afterwards', async () => {
    const { gw, store, count } = setup({ design: 'assume-others', failMode: 'open', limit: 4 });
    store.mode = 'fail';
    gw.start();
    await advance(450);
    const ds = Array.from({ length: 3 }, () => local(gw.admitNow('a')));
    expect(ds.every((d) => d.allowed && d.degraded)).toBe(true);
    store.mode = 'ok';
    await advance(100);
    expect(count('a')).toBe(3);
    expect(gw.stats().decisions).toMatchObject({ degradedAllowed: 3, allowed: 0 });
    await gw.stop();
  });

  it('a store slower than the timeout is an outage: late replies are dropped and the resend counts once', async () => {
    const { gw, store, count } = setup({ design: 'shared-counter' });
    const errors: string[] = [];
    gw.on('syncError', (e) => errors.push(e.reason));
    gw.start();
    await advance(50);
    for (let i = 0; i < 3; i++) local(gw.admitNow('a'));
    store.delayMs = 300; // applied at +150, answered at +300: after the 200 ms timeout
    await advance(400);
    expect(errors[0]).toBe('timeout');
    expect(count('a')).toBe(3); // the store did apply it
    const syncsBefore = gw.stats().syncs;
    await advance(100);
    expect(gw.stats().syncs).toBe(syncsBefore); // the late replies changed nothing
    store.delayMs = 0;
    await advance(300);
    expect(count('a')).toBe(3); // the resend was a replay, not a second push
    const seqs = store.applied.filter((r) => r.entries.some((e) => e.admits.length > 0)).map((r) => r.seq);
    expect(new Set(seqs).size).toBe(1);
    expect(seqs.length).toBeGreaterThan(1);
    expect(gw.stats().unsyncedAdmits).toBe(0);
    await gw.stop();
  });

  it('central-log: a request-path call that times out resolves by the fail mode within the timeout', async () => {
    const { gw, store, count } = setup({ design: 'central-log' });
    store.mode = 'hang';
    const p = gw.admit('a');
    let settled: Decision | undefined;
    void p.then((d) => {
      settled = d;
    });
    await advance(199);
    expect(settled).toBeUndefined();
    await advance(1);
    expect(settled).toMatchObject({ allowed: true, degraded: true });
    // the next request does not wait on a store known to be failing
    expect(local(gw.admitNow('a'))).toMatchObject({ allowed: true, degraded: true });
    expect(store.calls.logAdmit).toBe(1);
    store.mode = 'ok';
    await gw.syncNow();
    expect(count('a')).toBe(2);
    await expect(gw.admit('a')).resolves.toMatchObject({ allowed: true });
    expect(store.calls.logAdmit).toBe(2);
  });

  it('leases-ask, local: spends granted slots only and does not ask a failing store', async () => {
    const { gw, store } = setup({ design: 'leases-ask', gateways: 1, limit: 3 });
    await expect(gw.admit('a')).resolves.toMatchObject({ allowed: true }); // asked, granted
    const asks = store.calls.ask;
    store.mode = 'fail';
    await gw.syncNow(); // fails: the store is now known to be failing
    const d = await gw.admit('a');
    expect(d).toMatchObject({ allowed: false, degraded: true });
    expect(store.calls.ask).toBe(asks);
  });

  it('leases, local: a fleet flooded through an outage never exceeds L, and the store counts every admit', async () => {
    const store = new TestAsyncStore(undefined, () => Date.now(), 'caller');
    const fleet = [0, 1].map((i) =>
      createAsyncGateway({
        id: `gw-${i}`,
        design: 'leases',
        limit: 10,
        windowMs: 60_000,
        gateways: 2,
        syncMs: 100,
        store,
        clock: () => Date.now(),
        random: () => i / 2,
      }),
    );
    for (const g of fleet) g.start();
    let admitted = 0;
    const flood = (n: number) => {
      for (let i = 0; i < n; i++) if (local(fleet[i % 2].admitNow('k')).allowed) admitted++;
    };
    flood(4);
    await advance(100); // first grants
    flood(6);
    store.mode = 'hang';
    for (let t = 0; t < 8; t++) {
      await advance(100);
      flood(20);
    }
    expect(fleet.every((g) => g.stats().storeDown)).toBe(true);
    expect(admitted).toBeGreaterThan(0);
    expect(admitted).toBeLessThanOrEqual(10);
    store.mode = 'ok';
    await advance(500);
    expect(store.memory.countOf('k', fleet[0].options.policy, Date.now())).toBe(admitted);
    await Promise.all(fleet.map((g) => g.stop()));
  });

  it('stop() on a hung store gives up after the timeouts and says so', async () => {
    const { gw, store } = setup({ design: 'shared-counter' });
    gw.start();
    await advance(50);
    local(gw.admitNow('a'));
    store.mode = 'hang';
    await advance(100); // this sync hangs and times out: its batch is kept for a resend
    const stopped = gw.stop();
    await advance(1_000);
    await expect(stopped).resolves.toBe(false);
    expect(gw.running).toBe(false);
  });

  it('split never depends on the store, so it is never degraded', async () => {
    const { gw, store } = setup({ design: 'split' });
    store.mode = 'fail';
    gw.start();
    await advance(1_000);
    const d = local(gw.admitNow('a'));
    expect(d.degraded).toBeUndefined();
    expect(gw.stats().storeDown).toBe(false);
  });
});

describe('AsyncGateway: metrics and options', () => {
  it('exposes syncs, latency, failures, staleness, unsynced admits, keys and decisions in Prometheus format', async () => {
    const { gw } = setup({ design: 'shared-counter' });
    const registry = gw.registerMetrics(new Registry());
    local(gw.admitNow('a'));
    local(gw.admitNow('b'));
    await gw.syncNow();
    local(gw.admitNow('a'));
    const text = await registry.metrics();
    for (const line of [
      'fleetlimit_syncs_total{gateway="gw-1"} 1',
      'fleetlimit_sync_duration_seconds_count{gateway="gw-1"} 1',
      'fleetlimit_sync_failures_total{gateway="gw-1",reason="timeout"} 0',
      'fleetlimit_last_good_sync_age_seconds{gateway="gw-1"} 0',
      'fleetlimit_unsynced_admits{gateway="gw-1"} 1',
      'fleetlimit_keys{gateway="gw-1"} 2',
      'fleetlimit_decisions_total{gateway="gw-1",outcome="allowed",degraded="false"} 3',
      'fleetlimit_decisions_total{gateway="gw-1",outcome="allowed",degraded="true"} 0',
      'fleetlimit_store_down{gateway="gw-1"} 0',
    ]) {
      expect(text).toContain(line);
    }
  });

  it('serves several gateways from one registry, labelled by id', async () => {
    const a = setup({ design: 'split', id: 'gw-a' }).gw;
    const b = setup({ design: 'split', id: 'gw-b' }).gw;
    const registry = new Registry();
    a.registerMetrics(registry);
    b.registerMetrics(registry);
    local(b.admitNow('x'));
    const text = await registry.metrics();
    expect(text).toContain('fleetlimit_decisions_total{gateway="gw-a",outcome="allowed",degraded="false"} 0');
    expect(text).toContain('fleetlimit_decisions_total{gateway="gw-b",outcome="allowed",degraded="false"} 1');
  });

  it('unregisterMetrics takes one gateway off; a successor under the same id keeps its series', async () => {
    const old = setup({ design: 'split', id: 'gw-a' }).gw;
    const next = setup({ design: 'split', id: 'gw-a' }).gw;
    const other = setup({ design: 'split', id: 'gw-b' }).gw;
    const registry = new Registry();
    for (const g of [old, next, other]) g.registerMetrics(registry);
    await old.syncNow();
    await other.syncNow();
    old.unregisterMetrics(registry);
    expect(old.listenerCount('sync')).toBe(0);
    // the successor has made no sync yet: the latency series it shares with the old one stays
    expect(await registry.metrics()).toContain('fleetlimit_sync_duration_seconds_count{gateway="gw-a"} 1');
    next.unregisterMetrics(registry);
    const text = await registry.metrics();
    expect(text).not.toContain('gateway="gw-a"');
    expect(text).toContain('fleetlimit_sync_duration_seconds_count{gateway="gw-b"} 1');
    expect(text).toContain('fleetlimit_keys{gateway="gw-b"} 0');
  });

  it('emits sync and syncError events', async () => {
    const { gw, store } = setup({ design: 'shared-counter' });
    const seen: string[] = [];
    gw.on('sync', (e) => seen.push(`sync:${e.retry}`));
    gw.on('syncError', (e) => seen.push(`error:${e.reason}`));
    await gw.syncNow();
    store.mode = 'fail';
    await gw.syncNow();
    store.mode = 'ok';
    await gw.syncNow();
    expect(seen).toEqual(['sync:false', 'error:error', 'sync:true', 'sync:false']);
  });

  it('rejects bad options with an error naming the field', () => {
    const store = new TestAsyncStore();
    const base = {
      id: 'g',
      design: 'split',
      limit: 1,
      windowMs: 1000,
      gateways: 1,
      syncMs: 100,
      store,
    } as const;
    const field = (o: object) => {
      try {
        createAsyncGateway({ ...base, ...o } as AsyncGatewayOptions);
      } catch (e) {
        return e instanceof ConfigError ? e.field : String(e);
      }
      return 'no error';
    };
    expect(field({ failMode: 'maybe' })).toBe('failMode');
    expect(field({ storeTimeoutMs: 0 })).toBe('storeTimeoutMs');
    expect(field({ staleAfterMs: -1 })).toBe('staleAfterMs');
    expect(field({ staleAfterMs: 1001 })).toBe('staleAfterMs');
    expect(field({ clock: 5 })).toBe('clock');
    expect(field({ store: {} })).toBe('store');
    expect(field({ limit: 0 })).toBe('limit');
  });
});
