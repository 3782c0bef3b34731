import { once } from 'node:events';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Redis, type RedisOptions } from 'ioredis';
import type { DesignId, Policy } from '../../src/config.js';
import { DESIGNS } from '../../src/designs/index.js';
import type { Decision } from '../../src/gateway/decision.js';
import {
  type AsyncGateway,
  type AsyncGatewayOptions,
  createAsyncGateway,
  type FailMode,
} from '../../src/gateway/runtime/index.js';
import { Random } from '../../src/sim/random.js';
import type { AsyncStore } from '../../src/store/contract.js';
import { RedisStore } from '../../src/store/redis/index.js';

/**
 * The ioredis options docs/production.md recommends for a gateway's connection ("Redis client options"):
 * fail fast while disconnected, never resend a command on a new connection, drop a connection that
 * stops answering, reconnect with a capped exponential backoff.
 */
/** The longest wait between two reconnect attempts of a gateway's connection, ms. */
export const RECONNECT_CAP_MS = 1000;

export function gatewayClientOptions(storeTimeoutMs = 200): RedisOptions {
  return {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    autoResendUnfulfilledCommands: false,
    socketTimeout: Math.max(1000, 5 * storeTimeoutMs),
    connectTimeout: 1000,
    retryStrategy: (times: number) => Math.min(50 * 2 ** Math.min(times, 10), RECONNECT_CAP_MS),
    lazyConnect: false,
  };
}

export function gatewayClient(url: string, storeTimeoutMs = 200): Redis {
  const c = new Redis(url, gatewayClientOptions(storeTimeoutMs));
  c.on('error', () => {});
  return c;
}

export async function ready(c: Redis): Promise<Redis> {
  if (c.status !== 'ready') await once(c, 'ready');
  return c;
}

export interface FleetSpec {
  design: DesignId;
  k: number;
  limit: number;
  windowMs: number;
  syncMs: number;
  prefix: string;
  url: string;
  failMode?: FailMode;
  storeTimeoutMs?: number;
  extra?: Partial<AsyncGatewayOptions>;
  /** Per gateway: its local clock (skew tests). */
  clocks?: (() => number)[];
  /** Wraps each gateway's RedisStore (recording, fault injection). */
  wrapStore?: (s: AsyncStore, i: number) => AsyncStore;
}

export interface Fleet {
  spec: FleetSpec;
  gws: AsyncGateway[];
  clients: Redis[];
  /** Per gateway: local time of each good sync (reconnect measurements). */
  syncsAt: number[][];
  syncErrors: number;
  /** Local times of failed syncs (timed out or errored). */
  syncErrorsAt: number[];
  /** Local times of syncs that failed with an error, not a timeout (a store that answered wrongly). */
  syncFaultsAt: number[];
  /** Local times of request-path store calls that failed (central-log's log, leases-ask's ask). */
  callFailuresAt: number[];
  /** Round trips of answered syncs, ms. */
  syncLatencies: number[];
  stop(): Promise<void>;
  disconnect(): void;
}

/** Starts the fleet once every connection is ready (with enableOfflineQueue: false a command sent before fails). */
export async function startFleetReady(spec: FleetSpec): Promise<Fleet> {
  const f = startFleet(spec, false);
  await Promise.all(f.clients.map(ready));
  for (const g of f.gws) g.start();
  return f;
}

export function startFleet(spec: FleetSpec, start = true): Fleet {
  const gws: AsyncGateway[] = [];
  const clients: Redis[] = [];
  const syncsAt: number[][] = [];
  const fleet: Fleet = {
    spec,
    gws,
    clients,
    syncsAt,
    syncErrors: 0,
    syncErrorsAt: [],
    syncFaultsAt: [],
    callFailuresAt: [],
    syncLatencies: [],
    async stop() {
      await Promise.all(gws.map((g) => g.stop()));
    },
    disconnect() {
      for (const c of clients) c.disconnect();
    },
  };
  for (let i = 0; i < spec.k; i++) {
    const client = gatewayClient(spec.url, spec.storeTimeoutMs ?? 200);
    clients.push(client);
    const gw = createAsyncGateway({
      id: `${spec.prefix}-gw-${i}`,
      design: spec.design,
      limit: spec.limit,
      windowMs: spec.windowMs,
      gateways: spec.k,
      syncMs: spec.syncMs,
      store: (spec.wrapStore ?? ((x) => x))(new RedisStore(client, { prefix: `${spec.prefix}:` }), i),
      storeTimeoutMs: spec.storeTimeoutMs ?? 200,
      failMode: spec.failMode ?? 'local',
      ...(spec.clocks?.[i] !== undefined ? { clock: spec.clocks[i] } : {}),
      ...spec.extra,
    });
    const at: number[] = [];
    syncsAt.push(at);
    gw.on('sync', (e) => {
      at.push(Date.now());
      fleet.syncLatencies.push(e.latencyMs);
    });
    gw.on('syncError', (e) => {
      fleet.syncErrors++;
      fleet.syncErrorsAt.push(Date.now());
      if (e.reason === 'error') fleet.syncFaultsAt.push(Date.now());
    });
    gw.on('storeCallError', () => fleet.callFailuresAt.push(Date.now()));
    gws.push(gw);
  }
  if (start) for (const g of gws) g.start();
  return fleet;
}

export interface Admit {
  /** Real (wall) time of the decision. */
  wall: number;
  /** The gateway's decision time (store clock). */
  t: number;
  gw: number;
  degraded: boolean;
}

export interface DriveResult {
  admitted: Admit[];
  requests: number;
  /** Decisions that came back degraded, allowed or not. */
  degraded: number;
  /** Slowest decision, ms from admitNow to the answer. */
  slowestMs: number;
  /** admitNow threw or its promise rejected. */
  failed: number;
  /** Wall times of degraded decisions. */
  degradedAt: number[];
  /** Decisions that waited on the store (admitNow returned a Promise). */
  viaStore: number;
  /**
   * The most a timer of this process fired late during the run, ms: the event loop's worst measured
   * delay + the monitor's resolution (a stall that began just after a sample shows one resolution
   * short). What CPU load does to every real-time bound below, measured in the same run.
   */
  lagMs: number;
}

/** Resolution of the event-loop monitor, ms. */
export const LAG_RESOLUTION_MS = 10;

/** Starts measuring how late this process's timers fire; `stop()` returns the worst lateness, ms. */
export function lagMonitor(): { stop(): number } {
  const h = monitorEventLoopDelay({ resolution: LAG_RESOLUTION_MS });
  h.enable();
  return {
    stop() {
      h.disable();
      return h.max / 1e6 + LAG_RESOLUTION_MS;
    },
  };
}

/**
 * The longest a decision can wait, ms, from what the runtime controls: a request-path store call
 * gives up at `storeTimeoutMs`, on a timer that fires at most `lagMs` late; a leases-ask request that
 * waited on another's ask may ask once more, while less than the timeout has passed (afterAsk), so two
 * timeouts; a design with no request path waits only for the first sync's reply (the store's clock),
 * one timeout. + 1 ms for the millisecond clocks the timeouts are judged on.
 */
export function decisionWaitBound(design: DesignId, storeTimeoutMs: number, lagMs: number): number {
  const calls = DESIGNS[design].requestPath === 'ask' ? 2 : 1;
  return calls * (storeTimeoutMs + lagMs) + 1;
}

/**
 * Poisson arrivals at `ratePerSec` for `durationMs` of real time (bounded by both), each to a
 * gateway picked at random; stops early when `stop()` returns true.
 */
export async function drive(
  gws: AsyncGateway[],
  key: string | (() => string),
  ratePerSec: number,
  durationMs: number,
  seed: number,
): Promise<DriveResult> {
  const rng = new Random(seed);
  const res: DriveResult = {
    admitted: [],
    requests: 0,
    degraded: 0,
    slowestMs: 0,
    failed: 0,
    degradedAt: [],
    viaStore: 0,
    lagMs: 0,
  };
  const lag = lagMonitor();
  const start = Date.now();
  const maxRequests = Math.ceil(ratePerSec * (durationMs / 1000) * 2) + 100;
  let next = start + rng.exponential(ratePerSec / 1000);
  const pending: Promise<void>[] = [];
  while (Date.now() - start < durationMs && res.requests < maxRequests) {
    const now = Date.now();
    while (next <= now && res.requests < maxRequests) {
      next += rng.exponential(ratePerSec / 1000);
      const i = Math.floor(rng.uniform() * gws.length);
      const gw = gws[i];
      res.requests++;
      const t0 = performance.now();
      const done = (d: Decision) => {
        res.slowestMs = Math.max(res.slowestMs, performance.now() - t0);
        if (d.degraded) {
          res.degraded++;
          res.degradedAt.push(Date.now());
        }
        if (d.allowed)
          res.admitted.push({ wall: Date.now(), t: gw.now(), gw: i, degraded: d.degraded === true });
      };
      try {
        // a gateway's first requests wait for the store's clock (one round trip at start; central-log's
        // do not, they go to the store anyway): not a store call on the request path
        const knewClock = gw.clockKnown || gw.options.design === 'central-log';
        const d = gw.admitNow(typeof key === 'string' ? key : key());
        if (d instanceof Promise && knewClock) res.viaStore++;
        if (d instanceof Promise)
          pending.push(
            d.then(done, () => {
              res.failed++;
            }),
          );
        else done(d);
      } catch {
        res.failed++;
      }
    }
    await new Promise((r) => setTimeout(r, 1));
  }
  await Promise.all(pending);
  res.lagMs = lag.stop();
  return res;
}

/** The most of `ts` in any half-open span of length w. */
export function worstWindow(ts: number[], w: number): number {
  const s = [...ts].sort((a, b) => a - b);
  let best = 0;
  let lo = 0;
  for (let hi = 0; hi < s.length; hi++) {
    while (s[hi] - s[lo] >= w) lo++;
    best = Math.max(best, hi - lo + 1);
  }
  return best;
}

/** The store's count for `key` now, read through a sync that pushes nothing. */
export async function storeCount(
  client: Redis,
  prefix: string,
  key: string,
  policy: Policy,
): Promise<number> {
  const store = new RedisStore(client, { prefix: `${prefix}:` });
  const r = await store.sync(
    {
      gatewayId: 'reader',
      seq: 1,
      policy,
      leaseTtlMs: 1000,
      horizonMs: 1,
      entries: [{ key, admits: [], read: true, release: false, ask: 0 }],
    },
    Date.now(),
  );
  return r.replies[0].count;
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** One store.sync call: when it was sent (local time) and how long until its promise settled, ms. */
export interface TimedSync {
  at: number;
  ms: number;
}

/**
 * Wraps a store (FleetSpec.wrapStore) to time every sync until its reply is read, also one that comes
 * after the gateway's timeout: what the store and this process's loop made of the round trip.
 */
export function timingSyncs(store: AsyncStore, into: TimedSync[]): AsyncStore {
  return new Proxy(store, {
    get(target, prop) {
      const v = Reflect.get(target, prop, target);
      if (prop !== 'sync' || typeof v !== 'function') return typeof v === 'function' ? v.bind(target) : v;
      return (...args: Parameters<AsyncStore['sync']>) => {
        const at = Date.now();
        const t0 = performance.now();
        const p = target.sync(...args);
        const done = () => into.push({ at, ms: performance.now() - t0 });
        p.then(done, done);
        return p;
      };
    },
  });
}

/**
 * Waits until every gateway of `fleets` has had a good sync at or after `since` (local time), or
 * `capMs` has passed: a reconnect measured from syncsAt needs the fleet still running when it comes,
 * however late the load made the restart. Returns at once when all have synced.
 */
export async function untilSyncedSince(fleets: Fleet[], since: number, capMs: number): Promise<void> {
  const synced = () => fleets.every((f) => f.syncsAt.every((s) => s.some((t) => t >= since)));
  const end = Date.now() + capMs;
  while (!synced() && Date.now() < end) await sleep(10);
}

/** Heap used after a full GC (vitest runs with --expose-gc), in MB. */
export function heapMB(): number {
  const g = (globalThis as { gc?: () => void }).gc;
  g?.();
  g?.();
  return process.memoryUsage().heapUsed / 2 ** 20;
}
