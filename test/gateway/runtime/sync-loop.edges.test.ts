import { EventEmitter } from 'node:events';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { DesignId, Policy } from '../../../src/config.js';
import { DESIGNS } from '../../../src/designs/index.js';
import { resolveGatewayOptions } from '../../../src/gateway/options.js';
import type { AsyncGatewayEvents } from '../../../src/gateway/runtime/async-gateway.js';
import { IdClaims } from '../../../src/gateway/runtime/duplicate-id.js';
import { KeyTable } from '../../../src/gateway/runtime/key-table.js';
import { LogVoids } from '../../../src/gateway/runtime/log-voids.js';
import { RefundQueue } from '../../../src/gateway/runtime/refund-queue.js';
import { ResetQueue } from '../../../src/gateway/runtime/reset-queue.js';
import { StoreClock } from '../../../src/gateway/runtime/store-clock.js';
import { StoreHealth } from '../../../src/gateway/runtime/store-health.js';
import { SyncLoop } from '../../../src/gateway/runtime/sync-loop.js';
import type {
  Heartbeat,
  HeartbeatReply,
  LogVoid,
  Refund,
  ResetKeyReply,
  ResetKeyRequest,
  SyncRequest,
  SyncResult,
} from '../../../src/store/contract.js';
import { TestAsyncStore } from '../../support/async-memory-store.js';

/**
 * SyncLoop's edges, one at a time with an in-memory store on fake timers (issue 32: the mutants of
 * sync-loop.ts that sync-loop.test.ts let through): the pipeline's bounds, the events and counters of
 * each failure, the side calls of a round (voids, refunds, resets, heartbeats), the horizon and the
 * part sizer fed from replies, the id claim, and what a stop waits for.
 */

const T0 = 1_000_000;
beforeEach(() => {
  vi.useFakeTimers({ now: T0 });
});
afterEach(() => {
  vi.useRealTimers();
});

/** A store that answers after `syncDelayMs`, records each sync, counts the syncs in flight at once, and can fail the side calls. */
class EdgeStore extends TestAsyncStore {
  readonly seen: SyncRequest[] = [];
  /** Syncs failing at once: by their index among every sync sent (0-based). */
  readonly failAt = new Set<number>();
  /** Syncs answered after this many ms (fake time). */
  syncDelayMs = 0;
  inflight = 0;
  maxInflight = 0;
  /** Replies' `now` replaced (NaN: a store that tells no time). */
  replyNow: number | null = null;
  /** previousIncarnation of every reply (undefined: the store's own). */
  previous: string | null | undefined = undefined;
  voidsSeen: LogVoid[][] = [];
  failVoids = false;
  refundsSeen: Refund[][] = [];
  failRefunds = false;
  resetsSeen: string[] = [];
  failResets = false;
  beatsSeen: Heartbeat[] = [];
  /** Heartbeats answered after this many ms; their count of live gateways. */
  beatDelayMs = 0;
  live = 3;

  override async sync(req: SyncRequest, now: number): Promise<SyncResult> {
    const i = this.seen.length;
    this.seen.push(req);
    if (this.failAt.has(i)) throw new Error(`lost ${i}`);
    this.inflight++;
    this.maxInflight = Math.max(this.maxInflight, this.inflight);
    try {
      if (this.syncDelayMs > 0) await new Promise((r) => setTimeout(r, this.syncDelayMs));
      const r = await super.sync(req, now);
      const out = this.replyNow === null ? r : { ...r, now: this.replyNow };
      return this.previous === undefined ? out : { ...out, previousIncarnation: this.previous };
    } finally {
      this.inflight--;
    }
  }

  override async voidLogAdmits(
    gatewayId: string,
    policy: Policy,
    voids: LogVoid[],
    now: number,
  ): Promise<void> {
    this.voidsSeen.push(voids);
    if (this.failVoids) throw new Error('voids lost');
    return super.voidLogAdmits(gatewayId, policy, voids, now);
  }

  async refundAdmits(_gatewayId: string, _policy: Policy, refunds: Refund[], _now: number): Promise<number> {
    this.refundsSeen.push(refunds);
    if (this.failRefunds) throw new Error('refunds lost');
    return refunds.length;
  }

  async resetKey(req: ResetKeyRequest, now: number): Promise<ResetKeyReply> {
    this.resetsSeen.push(req.key);
    if (this.failResets) throw new Error('reset lost');
    return { removed: 0, now };
  }

  override async heartbeat(beat: Heartbeat, now: number): Promise<HeartbeatReply> {
    this.beatsSeen.push(beat);
    if (this.beatDelayMs > 0) await new Promise((r) => setTimeout(r, this.beatDelayMs));
    return { live: this.live, now };
  }
}

interface LoopOptions {
  design?: DesignId;
  refunds?: RefundQueue;
  resets?: ResetQueue;
  resolveRefunds?: (now: number) => void;
  gateways?: number | 'auto';
  confirmed?: (own: number[]) => void;
  horizonMs?: number;
  gatewaysChanged?: () => void;
}

function loop(o: LoopOptions = {}) {
  const design = o.design ?? 'shared-counter';
  const options = resolveGatewayOptions(
    {
      id: 'g',
      design,
      limit: 100,
      windowMs: 10_000,
      gateways: o.gateways ?? 2,
      syncMs: 100,
      ...(o.horizonMs === undefined ? {} : { horizonMs: o.horizonMs }),
    },
    200,
  );
  const store = new EdgeStore();
  const clock = () => Date.now();
  const storeClock = new StoreClock(false);
  const d = DESIGNS[design];
  const table = new KeyTable({
    maxKeys: 100_000,
    policy: options.policy,
    holdsKeys: d.holdsKeys,
    create: (now) => d.create(options.fleet, now),
    busy: () => false,
    onFull: () => {},
  });
  const health = new StoreHealth(clock(), 1_000, false);
  const voids = new LogVoids(10);
  const claims = new IdClaims('g', 'g~1');
  const events = new EventEmitter<AsyncGatewayEvents>();
  const sync = new SyncLoop({
    id: 'g',
    incarnation: 'g~1',
    options,
    storeTimeoutMs: 200,
    store,
    clock,
    random: () => 0,
    storeClock,
    health,
    table,
    claims,
    voids,
    refunds: o.refunds ?? null,
    resets: o.resets ?? null,
    resolveRefunds: o.resolveRefunds,
    events,
    confirmed: o.confirmed ?? (() => {}),
    gatewaysChanged: o.gatewaysChanged,
  });
  const admit = (key: string) => {
    const now = storeClock.timeAt(clock());
    table.limiterOf(key, now)!.decide(now, 1);
  };
  const errors: AsyncGatewayEvents['syncError'][0][] = [];
  events.on('syncError', (e) => errors.push(e));
  const callErrors: AsyncGatewayEvents['storeCallError'][0][] = [];
  events.on('storeCallError', (e) => callErrors.push(e));
  return { sync, store, table, health, events, admit, errors, callErrors, voids, claims, options };
}

describe('SyncLoop: the parts pipeline', () => {
  it('has at most two parts in flight at once, and sends them in order', async () => {
    const { sync, store, admit } = loop();
    // 100 keys answered in 150 ms: parts of 33 keys from then on (a quarter of the timeout)
    for (let i = 0; i < 100; i++) admit(`k${i}`);
    store.syncDelayMs = 150;
    const first = sync.syncNow();
    await vi.advanceTimersByTimeAsync(150);
    expect(await first).toBe(true);
    expect(sync.partKeys()).toBeLessThan(100);
    for (let i = 0; i < 100; i++) admit(`k${i}`);
    const second = sync.syncNow();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(await second).toBe(true);
    const parts = store.seen.filter((r) => r.seq === 2);
    expect(parts.length).toBeGreaterThan(2);
    expect(store.maxInflight).toBe(2);
    expect(parts.flatMap((r) => r.entries.map((e) => e.key)).length).toBe(100);
  });

  it('after a part fails, no later part of the round is sent; the failed and unsent ones go next round, in order', async () => {
    const { sync, store, admit, errors } = loop();
    for (let i = 0; i < 100; i++) admit(`k${i}`);
    store.syncDelayMs = 150;
    const first = sync.syncNow();
    await vi.advanceTimersByTimeAsync(150);
    await first;
    const size = sync.partKeys();
    expect(size).toBe(33);
    for (let i = 0; i < 100; i++) admit(`k${i}`);
    // the round's second part (the first sent after the first round's one) fails at once; the first
    // is then still in flight, and none after it goes out
    store.failAt.add(2);
    const second = sync.syncNow();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(await second).toBe(false);
    expect(store.seen.length).toBe(3);
    expect(errors.map((e) => [e.seq, e.reason, e.keys])).toEqual([[2, 'error', size]]);
    // the next round resends all that was left, the failed part first
    const third = sync.syncNow();
    await vi.advanceTimersByTimeAsync(2_000);
    expect(await third).toBe(true);
    const resent = store.seen.slice(3).filter((r) => r.seq === 2);
    // (cut again to the sizer's current parts)
    expect(resent[0].entries.map((e) => e.key)).toEqual(
      store.seen[2].entries.slice(0, resent[0].entries.length).map((e) => e.key),
    );
    const keys = new Set(
      store.seen.slice(1).flatMap((r) => (r.seq === 2 ? r.entries.map((e) => e.key) : [])),
    );
    expect(keys.size).toBe(100);
  });

  it("a fault applying a part's reply counts as an error: its event, the part kept for the next round", async () => {
    let fail = true;
    const { sync, store, admit, errors } = loop({
      confirmed: () => {
        if (fail) throw new Error('apply failed');
      },
    });
    admit('a');
    admit('b');
    expect(await sync.syncNow()).toBe(false);
    expect(sync.syncErrors).toBe(1);
    expect(errors).toEqual([
      { seq: 1, keys: 2, latencyMs: 0, reason: 'error', error: new Error('apply failed') },
    ]);
    fail = false;
    expect(await sync.syncNow()).toBe(true);
    // resent, as a failed part is
    expect(store.seen.map((r) => [r.seq, r.entries.length]).slice(0, 2)).toEqual([
      [1, 2],
      [1, 2],
    ]);
    expect(store.seen.map((r) => r.seq)).toEqual([1, 1, 2]);
  });

  it('a failed round that cannot even sweep is reported from the timer as an error of seq 0 keys', async () => {
    const { sync, store, table, errors } = loop();
    store.failAt.add(0);
    table.sweep = () => Promise.reject(new Error('sweep broke'));
    sync.tick();
    expect(sync.busy).toBe(true);
    await vi.advanceTimersByTimeAsync(0);
    expect(sync.busy).toBe(false);
    expect(sync.syncErrors).toBe(2);
    expect(errors.map((e) => [e.seq, e.keys, e.latencyMs, e.reason, (e.error as Error).message])).toEqual([
      [1, 0, 0, 'error', 'lost 0'],
      [1, 0, 0, 'error', 'sweep broke'],
    ]);
  });
});

describe('SyncLoop: times and sizes from the replies', () => {
  it('reports the round trip of each answered and each timed-out part', async () => {
    const { sync, store, admit, events, errors } = loop();
    const latencies: number[] = [];
    events.on('sync', (e) => latencies.push(e.latencyMs));
    admit('a');
    store.syncDelayMs = 30;
    const p = sync.syncNow();
    await vi.advanceTimersByTimeAsync(30);
    expect(await p).toBe(true);
    expect(latencies).toEqual([30]);
    store.mode = 'hang';
    admit('a');
    const q = sync.syncNow();
    await vi.advanceTimersByTimeAsync(200);
    expect(await q).toBe(false);
    expect(errors.map((e) => [e.reason, e.latencyMs])).toEqual([['timeout', 200]]);
  });

  it('a part whose timer fires late (a busy event loop) gets its timeout once more: a reply then still lands', async () => {
    const { sync, store, admit, errors } = loop();
    admit('a');
    store.syncDelayMs = 300;
    const p = sync.syncNow();
    await vi.advanceTimersByTimeAsync(10);
    expect(store.seen.length).toBe(1);
    // the wall clock jumps 1 s ahead of the timers: the part's timer fires long past its deadline
    vi.setSystemTime(Date.now() + 1_000);
    await vi.advanceTimersByTimeAsync(290);
    expect(await p).toBe(true);
    expect(errors).toEqual([]);
  });

  it('a part that timed out sizes the next parts as if it took the whole timeout', async () => {
    const { sync, store, admit } = loop();
    for (let i = 0; i < 100; i++) admit(`k${i}`);
    expect(sync.partKeys()).toBe(1_000);
    store.mode = 'hang';
    const p = sync.syncNow();
    await vi.advanceTimersByTimeAsync(200);
    expect(await p).toBe(false);
    // 100 keys in 200 ms: a part of a quarter of the timeout holds 25
    expect(sync.partKeys()).toBe(25);
  });

  it('the horizon grows with slow sync cycles, but not from a store that tells no time', async () => {
    const slow = async (replyNow: number | null) => {
      const { sync, store, admit } = loop({ horizonMs: 150 });
      store.replyNow = replyNow;
      store.syncDelayMs = 150;
      admit('a');
      const p = sync.syncNow();
      await vi.advanceTimersByTimeAsync(150);
      expect(await p).toBe(true);
      store.syncDelayMs = 0;
      expect(await sync.syncNow()).toBe(true);
      return store.seen.map((r) => r.horizonMs);
    };
    // a cycle of 150 ms + Δ: the next horizon is twice that
    expect(await slow(null)).toEqual([150, 500]);
    expect(await slow(Number.NaN)).toEqual([150, 150]);
  });
});

describe('SyncLoop: the id claim', () => {
  it('a claim answered with another incarnation, after one of ours was answered, is a twin: reported', async () => {
    const { sync, store, events, claims } = loop();
    const twins: AsyncGatewayEvents['duplicateId'][0][] = [];
    events.on('duplicateId', (e) => twins.push(e));
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    store.previous = null;
    expect(await sync.syncNow()).toBe(true);
    expect(twins).toEqual([]);
    store.previous = 'g~other';
    expect(await sync.syncNow()).toBe(true);
    expect(twins).toEqual([{ id: 'g', incarnation: 'g~1', other: 'g~other' }]);
    expect(claims.duplicateSyncs).toBe(1);
    expect(warn).toHaveBeenCalledTimes(1);
    warn.mockRestore();
  });

  it("only a round's first request carries the claim", async () => {
    const { sync, store, admit } = loop();
    for (let i = 0; i < 100; i++) admit(`k${i}`);
    store.syncDelayMs = 150;
    const p = sync.syncNow();
    await vi.advanceTimersByTimeAsync(150);
    await p;
    // a round in parts: only its first part claims
    for (let i = 0; i < 100; i++) admit(`k${i}`);
    const q = sync.syncNow();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(await q).toBe(true);
    const round = store.seen.filter((r) => r.seq === 2);
    expect(round.length).toBeGreaterThan(1);
    expect(round.map((r) => r.incarnationOf)).toEqual(['g', ...round.slice(1).map(() => undefined)]);
  });
});

describe("SyncLoop: a round's side calls", () => {
  it('takes back failed central-log calls before the sync; a failure is reported, and they go again', async () => {
    const { sync, store, voids, callErrors } = loop();
    voids.add({ key: 'a', seq: voids.nextSeq(), cost: 1 });
    store.failVoids = true;
    expect(await sync.syncNow()).toBe(true);
    expect(store.voidsSeen.length).toBe(1);
    expect(callErrors).toEqual([
      { call: 'voidLogAdmits', key: 'a', reason: 'error', error: new Error('voids lost') },
    ]);
    store.failVoids = false;
    expect(await sync.syncNow()).toBe(true);
    expect(store.voidsSeen.length).toBe(2);
    expect(voids.pending).toBe(0);
    expect(callErrors.length).toBe(1);
    // nothing pending: no call
    expect(await sync.syncNow()).toBe(true);
    expect(store.voidsSeen.length).toBe(2);
  });

  it('sends refunds before the sync, asking the waiting ones first, only when some are pending; a failure is reported', async () => {
    const refunds = new RefundQueue(10);
    const resolved: number[] = [];
    const { sync, store, callErrors } = loop({ refunds, resolveRefunds: (now) => resolved.push(now) });
    expect(await sync.syncNow()).toBe(true);
    expect(resolved).toEqual([]);
    refunds.add('a', T0 - 10, 1);
    store.failRefunds = true;
    expect(await sync.syncNow()).toBe(true);
    expect(resolved).toEqual([T0]);
    expect(callErrors).toEqual([
      { call: 'refundAdmits', key: 'a', reason: 'error', error: new Error('refunds lost') },
    ]);
    store.failRefunds = false;
    expect(await sync.syncNow()).toBe(true);
    expect(store.refundsSeen.map((l) => l.map((r) => r.key))).toEqual([['a'], ['a']]);
    expect(refunds.pending).toBe(0);
    expect(callErrors.length).toBe(1);
  });

  it('a key whose reset waits stays out of the sync; the others go; a failed reset is reported', async () => {
    const resets = new ResetQueue(10);
    const { sync, store, admit, callErrors } = loop({ resets });
    admit('a');
    admit('b');
    void resets.add('a');
    store.failResets = true;
    expect(await sync.syncNow()).toBe(true);
    expect(callErrors).toEqual([
      { call: 'resetKey', key: 'a', reason: 'error', error: new Error('reset lost') },
    ]);
    expect(store.seen[0].entries.map((e) => e.key)).toEqual(['b']);
    store.failResets = false;
    expect(await sync.syncNow()).toBe(true);
    expect(store.resetsSeen).toEqual(['a', 'a']);
    expect(store.seen[1].entries.filter((e) => e.admits.length > 0).map((e) => e.key)).toEqual(['a']);
  });

  it('with a reset queue and none waiting, every key goes in the sync', async () => {
    const resets = new ResetQueue(10);
    const { sync, store, admit } = loop({ resets });
    admit('a');
    admit('b');
    expect(await sync.syncNow()).toBe(true);
    expect(store.seen[0].entries.map((e) => e.key)).toEqual(['a', 'b']);
    expect(store.resetsSeen).toEqual([]);
  });
});

describe('SyncLoop: lazy syncs', () => {
  it("a lazy design's quiet keys are read in turns, a round's budget at a time; a design that syncs every key reads them all", async () => {
    const round3 = async (design: DesignId, gateways: number) => {
      const { sync, store, admit } = loop({ design, gateways });
      // a part of one key in 45 ms (the fixed cost), then one of 101 in 150 ms: parts of 16 keys
      // from then on, and a round reads at most 4 parts' worth (64) of keys with nothing to push
      admit('x');
      store.syncDelayMs = 45;
      let p = sync.syncNow();
      await vi.advanceTimersByTimeAsync(45);
      expect(await p).toBe(true);
      for (let i = 0; i < 100; i++) admit(`k${i}`);
      store.syncDelayMs = 150;
      p = sync.syncNow();
      await vi.advanceTimersByTimeAsync(150);
      expect(await p).toBe(true);
      expect(sync.partKeys()).toBe(16);
      store.syncDelayMs = 0;
      expect(await sync.syncNow()).toBe(true);
      return store.seen.filter((r) => r.seq === 3).flatMap((r) => r.entries.map((e) => e.key)).length;
    };
    expect(await round3('shared-counter', 2)).toBe(64);
    expect(await round3('leases', 1)).toBe(101);
  });
});

describe('SyncLoop: the timer and stop', () => {
  it('a tick while a round is in flight is skipped: one round, one request', async () => {
    const { sync, store } = loop();
    store.syncDelayMs = 50;
    sync.tick();
    expect(sync.busy).toBe(true);
    sync.tick();
    await vi.advanceTimersByTimeAsync(50);
    expect(sync.busy).toBe(false);
    expect(store.seen.length).toBe(1);
  });

  it("stop waits for the round in flight before its last sync, which goes after that round's request", async () => {
    const { sync, store, admit } = loop();
    admit('a');
    store.syncDelayMs = 50;
    const round = sync.syncNow();
    const stopped = sync.stop();
    await vi.advanceTimersByTimeAsync(10);
    expect(store.seen.length).toBe(1);
    await vi.advanceTimersByTimeAsync(100);
    expect(await round).toBe(true);
    expect(await stopped).toBe(true);
    expect(store.seen.map((r) => r.seq)).toEqual([1, 2]);
  });
});

describe('SyncLoop: heartbeats (gateways auto)', () => {
  it("a round whose sync failed still waits for its heartbeat before it ends; K follows the beat's count", async () => {
    let changed = 0;
    const { sync, store, options } = loop({ gateways: 'auto', gatewaysChanged: () => changed++ });
    store.failAt.add(0);
    store.beatDelayMs = 40;
    let done = false;
    const p = sync.syncNow().then((ok) => {
      done = true;
      return ok;
    });
    await vi.advanceTimersByTimeAsync(20);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(20);
    expect(done).toBe(true);
    expect(await p).toBe(false);
    expect(store.beatsSeen.length).toBe(1);
    expect(changed).toBe(1);
    expect(options.fleet.gateways).toBe(3);
    expect(sync.heartbeatFailures).toBe(0);
  });
});
