import { EventEmitter } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Registry } from 'prom-client';
import { requireCost, requireKey } from '../../config.js';
import { DESIGNS, type Design, touchesStore } from '../../designs/index.js';
import { ALLOW, DENY, type KeyLimiter } from '../../designs/key-limiter.js';
import type { AsyncStore } from '../../store/contract.js';
import type { Decision } from '../decision.js';
import { maxRequestCost, type ResolvedOptions } from '../options.js';
import type { AskCoalescer } from './ask-coalescer.js';
import type { AsyncGatewayEvents } from './async-gateway-events.js';
import { type AsyncGatewayOptions, type FailMode, resolveAsyncGatewayOptions } from './async-options.js';
import type { Decisions } from './decisions.js';
import type { IdClaims } from './duplicate-id.js';
import type { EarlySyncs } from './early-syncs.js';
import { degradedDecision, type FailModeContext } from './fail-modes.js';
import { buildGatewayParts } from './gateway-parts.js';
import type { KeyTable } from './key-table.js';
import type { LogVoids } from './log-voids.js';
import {
  type MetricsOptions,
  metricsHandler,
  registerGatewayMetrics,
  unregisterGatewayMetrics,
} from './metrics.js';
import { scanReset } from './reset-scan.js';
import { type RuntimeStats, sumByCause } from './runtime-stats.js';
import type { StoreClock } from './store-clock.js';
import type { StoreHealth } from './store-health.js';
import type { StoreRequests } from './store-requests.js';
import type { SyncLoop } from './sync-loop.js';
import type { TakeBacks } from './take-backs.js';

export type {
  AsyncGatewayEvents,
  DuplicateIdEvent,
  StoreCallErrorEvent,
  SyncErrorEvent,
  SyncEvent,
} from './async-gateway-events.js';
export { ASYNC_GATEWAY_FIELDS, type AsyncGatewayOptions, type FailMode } from './async-options.js';
export type { DecisionCounts, RuntimeStats } from './runtime-stats.js';

/**
 * A gateway over an asynchronous store (Redis): the same key state machines as `Gateway`, driven by
 * a sync timer, with a timeout on every store call and fail modes for when the store is away.
 *
 * The parts, each with the why of its own (their comments): SyncLoop runs the sync rounds (why a sync
 * goes in parts and why a failed part is resent with its seq: sync-parts.ts; incarnations: IdClaims);
 * StoreClock gives decision time on the store's clock; StoreRequests makes the request path's store
 * calls (leases-ask's one ask per key); degradedDecision is the fail modes; TakeBacks, refunds and
 * resets. This class holds the decision path and wires the parts together.
 *
 * Bounded memory while the store is away: nothing is queued per request. A limiter keeps only its
 * own admits since its last answered sync, and it admits only while its estimate of the window is
 * below L, so at most L of them count at any instant; it collects them only until the fail mode takes
 * over, at most staleAfterMs (<= W) plus one Δ (<= W) after the last answered sync, so at most 3L per
 * key. (An event loop too busy to run the sync timer is not an outage, see StoreHealth: the limiter
 * collects through the stall, still at most L per window, until the first tick after it syncs or
 * fails.) The degraded admits of the fail modes keep at most ceil(L/K) (`local`) or L (`open`) per key
 * that still count, dropping those that aged out (the store would ignore them), and keys with nothing
 * left are swept at each failed sync.
 */
export class AsyncGateway extends EventEmitter<AsyncGatewayEvents> {
  readonly id: string;
  readonly options: ResolvedOptions;
  readonly failMode: FailMode;
  readonly storeTimeoutMs: number;
  readonly staleAfterMs: number;
  readonly maxKeys: number;

  private readonly store: AsyncStore;
  /** A request costing more is never admitted (maxRequestCost; it follows K with gateways 'auto'). */
  private maxCost: number;
  /** The design's facts (DESIGNS), read here rather than from its name. */
  private readonly design: Design;
  /** touchesStore(design), read on every request: false (split) never syncs nor has a store to lose. */
  private readonly usesStore: boolean;
  private readonly clock: () => number;
  /** Each key's limiter and outage record, under maxKeys. */
  private readonly table: KeyTable;

  /** Who the store sees: the id and a random nonce, new at every start (see IdClaims, Incarnations). */
  readonly incarnation: string;
  /** Decision time: the local clock + the store's offset (see StoreClock). */
  private readonly storeClock: StoreClock;
  /** leases-ask: the ask in flight per key, and the requests waiting on it. */
  private readonly asks: AskCoalescer;
  /** The store's liveness: its last good reply, and whether the last call failed. */
  private readonly health: StoreHealth;
  /** This incarnation's claims on the id (see IdClaims). */
  private readonly claims: IdClaims;
  /** What the fail mode decides with while the store is away (see degradedDecision). */
  private readonly failModes: FailModeContext;
  /** central-log's logAdmit and leases-ask's ask, for requests that wait on the store (see StoreRequests). */
  private readonly requests: StoreRequests;
  /** The sync timer, the syncs and their parts (see SyncLoop). */
  private readonly loop: SyncLoop;
  /** Design.earlySyncs: syncs sent early, off the request path (null: the design has none). */
  readonly earlySyncs: EarlySyncs | null;
  /** Admits of held limiters the store has not confirmed yet. */
  private limiterUnsynced = 0;
  /** Decisions built and counted (see Decisions). */
  private readonly decisions: Decisions;
  /** central-log calls that failed or timed out: taken back at the store before the next sync. */
  private readonly voids: LogVoids;
  /** Refunds and resets: what this gateway takes back (see TakeBacks). */
  private readonly takeBacks: TakeBacks;

  constructor(opts: AsyncGatewayOptions) {
    super();
    const o = resolveAsyncGatewayOptions(opts);
    this.options = o.options;
    this.id = this.options.id;
    this.store = o.store;
    this.failMode = o.failMode;
    this.storeTimeoutMs = o.storeTimeoutMs;
    this.staleAfterMs = o.staleAfterMs;
    this.clock = o.clock;
    this.design = DESIGNS[this.options.design];
    this.usesStore = touchesStore(this.design);
    this.maxKeys = o.maxKeys;
    this.maxCost = maxRequestCost(this.options);
    const p = buildGatewayParts(o, this.design, {
      events: this,
      now: () => this.now(),
      storeDown: () => this.storeDown(),
      fromLimiter: (lim, allowed, now, cost) => this.fromLimiter(lim, allowed, now, cost),
      degraded: (key, now, cost, counted) => this.degraded(key, now, cost, counted),
      unconfirmed: (delta) => {
        this.limiterUnsynced += delta;
      },
      gatewaysChanged: () => {
        this.maxCost = maxRequestCost(this.options);
      },
    });
    this.incarnation = p.incarnation;
    this.storeClock = p.storeClock;
    this.health = p.health;
    this.voids = p.voids;
    this.table = p.table;
    this.asks = p.asks;
    this.claims = p.claims;
    this.takeBacks = p.takeBacks;
    this.loop = p.loop;
    this.decisions = p.decisions;
    this.requests = p.requests;
    this.failModes = p.failModes;
    this.earlySyncs = p.earlySyncs;
  }

  /** A store reply has told this gateway the store's clock: decisions no longer wait for it (see waitsForClock). */
  get clockKnown(): boolean {
    return this.storeClock.known;
  }

  /** Decision time: local clock + the store's offset, never going backwards. */
  now(): number {
    return this.storeClock.timeAt(this.clock());
  }

  /** A decision that waits for the store's clock: a sync's reply brings it; if that sync fails, it goes ahead. */
  private async afterClock(key: string, cost: number): Promise<Decision> {
    await this.loop.syncNow();
    this.storeClock.waiting = false;
    return this.admitNow(key, cost);
  }

  get keyCount(): number {
    return this.table.size;
  }

  /** Always a Promise; it resolves at once unless this request must wait on the store (central-log, leases-ask when out of slots). */
  admit(key: string, cost = 1): Promise<Decision> {
    try {
      return Promise.resolve(this.admitNow(key, cost));
    } catch (err) {
      return Promise.reject(err);
    }
  }

  /**
   * A Decision right away when no store call is needed, a Promise when the request waits on the
   * store (at most `storeTimeoutMs`; a leases-ask request that waited on another's ask and found its
   * grant used up may ask once more): central-log's log, leases-ask's ask, and, on a store with its
   * own clock, the first sync's reply that brings that clock (see waitsForClock). Throws only on bad
   * input (KeyError, ConfigError).
   */
  admitNow(key: string, cost = 1): Decision | Promise<Decision> {
    return this.decide(key, cost, this.asDecision);
  }

  /**
   * The same decision as `admitNow` (counted the same way), as a bare boolean: nothing is allocated
   * when the gateway decides locally. For callers that send no rate-limit headers.
   */
  allowNow(key: string, cost = 1): boolean | Promise<boolean> {
    return this.decide(key, cost, this.asBoolean);
  }

  /** admitNow's shape: the whole Decision. */
  private readonly asDecision: Shape<Decision> = {
    local: (lim, allowed, now, cost) => this.fromLimiter(lim, allowed, now, cost),
    of: (d) => d,
    later: (p) => p,
  };

  /** allowNow's shape: only whether it was allowed, so a local decision builds no Decision. */
  private readonly asBoolean: Shape<boolean> = {
    local: (_lim, allowed) => allowed,
    of: (d) => d.allowed,
    later: (p) => p.then(isAllowed),
  };

  /**
   * The one decision path of admitNow and allowNow; `shape` only says how the outcome is handed back.
   * A decision by the key's limiter is counted here and shaped from (limiter, verdict, now), so
   * allowNow's common case allocates nothing; the rarer ones (over the limit, degraded, no room,
   * waiting on the store) are Decisions, shaped after.
   */
  private decide<T>(key: string, cost: number, shape: Shape<T>): T | Promise<T> {
    requireKey(key);
    requireCost(cost);
    if (cost > this.maxCost) return shape.of(this.overLimit(key));
    if (this.storeClock.waiting) return shape.later(this.afterClock(key, cost));
    // one clock read per request: it is the costly part of a local decision (tens of ns)
    const local = this.clock();
    const now = this.storeClock.timeAt(local);
    const usesStore = this.usesStore;
    if (usesStore && this.offStore(key, local)) return shape.of(this.degraded(key, now, cost));
    const lim = this.table.limiterOf(key, now);
    if (lim === null) return shape.of(this.decisions.noRoom(false, now));
    const verdict = lim.decide(now, cost);
    if (this.earlySyncs !== null) this.earlySyncs.after(lim, now);
    if (verdict === ALLOW) {
      if (usesStore) this.limiterUnsynced += cost;
      this.decisions.counts.allowed++;
      return shape.local(lim, true, now, cost);
    }
    if (verdict === DENY) {
      this.decisions.counts.limited++;
      return shape.local(lim, false, now, cost);
    }
    return shape.later(this.requests.viaStore(key, lim, now, cost));
  }

  /**
   * A request that costs more than can ever be admitted (Decision.exceedsLimit): denied at once, in
   * every fail mode, without the store (no log entry, no ask) and without creating or counting into
   * the key's state, which is only read for the headers. No retryAfterMs: no retry can succeed.
   */
  private overLimit(key: string): Decision {
    const now = this.now();
    const lim = this.table.get(key) ?? this.design.create(this.options.fleet, now);
    return this.decisions.overLimit(lim, now);
  }

  /** This request is decided by the fail mode: the store is away, or the key still has outage admits to push. */
  private offStore(key: string, local: number): boolean {
    if (this.storeDown(local)) return true;
    // a key stays on the fallback until the store has its outage admits, or it would count without them
    if (this.table.hasOutageAdmits(key)) {
      // the store is back: push them now rather than at the next tick (and without one, for central-log)
      if (!this.health.failing) this.loop.tick();
      return true;
    }
    return false;
  }

  /** A decision made without the store, by the fail mode (see degradedDecision), counted. */
  private degraded(key: string, now: number, cost: number, counted = false): Decision {
    const d = degradedDecision(this.failModes, key, now, cost, counted);
    return d === null ? this.decisions.noRoom(true, now) : this.decisions.count(d, true);
  }

  /** The decision of the key's limiter (see Decisions.fromLimiter): the one place a verdict becomes a Decision. */
  private fromLimiter(lim: KeyLimiter, allowed: boolean, now: number, cost: number): Decision {
    return this.decisions.fromLimiter(lim, allowed, now, cost);
  }

  /** Whether this gateway can take admits back (`refund`): split, or a store with refundAdmits. */
  get refunds(): boolean {
    return !this.usesStore || typeof this.store.refundAdmits === 'function';
  }

  /**
   * Takes back the request `decision` admitted on `key` (its `cost`), once its response shows it
   * should not count (docs/decisions/0012-refunds.md): at once on this gateway while the admit is its
   * own (unpushed), in the fleet from the next sync round (central-log: at once). Returns false for a
   * decision that admitted nothing, a degraded one, one refunded already, or one aged out. Throws if
   * the store cannot take admits back (see `refunds`).
   */
  refund(key: string, decision: Decision, cost = 1): boolean {
    requireKey(key);
    requireCost(cost);
    if (!this.refunds) {
      throw new Error(
        `fleetlimit: refund: the store has no refundAdmits, so the ${this.options.design} design cannot take admits back`,
      );
    }
    return this.takeBacks.refund(key, decision, cost);
  }

  /** Whether this gateway can reset keys (`resetKey`): split, or a store with resetKey. */
  get resets(): boolean {
    return !this.usesStore || typeof this.store.resetKey === 'function';
  }

  /**
   * Resets `key` (express-rate-limit's resetKey; docs/decisions/0014-reset-key.md): this gateway's
   * unpushed admits of it go at once (a lease's slots return to its grant), the store's when the
   * reset lands at the start of the next sync round (central-log, or no sync timer: at once); grants
   * stay, and others' unpushed admits count once pushed. Resolves true once the store applied it
   * (split: at once), false if not (resent next round; or maxKeys resets wait: none). Throws if the
   * store cannot reset (see `resets`).
   */
  resetKey(key: string): Promise<boolean> {
    requireKey(key);
    if (!this.resets) {
      throw new Error(
        `fleetlimit: resetKey: the store has no resetKey, so the ${this.options.design} design cannot reset a key`,
      );
    }
    return this.takeBacks.reset(key);
  }

  /**
   * Resets every key of the policy (express-rate-limit's resetAll; docs/decisions/0015-reset-all.md):
   * the keys held here as `resetKey` does, and the store's through this call's instant, by a scan in
   * chunks (Store.resetScan; admits since keep counting). Resolves true once done, false if some part
   * failed (call again). Throws if the store cannot (no resetScan).
   */
  resetAll(): Promise<boolean> {
    const scans = !this.usesStore || this.store.resetScan !== undefined;
    if (!this.resets || !scans) throw new Error(`fleetlimit: resetAll: the store has no resetScan`);
    const call = { gatewayId: this.id, policy: this.options.policy, timeoutMs: this.storeTimeoutMs };
    const scan = (at: number) => scanReset(this.store, call, at, () => this.now()).then((r) => r.ok);
    return this.takeBacks.resetAll(this.usesStore ? scan : null);
  }

  /** Resets sent to the store and answered, and keys still waiting for theirs (stats). */
  get resetStats(): { sent: number; pending: number } {
    const q = this.takeBacks.resetQueue;
    return { sent: q.sent, pending: q.pending };
  }

  /** Refunds sent to the store and answered, and those still to send (stats). */
  get refundStats(): { sent: number; pending: number } {
    const q = this.takeBacks.refundQueue;
    return { sent: q.sent, pending: q.pending };
  }

  /** Whether decisions must not rely on the store now (see StoreHealth.down). */
  private storeDown(local = this.clock()): boolean {
    return this.health.down(local);
  }

  /** Starts the sync timer: every Δ, first at a random phase in [0, Δ) so the fleet's syncs spread out. */
  start(): void {
    this.loop.start();
  }

  get running(): boolean {
    return this.loop.running;
  }

  /**
   * One sync now, or the one already in flight. Resolves true when the store answered every batch it
   * was sent (a resend of a failed batch first, then the fresh one); never rejects on store errors.
   */
  syncNow(): Promise<boolean> {
    return this.loop.syncNow();
  }

  /**
   * Stops the timer, then one last sync that pushes every pending admit and asks for nothing, so the
   * store gets this gateway's unused lease slots back now rather than at the lease TTL. Resolves true
   * if the store answered; if not, the slots come back by themselves after the TTL.
   */
  stop(): Promise<boolean> {
    return this.loop.stop();
  }

  stats(): RuntimeStats {
    const t = this.clock();
    return {
      syncs: this.loop.syncs,
      syncTimeouts: this.loop.syncTimeouts,
      syncErrors: this.loop.syncErrors,
      syncRefusals: this.loop.syncRefusals,
      storeCallFailures: sumByCause(this.requests.failures),
      storeCallFailuresBy: { ...this.requests.failures },
      lastGoodAt: this.health.lastGoodAt,
      lastGoodAgeMs: this.health.ageMs(t),
      unsyncedAdmits: this.limiterUnsynced + this.table.unconfirmedOutageAdmits(),
      keys: this.table.size,
      decisions: { ...this.decisions.counts },
      offsetMs: this.storeClock.offsetMs,
      offsetErrorMs: this.storeClock.offsetErrorMs,
      coalescedAsks: this.asks.coalesced,
      evictions: this.table.evictions,
      keyCapRejections: this.decisions.keyCapRejections,
      storeDown: this.storeDown() && this.usesStore,
      pendingVoids: this.voids.pending,
      voidedCalls: this.voids.voided,
      duplicateId: this.claims.duplicate,
      duplicateIdSyncs: this.claims.duplicateSyncs,
      partKeys: this.loop.partKeys(),
      gateways: this.options.fleet.gateways,
      heartbeatFailures: this.loop.heartbeatFailures,
      earlySyncs: this.earlySyncs?.sent ?? 0,
      earlySyncsCapped: this.earlySyncs?.capped ?? 0,
    };
  }

  /** Registers this gateway's Prometheus metrics on `registry` (a new one if none is given). */
  registerMetrics(registry?: Registry, opts?: MetricsOptions): Registry {
    return registerGatewayMetrics(this, registry, opts);
  }

  /** Takes this gateway's metrics off `registry` (see unregisterGatewayMetrics): for a gateway stopped for good. */
  unregisterMetrics(registry: Registry): void {
    unregisterGatewayMetrics(this, registry);
  }

  /** A node:http handler serving this gateway's metrics (on `registry`, or a registry of its own). */
  metricsHandler(registry?: Registry): (req: IncomingMessage, res: ServerResponse) => void {
    return metricsHandler(this.registerMetrics(registry));
  }

  /** The key's state machine, if held (tests and tools). */
  limiterFor(key: string): KeyLimiter | undefined {
    return this.table.get(key);
  }
}

/** How admitNow and allowNow hand back one decision (see AsyncGateway's decide). */
interface Shape<T> {
  /** Decided by the key's limiter at `now` (already counted), for a request of `cost`. */
  local(lim: KeyLimiter, allowed: boolean, now: number, cost: number): T;
  of(d: Decision): T;
  later(p: Promise<Decision>): Promise<T>;
}

const isAllowed = (d: Decision): boolean => d.allowed;

export function createAsyncGateway(opts: AsyncGatewayOptions): AsyncGateway {
  return new AsyncGateway(opts);
}
