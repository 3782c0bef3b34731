import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type AsyncGatewayOptions, createAsyncGateway } from '../../src/gateway/runtime/index.js';
import { withTimeout } from '../../src/gateway/runtime/timeout.js';
import { TestAsyncStore } from '../support/async-memory-store.js';

/**
 * Issue 32, item 1: a busy event loop was taken for a store outage. With Δ = 200 ms, 2,000 concurrent
 * gRPC calls on one full key (L = 100) made the sidecar admit 1,292–1,926 in fail mode `open`, with 0
 * sync failures; in `local` a 10,000-call burst over 100 keys rejected 297–4,773 honest requests.
 * Store health compared the time since the last good sync with staleAfterMs, so a sync timer that
 * could not run (the loop busy deciding the burst) looked like an absent store.
 *
 * The stall is played exactly: the gateway's local clock moves on while no timer fires (the fake
 * timers are not advanced), as it does for requests decided back to back in one busy stretch.
 */
const T0 = 1_000_000;
let local = T0;

beforeEach(() => {
  vi.useFakeTimers({ now: T0 });
  local = T0;
});
afterEach(() => {
  vi.useRealTimers();
});

function setup(o: Partial<AsyncGatewayOptions>) {
  // the store answers on the caller's clock: the one the gateway passes (its local one)
  const store = new TestAsyncStore();
  const gw = createAsyncGateway({
    id: 'gw-1',
    design: 'shared-counter',
    limit: 100,
    windowMs: 60_000,
    gateways: 4,
    syncMs: 200,
    storeTimeoutMs: 50,
    store,
    clock: () => local,
    random: () => 0,
    ...o,
  });
  return { gw, store };
}

/** Lets the fake timers (and the local clock with them) run `ms`. */
async function run(ms: number): Promise<void> {
  for (let i = 0; i < ms; i += 10) {
    local += 10;
    await vi.advanceTimersByTimeAsync(10);
  }
}

async function burst(gw: ReturnType<typeof setup>['gw'], keys: string[], each: number) {
  let allowed = 0;
  let degraded = 0;
  for (let i = 0; i < each; i++) {
    for (const key of keys) {
      const d = await gw.admit(key);
      if (d.allowed) allowed++;
      if (d.degraded === true) degraded++;
    }
  }
  return { allowed, degraded };
}

describe('regression: a busy event loop is not a store outage', () => {
  it('open: a stalled gateway keeps rejecting a full key (it admitted 1,292–1,926 of 2,000, L = 100)', async () => {
    const { gw } = setup({ failMode: 'open' });
    gw.start();
    await run(250);
    expect((await burst(gw, ['k'], 100)).allowed).toBe(100);
    await run(250);
    expect(gw.stats().syncs).toBeGreaterThan(0);
    // the loop is busy: 2 s pass on the local clock and no timer fires (no sync is even sent)
    local += 2_000;
    const r = await burst(gw, ['k'], 2_000);
    expect(r.degraded).toBe(0);
    expect(r.allowed).toBe(0);
    expect(gw.stats().storeDown).toBe(false);
    expect(gw.stats().syncTimeouts + gw.stats().syncErrors + gw.stats().syncRefusals).toBe(0);
    await gw.stop();
  });

  it('local: a stalled gateway admits honest requests on its view, not on L/K', async () => {
    const { gw } = setup({ failMode: 'local' });
    gw.start();
    await run(250);
    local += 2_000;
    const keys = Array.from({ length: 20 }, (_, i) => `k${i}`);
    // 100 per key: L each, none over; a degraded gateway would take L/K = 25 per key
    const r = await burst(gw, keys, 100);
    expect(r.degraded).toBe(0);
    expect(r.allowed).toBe(20 * 100);
    await gw.stop();
  });

  it('a store that does not answer still puts the gateway on its fail mode after staleAfterMs', async () => {
    const { gw, store } = setup({ failMode: 'open' });
    gw.start();
    await run(250);
    expect((await burst(gw, ['k'], 100)).allowed).toBe(100);
    await run(250);
    store.mode = 'hang';
    // staleAfterMs = 2Δ + timeout = 450 ms: the syncs sent meanwhile time out
    await run(600);
    expect(gw.stats().syncTimeouts).toBeGreaterThan(0);
    expect(gw.stats().storeDown).toBe(true);
    const r = await burst(gw, ['k'], 10);
    expect(r.degraded).toBe(10);
    store.mode = 'ok';
    await run(300);
    expect(gw.stats().storeDown).toBe(false);
  });

  it('a stall after which the store fails: down at the first failure, the view being older than staleAfterMs', async () => {
    const { gw, store } = setup({ failMode: 'open' });
    gw.start();
    await run(250);
    store.mode = 'fail';
    local += 2_000;
    // nothing asked yet: not down
    expect(gw.stats().storeDown).toBe(false);
    await run(200);
    expect(gw.stats().syncErrors).toBeGreaterThan(0);
    expect(gw.stats().storeDown).toBe(true);
  });

  it("a sync-path call whose timer fires late gets its timeout again from the stall's end", async () => {
    // after a busy stretch the timeout's timer and the reply's I/O are due together, and timers run
    // first in a turn of the loop. Played here: the wall clock jumps 2 s with no timer run (the
    // stall), then a timer set after the timeout's, due at the same instant, delivers the reply.
    let deliver: (v: string) => void = () => {};
    const reply = new Promise<string>((resolve) => {
      deliver = resolve;
    });
    const r = withTimeout(() => reply, 50, undefined, 'renew');
    vi.setSystemTime(Date.now() + 2_000);
    setTimeout(() => deliver('answer'), 50);
    await vi.advanceTimersByTimeAsync(60);
    expect(await r).toEqual({ ok: true, value: 'answer' });
    // the reply waits behind the burst a while longer: still within the renewed timeout
    let late: (v: string) => void = () => {};
    const slow = withTimeout(
      () =>
        new Promise<string>((resolve) => {
          late = resolve;
        }),
      50,
      undefined,
      'renew',
    );
    vi.setSystemTime(Date.now() + 2_000);
    await vi.advanceTimersByTimeAsync(80);
    late('later');
    expect(await slow).toEqual({ ok: true, value: 'later' });
    // a late call with no reply still times out, one timeout after the stall
    let settled = false;
    const none = withTimeout(() => new Promise<string>(() => {}), 50, undefined, 'renew');
    void none.then(() => {
      settled = true;
    });
    vi.setSystemTime(Date.now() + 2_000);
    await vi.advanceTimersByTimeAsync(60);
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(50);
    expect((await none).ok).toBe(false);
    // and one on time at its deadline, as before
    const onTime = withTimeout(() => new Promise<string>(() => {}), 50);
    await vi.advanceTimersByTimeAsync(50);
    expect((await onTime).ok).toBe(false);
  });

  it('a request-path call whose timer fires late takes a reply read in that loop turn, and waits no longer', async () => {
    let deliver: (v: string) => void = () => {};
    const reply = new Promise<string>((resolve) => {
      deliver = resolve;
    });
    const r = withTimeout(() => reply, 50);
    vi.setSystemTime(Date.now() + 2_000);
    setTimeout(() => deliver('answer'), 50);
    await vi.advanceTimersByTimeAsync(60);
    expect(await r).toEqual({ ok: true, value: 'answer' });
    let settled = false;
    const none = withTimeout(() => new Promise<string>(() => {}), 50);
    void none.then(() => {
      settled = true;
    });
    vi.setSystemTime(Date.now() + 2_000);
    await vi.advanceTimersByTimeAsync(51);
    expect(settled).toBe(true);
    expect((await none).ok).toBe(false);
  });
});
