import { randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Registry } from 'prom-client';
import {
  ConfigChecks,
  ConfigError,
  MAX_TIMER_MS,
  requireCost,
  requireKey,
  requireKnownFields,
  requirePositiveFinite,
  requirePositiveInteger,
} from '../../config.js';
import { DESIGNS, type Design, touchesStore } from '../../designs/index.js';
import { ALLOW, DENY, type KeyLimiter, NEED_STORE } from '../../designs/key-limiter.js';
import { type AnyStore, asAsyncStore } from '../../store/async-adapter.js';
import type { AsyncStore, Store, SyncEntry, SyncRequest } from '../../store/contract.js';
import { Slicer } from '../../util/slicer.js';
import type { Decision } from '../decision.js';
import {
  type GatewayOptions,
  maxRequestCost,
  type ResolvedOptions,
  resolveGatewayOptions,
} from '../options.js';
import { AGAIN, AskCoalescer, type AskWaiter } from './ask-coalescer.js';
import { IdClaims } from './duplicate-id.js';
import { type Fallback, mergeAscending } from './fallback.js';
import { KeyTable } from './key-table.js';
import { LogVoids } from './log-voids.js';
import { type MetricsOptions, metricsHandler, registerGatewayMetrics } from './metrics.js';
import { StoreClock } from './store-clock.js';
import { StoreHealth } from './store-health.js';
import { withTimeout } from './timeout.js';

/**
 * How the gateway decides while the store is unreachable or slower than `storeTimeoutMs`.
 *
 * - `local` (default): the shared-counter family and central-log fall back to a split of the limit
 *   over the K gateways: each admits while its own degraded admits in the window stay below L/K. Across
 *   the fleet that is at most K·ceil(L/K) per window during the outage, plus whatever was admitted
 *   before it still counts. The lease designs keep their promise instead: a gateway spends only slots
 *   the store granted it, until they lapse (in practice until its next sync attempt, which hands them
 *   back), so they never exceed L even during an outage; a request that would ask the store is rejected.
 * - `closed`: reject every request.
 * - `open`: admit every request (no bound at all).
 *
 * `split` never talks to the store on the request path and its syncs carry nothing, so it is never degraded.
 * Every decision made this way carries `degraded: true`.
 */
export type FailMode = 'local' | 'closed' | 'open';
const FAIL_MODES: readonly FailMode[] = ['local', 'closed', 'open'];

export interface AsyncGatewayOptions extends GatewayOptions {
  /** The shared store: Redis (RedisStore), or the in-memory MemoryStore for one process, tests and demos. */
  store: AsyncStore | Store;
  /** @default 'local' */
  failMode?: FailMode;
  /**
   * A store call slower than this, in ms, counts as failed: syncs and request-path calls alike. At most
   * 2^31 − 1 (a longer Node timer fires at once). @default 200
   */
  storeTimeoutMs?: number;
  /**
   * The store counts as unreachable once the last good store reply is older than this, in ms; at most
   * windowMs, and at least syncMs + storeTimeoutMs (or windowMs, if that is less): see requireStaleAfterMs.
   * @default min(2·syncMs + storeTimeoutMs, windowMs)
   */
  staleAfterMs?: number;
  /** Local time in ms. Only the runtime reads it; the designs get `now` passed in. @default Date.now */
  clock?: () => number;
  /** Uniform in [0, 1): picks the sync timer's phase. @default Math.random */
  random?: () => number;
  /**
   * Most keys the gateway holds state for (key state + outage records), so a flood of distinct keys
   * cannot exhaust its memory. At the cap it drops idle state first, then the least recently used
   * keys whose admits the store already has, down to 7/8 of the cap; if every key still holds admits
   * the store has not confirmed, a request for a new key is rejected (and a sync is started) until a
   * sync frees some. A key dropped this way starts afresh on its next request, as a new key does.
   * @default 1_000_000
   */
  maxKeys?: number;
}

/** One sync request answered: a sync goes out in parts (see sendParts), each its own request. */
export interface SyncEvent {
  seq: number;
  /** Keys exchanged. */
  keys: number;
  latencyMs: number;
  /** A resend of a part whose earlier attempt failed. */
  retry: boolean;
}

export interface SyncErrorEvent {
  seq: number;
  keys: number;
  latencyMs: number;
  reason: 'timeout' | 'error';
  error?: unknown;
}

export interface StoreCallErrorEvent {
  call: 'logAdmit' | 'ask' | 'voidLogAdmits';
  key: string;
  reason: 'timeout' | 'error';
  error?: unknown;
}

/** Another live gateway syncs with this gateway's id (see AsyncGateway's class comment, Incarnations). */
export interface DuplicateIdEvent {
  id: string;
  /** This gateway's incarnation, and the other one the store recorded since this one's last sync. */
  incarnation: string;
  other: string;
}

export interface AsyncGatewayEvents {
  sync: [SyncEvent];
  syncError: [SyncErrorEvent];
  storeCallError: [StoreCallErrorEvent];
  duplicateId: [DuplicateIdEvent];
}

export interface DecisionCounts {
  allowed: number;
  limited: number;
  degradedAllowed: number;
  degradedLimited: number;
}

/** A snapshot of the runtime's counters (the Prometheus metrics read these). */
export interface RuntimeStats {
  /** Sync requests answered: a sync goes out in parts of `partKeys` keys, each one request. */
  syncs: number;
  /** Sync requests (parts) that timed out. */
  syncTimeouts: number;
  syncErrors: number;
  storeCallFailures: number;
  /** Local clock time of the last good store reply; NaN before the first. */
  lastGoodAt: number;
  /** Since the last good store reply, or since the gateway was created if there was none. */
  lastGoodAgeMs: number;
  /** Admits this gateway made that the store has not confirmed yet. */
  unsyncedAdmits: number;
  keys: number;
  decisions: DecisionCounts;
  /** Store time − local time, from the store reply with the shortest recent round trip. */
  offsetMs: number;
  /** How far offsetMs can be off: half that reply's round trip + the local clock's 1 ms tick (NaN before the first reply with a store time). */
  offsetErrorMs: number;
  /** Requests that found no slot while an ask for their key was in flight and waited on it instead of asking (leases-ask). */
  coalescedAsks: number;
  /** Keys dropped to stay under maxKeys (idle ones not included). */
  evictions: number;
  /** Requests for a new key rejected because every held key still had unconfirmed admits. */
  keyCapRejections: number;
  /** The store counts as unreachable now. */
  storeDown: boolean;
  /** central-log calls that failed or timed out and have not been taken back at the store yet. */
  pendingVoids: number;
  /** central-log calls taken back at the store (voidLogAdmits answered). */
  voidedCalls: number;
  /** The last answered sync found that another live gateway had synced with this id since this one's previous sync. */
  duplicateId: boolean;
  /** Answered syncs that found another live gateway with this id. */
  duplicateIdSyncs: number;
  /** Keys per sync request (part) the next sync is cut into, from the store's recent speed. */
  partKeys: number;
}

/**
 * One sync request (a part of a sync) and what answers go where. Kept when it fails, so the resend
 * carries the same seq and entries (split, if it timed out: per-key seqs make any split the same).
 */
interface Part {
  req: SyncRequest;
  owners: (KeyLimiter | null)[];
  fallbacks: (Fallback | null)[];
  /** Per entry, the limiter admits it pushes (fallback admits are counted by their Fallback). */
  own: number[];
  attempts: number;
  /** The last attempt timed out (its resend goes in smaller parts). */
  timedOut: boolean;
  /** Decision time when building its sync began. */
  builtFrom: number;
}

type Timer = { kind: 'timeout' | 'interval'; handle: ReturnType<typeof setTimeout> };

/**
 * A gateway over an asynchronous store (Redis): the same key state machines as `Gateway`, driven by
 * a sync timer, with a timeout on every store call and fail modes for when the store is away.
 *
 * Syncs in parts. A sync goes out as several requests (parts) with one seq, each small enough to be
 * answered well within storeTimeoutMs (sized from the store's recent speed, see partKeys), two in
 * flight at a time, entries that push admits first. A sync that outgrew its timeout used to fail for
 * good: resent whole, it never fit again, and the gateway stayed on its fail mode (issue 17, item 7).
 * The store's liveness (lastGoodAt, failing) follows the answered parts.
 *
 * Retried parts. The store applies a key's pushes at most once per (gateway, seq), checked per key.
 * When a part fails — a timeout or an error — the runtime cannot tell whether the store applied it (a
 * reply can be lost after the write). So the part is kept and resent first at the next tick with the
 * same seq and entries (halved if it timed out): if the first attempt landed, the store treats the
 * resend as a replay and pushes nothing again; if it did not, the resend applies it. Merging the
 * failed pushes into a new batch instead would be wrong either way (a new seq counts them twice if
 * they landed, the old seq drops the new ones). Its keys stay out of newer syncs until it is answered
 * (`unresolved`), so a key never sees a newer seq before the resend of an older one. The limiters are
 * not told the sync failed (no `syncFailed`): their pushes stay in flight, still counted as their
 * own, until the resend is answered. Admits made meanwhile go out in a later sync, with a new seq.
 *
 * Incarnations. The store knows this gateway as `incarnation`, its id and a random nonce drawn at
 * start; seqs count from 1 under it. A seq from the clock (as before) put a restart on a clock behind,
 * or two live gateways with one id, below the seqs the store had applied: every sync refused as stale,
 * or taken for a replay and dropped (issue 17, item 8). A round's first request claims the id at the
 * store (SyncRequest.incarnationOf); a claim that finds another incarnation there, once one of ours
 * was answered, means another live gateway uses this id: reported, never silent (noteClaim).
 *
 * Bounded memory while the store is away: nothing is queued per request. A limiter keeps only its
 * own admits since its last answered sync, and it admits only while its estimate of the window is
 * below L, so at most L of them count at any instant; it collects them only until the fail mode takes
 * over, at most staleAfterMs (<= W) plus one Δ (<= W) after the last answered sync, so at most 3L per
 * key. The degraded admits of the fail modes keep at most ceil(L/K) (`local`) or L (`open`) per key
 * that still count, dropping those that aged out (the store would ignore them), and keys with nothing
 * left are swept at each failed sync.
 *
 * Time: decisions run on local time + the store's offset, never going backwards, so every gateway
 * ages its window on the store's clock. Each store reply carries the store's now; the offset is store
 * now − the local midpoint of the call, taken from the reply with the shortest round trip among the
 * last OFFSET_SAMPLES (as NTP's clock filter does): it is off by at most half that round trip + the
 * local clock's tick, and a reply that waited behind a stalled event loop — whose midpoint is late —
 * is not the one used. A grant is spent only until its lapse less that error (withLapseMargin).
 *
 * leases-ask: one ask in flight per key. A request that finds no slot while an ask for its key is
 * out waits for that ask and decides on what it brought, instead of asking too: the simulator's store
 * answers at once, so there the next request simply finds the grant; asking again would cost a round
 * trip each and ask for the same slots twice. The wait is bounded by that ask's store timeout; a
 * waiter that finds the grant used up by the others asks once more (see AskCoalescer.follow), so a leases-ask
 * request waits on the store at most about twice storeTimeoutMs.
 */
export class AsyncGateway extends EventEmitter<AsyncGatewayEvents> {
  readonly id: string;
  readonly options: ResolvedOptions;
  readonly failMode: FailMode;
  readonly storeTimeoutMs: number;
  readonly staleAfterMs: number;
  readonly maxKeys: number;

  private readonly store: AsyncStore;
  /** A request costing more is never admitted (maxRequestCost). */
  private readonly maxCost: number;
  /** The design's facts (DESIGNS), read here rather than from its name. */
  private readonly design: Design;
  /** touchesStore(design), read on every request: false (split) never syncs nor has a store to lose. */
  private readonly usesStore: boolean;
  private readonly clock: () => number;
  private readonly random: () => number;
  /** Each key's limiter and outage record, under maxKeys. */
  private readonly table: KeyTable;

  /**
   * Who the store sees: this gateway's id and a random nonce, new at every start (see the class
   * comment, Incarnations). Seqs count from 1 under it, never from a clock.
   */
  readonly incarnation: string;
  private seq = 0;
  /** Decision time: the local clock + the store's offset (see StoreClock). */
  private readonly storeClock: StoreClock;
  /** leases-ask: the ask in flight per key, and the requests waiting on it. */
  private readonly asks = new AskCoalescer();
  /** The store's liveness: its last good reply, and whether the last call failed. */
  private readonly health: StoreHealth;
  /** The last sync attempt's start, on decision time (for Retry-After). */
  private lastSyncStartAt = Number.NaN;
  /** Parts of earlier syncs not answered yet, resent first, in order (see sendParts). */
  private frozen: Part[] = [];
  /** The keys of `frozen`: not put in a newer sync until their part is answered. */
  private unresolved = new Set<string>();
  /** Recent parts' round trips (ms) and keys, a ring: sizes the parts (see partKeys). */
  private readonly partSamples: { ms: number; keys: number }[] = [];
  private partNext = 0;
  /** This incarnation's claims on the id (see IdClaims). */
  private readonly claims: IdClaims;
  private inflight: Promise<boolean> | null = null;
  private timer: Timer | null = null;
  private limiterUnsynced = 0;
  private readonly counts: DecisionCounts = {
    allowed: 0,
    limited: 0,
    degradedAllowed: 0,
    degradedLimited: 0,
  };
  private syncs = 0;
  private syncTimeouts = 0;
  private syncErrors = 0;
  private storeCallFailures = 0;
  private keyCapRejections = 0;
  /** central-log calls that failed or timed out: taken back at the store before the next sync. */
  private readonly voids: LogVoids;
  /**
   * Store time of the first answer of the last round (runSync); NaN if a part of it failed (the cycle
   * that follows is an outage's, not a sync's). A key answered in that round's first part may be in
   * this round's last: its next reply comes that long after.
   */
  private prevRoundReply = Number.NaN;
  /** The same for the round running now. */
  private roundReply = Number.NaN;
  private roundFailed = false;
  /** The last CYCLE_SAMPLES sync cycles, ms: from a reply's store time to the end of applying the next reply, a ring. */
  private readonly cycles: number[] = [];
  private cycleNext = 0;

  constructor(opts: AsyncGatewayOptions) {
    super();
    if (opts === null || typeof opts !== 'object') throw new ConfigError('options', 'must be an object');
    // every bad option is reported at once (ConfigErrors); a relation once its fields are valid
    const c = new ConfigChecks();
    requireKnownFields('', opts as unknown as Record<string, unknown>, ASYNC_GATEWAY_FIELDS, c);
    const storeTimeoutMs = c.check(() => requireTimeoutMs('storeTimeoutMs', opts.storeTimeoutMs ?? 200));
    const options = c.check(() => resolveGatewayOptions(opts, storeTimeoutMs ?? 0));
    const store = c.check(() => requireStore(opts.store));
    const failMode = c.check(() => requireFailMode(opts.failMode ?? 'local'));
    const staleAfterMs = c.check(() => requireStaleAfterMs(opts.staleAfterMs, options, storeTimeoutMs));
    const clock = c.check(() => requireFunction('clock', opts.clock ?? Date.now));
    const random = c.check(() => requireFunction('random', opts.random ?? Math.random));
    const maxKeys = c.check(() => requirePositiveInteger('maxKeys', opts.maxKeys ?? 1_000_000));
    c.done();
    // every check passed: none of these is undefined
    this.options = options as ResolvedOptions;
    this.id = this.options.id;
    this.store = store as AsyncStore;
    this.failMode = failMode as FailMode;
    this.storeTimeoutMs = storeTimeoutMs as number;
    this.staleAfterMs = staleAfterMs as number;
    this.clock = clock as () => number;
    this.design = DESIGNS[this.options.design];
    this.usesStore = touchesStore(this.design);
    this.storeClock = new StoreClock(waitsForClock(this.store, this.design));
    this.random = random as () => number;
    this.maxKeys = maxKeys as number;
    this.maxCost = maxRequestCost(this.options);
    this.health = new StoreHealth(this.clock(), this.staleAfterMs, this.design.requestPath !== null);
    this.voids = new LogVoids(this.maxKeys);
    const { design } = this;
    const { fleet, policy } = this.options;
    this.table = new KeyTable({
      maxKeys: this.maxKeys,
      policy,
      holdsKeys: design.holdsKeys,
      create: (now) => design.create(fleet, now),
      busy: (key) => this.asks.has(key),
      onFull: () => {
        if (this.timer !== null) this.tick();
      },
    });
    this.incarnation = `${this.id}~${randomBytes(9).toString('base64url')}`;
    this.claims = new IdClaims(this.id, this.incarnation);
  }

  /** A store reply has told this gateway the store's clock: decisions no longer wait for it (see waitsForClock). */
  get clockKnown(): boolean {
    return this.storeClock.known;
  }

  /** Decision time: local clock + the store's offset, never going backwards. */
  now(): number {
    return this.storeClock.timeAt(this.clock());
  }

  /** Decision time for a sync's own bookkeeping (see StoreClock.bookAt). */
  private bookNow(): number {
    return this.storeClock.bookAt(this.clock());
  }

  /** A decision that waits for the store's clock: a sync's reply brings it; if that sync fails, it goes ahead. */
  private async afterClock(key: string, cost: number): Promise<Decision> {
    await this.syncNow();
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
    requireKey(key);
    requireCost(cost);
    if (cost > this.maxCost) return this.overLimit(key);
    if (this.storeClock.waiting) return this.afterClock(key, cost);
    // one clock read per request: it is the costly part of a local decision (tens of ns)
    const local = this.clock();
    const now = this.storeClock.timeAt(local);
    const usesStore = this.usesStore;
    if (usesStore && this.offStore(key, local)) return this.degraded(key, now, cost);
    const lim = this.table.limiterOf(key, now);
    if (lim === null) return this.noRoom(false, now);
    const verdict = lim.decide(now, cost);
    if (verdict === ALLOW) {
      if (usesStore) this.limiterUnsynced += cost;
      return this.count(this.fromLimiter(lim, true, now), false);
    }
    if (verdict === DENY) return this.count(this.fromLimiter(lim, false, now), false);
    return this.viaStore(key, lim, now, cost);
  }

  /**
   * The same decision as `admitNow` (counted the same way), as a bare boolean: nothing is allocated
   * when the gateway decides locally. For callers that send no rate-limit headers.
   */
  allowNow(key: string, cost = 1): boolean | Promise<boolean> {
    requireKey(key);
    requireCost(cost);
    if (cost > this.maxCost) return this.overLimit(key).allowed;
    if (this.storeClock.waiting) return this.afterClock(key, cost).then((d) => d.allowed);
    const local = this.clock();
    const now = this.storeClock.timeAt(local);
    const usesStore = this.usesStore;
    if (usesStore && this.offStore(key, local)) return this.degraded(key, now, cost).allowed;
    const lim = this.table.limiterOf(key, now);
    if (lim === null) return this.noRoom(false, now).allowed;
    const verdict = lim.decide(now, cost);
    if (verdict === ALLOW) {
      if (usesStore) this.limiterUnsynced += cost;
      this.counts.allowed++;
      return true;
    }
    if (verdict === DENY) {
      this.counts.limited++;
      return false;
    }
    return this.viaStore(key, lim, now, cost).then((d) => d.allowed);
  }

  /**
   * A request that costs more than can ever be admitted (Decision.exceedsLimit): denied at once, in
   * every fail mode, without the store (no log entry, no ask) and without creating or counting into
   * the key's state, which is only read for the headers. No retryAfterMs: no retry can succeed.
   */
  private overLimit(key: string): Decision {
    const now = this.now();
    const held = this.table.get(key);
    const lim = held ?? this.design.create(this.options.fleet, now);
    const resetAt = lim.resetAt(now);
    const resetMs = Number.isFinite(resetAt) ? Math.max(0, resetAt - now) : 0;
    const d: Decision = {
      allowed: false,
      remaining: lim.remaining(now),
      resetMs,
      at: now,
      exceedsLimit: true,
    };
    return this.count(d, false);
  }

  /** This request is decided by the fail mode: the store is away, or the key still has outage admits to push. */
  private offStore(key: string, local: number): boolean {
    if (this.storeDown(local)) return true;
    // a key stays on the fallback until the store has its outage admits, or it would count without them
    if (this.table.hasOutageAdmits(key)) {
      // the store is back: push them now rather than at the next tick (and without one, for central-log)
      if (!this.health.failing) this.tick();
      return true;
    }
    return false;
  }

  /** A request for a new key while the key cap is full of keys with unconfirmed admits. */
  private noRoom(degraded: boolean, now: number): Decision {
    this.keyCapRejections++;
    const d: Decision = {
      allowed: false,
      remaining: 0,
      resetMs: 0,
      retryAfterMs: Math.max(1, Math.ceil(this.options.fleet.syncMs)),
      at: now,
    };
    if (degraded) d.degraded = true;
    return this.count(d, degraded);
  }

  private async viaStore(key: string, lim: KeyLimiter, now: number, cost: number): Promise<Decision> {
    const { policy } = this.options;
    if (this.design.requestPath === 'log') {
      const t0 = this.clock();
      const call = { gatewayId: this.incarnation, seq: this.voids.nextSeq() };
      const r = await withTimeout(
        () => this.store.logAdmit(key, policy, now, cost, call),
        this.storeTimeoutMs,
      );
      const t1 = this.clock();
      if (!r.ok) {
        // it may have landed, or land later: the decision is made without it, so the store must
        // not count it (taken back before the next sync; see voidLogAdmits)
        this.voids.add({ key, seq: call.seq, cost });
        return this.storeCallFailed('logAdmit', key, r, cost);
      }
      this.health.answered(t1);
      this.storeClock.learn(r.value.now, now, t0, t1);
      // The admit's instant is the store's stamp, the time the log holds it at and ages it out by:
      // the decision clock after the reply is later by the reply's way back, and a window judged on
      // that saw admits over L that the store never counted (regression:
      // test/regressions/central-log-at-is-gateway-clock.test.ts).
      const at = Number.isFinite(r.value.now) ? r.value.now : this.now();
      return this.count(this.fromLimiter(lim, lim.onLogReply(r.value, at, cost), at), false);
    }
    const asking = this.asks.inFlight(key);
    if (asking === undefined) return this.ask(key, lim, now, cost);
    return this.asks.follow(key, asking, this.waiter(key, lim, cost, this.clock()));
  }

  /**
   * A request that found no slot while an ask for its key was in flight: it waits for that ask (which
   * settles within its store timeout) and decides on what it brought. If other requests used the grant
   * up, it asks (or waits) again, while less than storeTimeoutMs has passed since it first waited;
   * then it is rejected.
   */
  private waiter(key: string, lim: KeyLimiter, cost: number, since: number): AskWaiter<Decision> {
    let now = 0;
    return {
      ask: () => this.ask(key, lim, now, cost),
      retry: () => {
        now = this.now();
        // the ask failed (or another call did meanwhile): decide as that ask's request did
        if (this.storeDown()) return this.degraded(key, now, cost, true);
        const v = lim.decideAgain!(now, cost);
        if (v === ALLOW) {
          this.limiterUnsynced += cost;
          return this.count(this.fromLimiter(lim, true, now), false);
        }
        if (v === NEED_STORE && this.clock() - since < this.storeTimeoutMs) return AGAIN;
        return this.count(this.fromLimiter(lim, false, now), false);
      },
    };
  }

  /** leases-ask's request-path ask; requests for the key that find no slot meanwhile wait on it. */
  private async ask(key: string, lim: KeyLimiter, now: number, cost: number): Promise<Decision> {
    const { policy, fleet } = this.options;
    const settle = this.asks.open(key);
    try {
      const t0 = this.clock();
      const ask = lim.askSize(cost);
      // tagged with the last sync built: that sync and its resends never hand this grant back
      const seq = this.seq;
      const r = await withTimeout(
        () => this.store.ask(this.incarnation, key, policy, fleet.leaseTtlMs, ask, now, seq),
        this.storeTimeoutMs,
      );
      const t1 = this.clock();
      if (!r.ok) return this.storeCallFailed('ask', key, r, cost);
      this.health.answered(t1);
      this.storeClock.learn(r.value.now, now, t0, t1);
      const at = this.now();
      // A sync built while the ask was out hands back what the gateway held then: the limiter spends
      // none of this grant (regression: test/regressions/leases-ask-ask-and-sync-cross.test.ts). A resend of a
      // sync built before the ask does not take it back (the grant's tag; regression:
      // test/regressions/leases-ask-resent-sync-releases-later-ask.test.ts).
      // (A sync built for this key since the ask went out releases the parts tagged below its seq,
      // this ask's among them: the limiter spends none of it, by the sync it recorded in askSize;
      // regression: test/regressions/leases-ask-coalesced-request-spends-released-ask.test.ts.)
      const reply = this.storeClock.withLapseMargin(r.value);
      const allowed = lim.onAskReply(reply, at, cost);
      if (allowed) this.limiterUnsynced += cost;
      return this.count(this.fromLimiter(lim, allowed, at), false);
    } finally {
      // the waiters run after this request has applied the reply (or failed)
      settle();
    }
  }

  private storeCallFailed(
    call: 'logAdmit' | 'ask',
    key: string,
    r: { timedOut: boolean; error?: unknown },
    cost: number,
  ): Decision {
    this.health.failing = true;
    this.storeCallFailures++;
    this.emit('storeCallError', { call, key, reason: r.timedOut ? 'timeout' : 'error', error: r.error });
    // an ask's request went through its limiter's decide already, which must not count it twice
    return this.degraded(key, this.now(), cost, call === 'ask');
  }

  /**
   * A decision made without the store, by the fail mode. `counted`: the request already went through
   * its limiter's decide (it waited on another request's ask), so the limiter must not count it again.
   */
  private degraded(key: string, now: number, cost: number, counted = false): Decision {
    const { policy, fleet } = this.options;
    if (this.failMode === 'closed') {
      return this.count(
        { allowed: false, remaining: 0, resetMs: 0, retryAfterMs: fleet.syncMs, degraded: true, at: now },
        true,
      );
    }
    if (this.failMode === 'local' && this.design.grants) {
      // spend granted slots only: the store may already have handed anything else to another gateway
      const lim = this.table.limiterOf(key, now);
      if (lim === null) return this.noRoom(true, now);
      const allowed = (counted ? lim.decideAgain!(now, cost) : lim.decide(now, cost)) === ALLOW;
      if (allowed) this.limiterUnsynced += cost;
      return this.count({ ...this.fromLimiter(lim, allowed, now), degraded: true }, true);
    }
    const fb = this.table.outageOf(key, now);
    if (fb === null) {
      // open admits regardless; what it cannot record is not pushed (open has no bound anyway)
      if (this.failMode === 'open') {
        return this.count({ allowed: true, remaining: 0, resetMs: 0, degraded: true, at: now }, true);
      }
      return this.noRoom(true, now);
    }
    const share = policy.limit / fleet.gateways;
    if (this.failMode === 'open') {
      // beyond L per window the store's count would say nothing more: keep the queue bounded
      fb.record(now, cost, policy.limit);
      const resetAt = fb.resetAt(now);
      const resetMs = Number.isFinite(resetAt) ? Math.max(0, resetAt - now) : 0;
      const remaining = Math.max(0, policy.limit - fb.live(now));
      return this.count({ allowed: true, remaining, resetMs, degraded: true, at: now }, true);
    }
    const live = fb.live(now);
    const allowed = live + cost - 1 < share;
    if (allowed) fb.record(now, cost, Number.POSITIVE_INFINITY);
    const resetAt = fb.resetAt(now);
    const resetMs = Number.isFinite(resetAt) ? Math.max(0, resetAt - now) : 0;
    const d: Decision = {
      allowed,
      remaining: Math.max(0, Math.ceil(share - fb.live(now))),
      resetMs,
      degraded: true,
      at: now,
    };
    if (!allowed) d.retryAfterMs = Math.max(1, Math.ceil(Math.min(resetMs, fleet.syncMs)));
    return this.count(d, true);
  }

  private fromLimiter(lim: KeyLimiter, allowed: boolean, now: number): Decision {
    const resetAt = lim.resetAt(now);
    const remaining = lim.remaining(now);
    const resetMs = Number.isFinite(resetAt) ? Math.max(0, resetAt - now) : 0;
    // each shape built whole: adding retryAfterMs afterwards costs a second allocation
    if (allowed) return { allowed, remaining, resetMs, at: now };
    return { allowed, remaining, resetMs, at: now, retryAfterMs: this.retryAfter(lim, now) };
  }

  private retryAfter(lim: KeyLimiter, now: number): number {
    const change = lim.nextChangeAt(now);
    const { fleet, policy } = this.options;
    const last = this.lastSyncStartAt;
    const nextSync =
      Number.isNaN(last) || last + fleet.syncMs <= now ? now + fleet.syncMs : last + fleet.syncMs;
    // a design that never syncs (central-log, split) learns nothing at one
    const at = this.design.syncs === 'never' ? change : Math.min(change, nextSync);
    return Number.isFinite(at) ? Math.max(1, Math.ceil(at - now)) : Math.ceil(policy.windowMs);
  }

  private count(d: Decision, degraded: boolean): Decision {
    const c = this.counts;
    if (degraded) {
      if (d.allowed) c.degradedAllowed++;
      else c.degradedLimited++;
    } else if (d.allowed) c.allowed++;
    else c.limited++;
    return d;
  }

  /** Whether decisions must not rely on the store now (see StoreHealth.down). */
  private storeDown(local = this.clock()): boolean {
    return this.health.down(local);
  }

  /** Starts the sync timer: every Δ, first at a random phase in [0, Δ) so the fleet's syncs spread out. */
  start(): void {
    if (this.timer !== null) return;
    const { syncMs } = this.options.fleet;
    const phase = this.random() * syncMs;
    const first = setTimeout(() => {
      this.tick();
      const every = setInterval(() => this.tick(), syncMs);
      every.unref?.();
      this.timer = { kind: 'interval', handle: every };
    }, phase);
    first.unref?.();
    this.timer = { kind: 'timeout', handle: first };
  }

  get running(): boolean {
    return this.timer !== null;
  }

  private tick(): void {
    // one sync in flight at a time: a tick that finds one running skips
    if (this.inflight !== null) return;
    this.syncNow().catch((error: unknown) => {
      this.syncErrors++;
      this.emit('syncError', { seq: this.seq, keys: 0, latencyMs: 0, reason: 'error', error });
    });
  }

  /**
   * One sync now, or the one already in flight. Resolves true when the store answered every batch it
   * was sent (a resend of a failed batch first, then the fresh one); never rejects on store errors.
   */
  syncNow(): Promise<boolean> {
    if (this.inflight !== null) return this.inflight;
    const p = this.runSync(false).finally(() => {
      this.inflight = null;
    });
    this.inflight = p;
    return p;
  }

  /**
   * Stops the timer, then one last sync that pushes every pending admit and asks for nothing, so the
   * store gets this gateway's unused lease slots back now rather than at the lease TTL. Resolves true
   * if the store answered; if not, the slots come back by themselves after the TTL.
   */
  async stop(): Promise<boolean> {
    if (this.timer !== null) {
      if (this.timer.kind === 'timeout') clearTimeout(this.timer.handle);
      else clearInterval(this.timer.handle);
      this.timer = null;
    }
    while (this.inflight !== null) await this.inflight;
    const p = this.runSync(true).finally(() => {
      this.inflight = null;
    });
    this.inflight = p;
    return p;
  }

  /**
   * One round: the parts of earlier syncs still unanswered first, then a new sync of every other key.
   * If nothing at all was answered, the store is away: no new sync is built (it would only time out
   * too), and idle keys are swept instead. Resolves true when every part sent was answered.
   */
  private async runSync(final: boolean): Promise<boolean> {
    if (this.voids.pending > 0) await this.sendVoids();
    this.claims.startRound(final);
    this.prevRoundReply = this.roundFailed ? Number.NaN : this.roundReply;
    this.roundReply = Number.NaN;
    this.roundFailed = false;
    let answered = 0;
    if (this.frozen.length > 0) {
      const parts = this.resendParts(this.frozen);
      this.frozen = [];
      const r = await this.sendParts(parts);
      answered += r.answered;
      if (r.answered === 0) {
        this.freeze(r.left);
        await this.sweep();
        return false;
      }
      this.freeze(r.left);
    }
    const r = await this.sendParts(this.cutParts(await this.buildBatch(final)));
    answered += r.answered;
    this.freeze(this.frozen.concat(r.left));
    if (answered === 0) await this.sweep();
    return this.frozen.length === 0;
  }

  /** Keeps unanswered parts for the next round; their keys stay out of newer syncs until then. */
  private freeze(parts: Part[]): void {
    this.frozen = parts;
    this.unresolved = new Set();
    for (const p of parts) for (const e of p.req.entries) this.unresolved.add(e.key);
  }

  /**
   * Takes back the central-log calls that failed or timed out, before the sync that brings the
   * gateway back to the store: a call that landed anyway stops counting, and one still on its way is
   * refused when it lands. What the gateway admitted meanwhile reaches the store through its outage
   * records, so the store ends up counting exactly what was admitted. Kept for the next sync if the
   * store does not answer (the sync goes ahead regardless).
   */
  private async sendVoids(): Promise<void> {
    const voids = this.voids.take();
    const r = await withTimeout(
      () => this.store.voidLogAdmits(this.incarnation, this.options.policy, voids, this.bookNow()),
      this.storeTimeoutMs,
    );
    const failed = this.voids.settled(voids, r);
    if (failed === null) return;
    this.emit('storeCallError', {
      call: 'voidLogAdmits',
      key: failed.key,
      reason: failed.timedOut ? 'timeout' : 'error',
      error: failed.error,
    });
  }

  /**
   * How far ahead the next sync's replies list expiries. A key ages its view with them until the next
   * reply is applied; past the horizon it keeps the rest of the count, erring towards rejecting. A sync
   * of many keys (thousands of an attacker's, say) takes longer to build, run and apply than Δ, and
   * a fixed horizon of a few Δ then runs out before the next reply lands: every key, the real ones
   * too, rejects admits it would take with a timely view. So the horizon is at least twice the longest
   * of the last few cycles (see noteCycle), up to W (where everything is listed), and never below
   * `horizonMs`. A longer list is only more of the truth: it
   * never admits what the store would refuse.
   */
  private horizonMs(): number {
    const { fleet, policy } = this.options;
    let longest = 0;
    for (const c of this.cycles) if (c > longest) longest = c;
    return Math.max(fleet.horizonMs, Math.min(policy.windowMs, Math.ceil(CYCLE_MARGIN * longest)));
  }

  /**
   * A cycle sample: from the last round's first reply's store time to now, when this part applied its reply; and at
   * least this sync's own duration (build, round trip, apply) plus Δ, the wait for the next tick: what
   * the next cycle will take if the next sync is as slow. That one is known from the first sync on, so
   * a key table that grows at once (an attack from the start) has its horizon sized by its first sync.
   */
  private noteCycle(replyNow: number, builtFrom: number): void {
    if (!Number.isFinite(replyNow)) return;
    const now = this.bookNow();
    const next = now - builtFrom + this.options.fleet.syncMs;
    const cycle = Number.isNaN(this.prevRoundReply) ? next : Math.max(next, now - this.prevRoundReply);
    const ring = this.cycles;
    if (ring.length < CYCLE_SAMPLES) ring.push(cycle);
    else ring[this.cycleNext] = cycle;
    this.cycleNext = (this.cycleNext + 1) % CYCLE_SAMPLES;
    if (Number.isNaN(this.roundReply)) this.roundReply = replyNow;
  }

  /**
   * While the store is away no batch is built, and building one is what normally drops idle keys; without
   * this, a long outage with many distinct keys would hold every key it ever saw.
   */
  private async sweep(): Promise<void> {
    await this.table.sweep(this.bookNow());
  }

  /**
   * Walks every held key in slices (Slicer), so a large key table never holds the event loop.
   * Requests decided between slices are safe: a key already walked keeps its new admits for the next
   * batch (its limiter holds them apart from the ones in flight), a key not yet walked sends them in
   * this one, and a new key joins the walk at the end of the map. What would break it is a key moving
   * behind the walk and being met twice, so keys are not reordered meanwhile (`building`).
   *
   * Keys of unanswered parts (`unresolved`) are left out: their pushes are still in flight, and a
   * newer seq must not reach a key before the resend of the older one. Entries that push admits come
   * first, so the parts sent first (and most likely answered) carry them.
   */
  private async buildBatch(final: boolean): Promise<Part> {
    const now = this.bookNow();
    // numbered before any key is walked: an ask sent from here on carries this seq, so this sync
    // (which releases the grants tagged below it) never hands back a grant the limiter may spend
    const seq = ++this.seq;
    const pushing = new Entries();
    const rest = new Entries();
    const add = (e: SyncEntry, owner: KeyLimiter | null, fb: Fallback | null, own: number): void => {
      // the last sync asks for nothing: a stopping gateway hands every slot back
      (e.admits.length > 0 ? pushing : rest).add(final && e.ask > 0 ? { ...e, ask: 0 } : e, owner, fb, own);
    };
    const slicer = new Slicer();
    const taken = new Set<Fallback>();
    const unresolved = this.unresolved;
    const skip = unresolved.size > 0;
    const table = this.table;
    table.building = true;
    try {
      for (const [key, lim] of table.limiters) {
        if (slicer.due()) await slicer.pause();
        if (skip && unresolved.has(key)) continue;
        const own = lim.syncEntry(key, now);
        const fb = table.fallbacks.get(key) ?? null;
        const extra = fb === null ? EMPTY : fb.take(now);
        if (fb !== null) taken.add(fb);
        if (own === null && extra.length === 0) {
          if (lim.isIdle(now)) table.limiters.delete(key);
          continue;
        }
        const e: SyncEntry =
          own === null
            ? { key, admits: extra, read: false, release: false, ask: 0 }
            : extra.length === 0
              ? own
              : // a copy: the limiter's in-flight list must not learn about admits it did not make
                { ...own, admits: mergeAscending(own.admits, extra) };
        add(e, own === null ? null : lim, fb, own === null ? 0 : own.admits.length);
      }
    } finally {
      table.building = false;
    }
    // outage records of keys without a limiter; one taken above is in this batch already, even if
    // its key has left `keys` since
    for (const [key, fb] of table.fallbacks) {
      if (slicer.due()) await slicer.pause();
      if (table.limiters.has(key) || taken.has(fb) || (skip && unresolved.has(key))) continue;
      const extra = fb.take(now);
      if (extra.length > 0) add({ key, admits: extra, read: false, release: false, ask: 0 }, null, fb, 0);
      else if (fb.isIdle(now)) table.fallbacks.delete(key);
    }
    const { policy, fleet } = this.options;
    pushing.append(rest);
    // an empty sync still goes out: it is the heartbeat that tells the runtime the store is back
    return {
      req: {
        gatewayId: this.incarnation,
        seq,
        policy,
        leaseTtlMs: fleet.leaseTtlMs,
        horizonMs: this.horizonMs(),
        entries: pushing.entries,
      },
      owners: pushing.owners,
      fallbacks: pushing.fallbacks,
      own: pushing.own,
      attempts: 0,
      timedOut: false,
      builtFrom: now,
    };
  }

  /**
   * Keys per sync request, so a part takes about PART_SHARE of storeTimeoutMs: a part's round trip is
   * taken as a fixed cost (the shortest recent part under MIN_SAMPLE_KEYS keys, else 0) plus a time
   * per key (the mean of recent parts' past that cost, over parts of at least MIN_SAMPLE_KEYS keys; a
   * timed-out part counts as taking the whole timeout, and its resend is halved). Before any
   * measurement, FIRST_PART_KEYS.
   */
  private partKeys(): number {
    const ring = this.partSamples;
    // the fixed cost from small parts only: parts of similar sizes would pass their whole time for it
    let fixed = Number.POSITIVE_INFINITY;
    let shortest = Number.POSITIVE_INFINITY;
    for (const x of ring) {
      if (x.keys < MIN_SAMPLE_KEYS && x.ms < fixed) fixed = x.ms;
      if (x.ms < shortest) shortest = x.ms;
    }
    fixed = Number.isFinite(fixed) ? Math.min(fixed, shortest) : 0;
    let perKey = 0;
    let largest = 0;
    let n = 0;
    for (const x of ring) {
      if (x.keys < MIN_SAMPLE_KEYS) continue;
      perKey += (x.ms - fixed) / x.keys;
      largest = Math.max(largest, x.keys);
      n++;
    }
    if (n === 0) return FIRST_PART_KEYS;
    perKey /= n;
    // no time beyond the fixed cost seen yet: grow by doubling, not at once to the cap
    if (perKey === 0) return Math.min(MAX_PART_KEYS, 2 * largest);
    const keys = Math.floor((PART_SHARE * this.storeTimeoutMs - fixed) / perKey);
    return Math.max(MIN_PART_KEYS, Math.min(MAX_PART_KEYS, keys));
  }

  private notePart(ms: number, keys: number): void {
    const ring = this.partSamples;
    if (ring.length < PART_SAMPLES) ring.push({ ms, keys });
    else ring[this.partNext] = { ms, keys };
    this.partNext = (this.partNext + 1) % PART_SAMPLES;
  }

  /** Cuts a sync into parts of at most partKeys() keys, in order; entries of one key stay together. */
  private cutParts(whole: Part): Part[] {
    return splitPart(whole, this.partKeys());
  }

  /**
   * Unanswered parts for their resend: no larger than parts are now, a timed-out one halved (once:
   * the halves have not timed out at their size), and neighbours of one seq joined again up to that
   * size, so a long outage does not leave the table in ever smaller pieces.
   */
  private resendParts(parts: Part[]): Part[] {
    const size = this.partKeys();
    const out: Part[] = [];
    const halves = new Set<Part>();
    for (const p of parts) {
      const n = p.req.entries.length;
      if (p.timedOut) {
        for (const q of splitPart(p, Math.min(size, Math.ceil(n / 2)))) {
          q.timedOut = false;
          halves.add(q);
          out.push(q);
        }
        continue;
      }
      for (const q of n <= size ? [p] : splitPart(p, size)) {
        const last = out.length > 0 ? out[out.length - 1] : null;
        const joins =
          last !== null &&
          !halves.has(last) &&
          last.req.seq === q.req.seq &&
          last.req.entries.length + q.req.entries.length <= size;
        if (joins) joinPart(last, q);
        else out.push(q);
      }
    }
    return out;
  }

  /**
   * Sends parts as a pipeline: up to PIPELINE_PARTS in flight, each with its own timeout, in order.
   * After a part fails the rest are not sent (the store is likely away or slow); they and the failed
   * ones are `left`, for the next round, in their order.
   */
  private async sendParts(parts: Part[]): Promise<{ answered: number; left: Part[] }> {
    const ok = new Array<boolean>(parts.length).fill(false);
    const running = new Set<Promise<void>>();
    let stopped = false;
    let answered = 0;
    for (let i = 0; i < parts.length && !stopped; i++) {
      while (running.size >= PIPELINE_PARTS) await Promise.race(running);
      if (stopped) break;
      const settle = (r: boolean) => {
        running.delete(p);
        ok[i] = r;
        if (r) answered++;
        else stopped = true;
      };
      // a fault while applying a reply keeps the part for its resend, like a failed call
      const p: Promise<void> = this.send(parts[i]).then(settle, (error: unknown) => {
        this.syncErrors++;
        this.emit('syncError', {
          seq: parts[i].req.seq,
          keys: parts[i].req.entries.length,
          latencyMs: 0,
          reason: 'error',
          error,
        });
        settle(false);
      });
      running.add(p);
    }
    await Promise.all(running);
    return { answered, left: parts.filter((_, i) => !ok[i]) };
  }

  private async send(part: Part): Promise<boolean> {
    const retry = part.attempts > 0;
    part.attempts++;
    // the round's first request carries this incarnation's claim on the id (one small store write)
    const claim = this.claims.take();
    const req = claim ? { ...part.req, incarnationOf: this.id } : part.req;
    const t0 = this.clock();
    const sentNow = this.bookNow();
    this.lastSyncStartAt = sentNow;
    const r = await withTimeout(() => this.store.sync(req, sentNow), this.storeTimeoutMs);
    const t1 = this.clock();
    const keys = req.entries.length;
    let failure: { reason: 'timeout' | 'error'; error?: unknown } | null = null;
    if (!r.ok) failure = { reason: r.timedOut ? 'timeout' : 'error', error: r.error };
    else if (r.value.replies.length !== keys) {
      const error = new Error(`store answered ${r.value.replies.length} replies to a sync of ${keys} keys`);
      failure = { reason: 'error', error };
    }
    if (failure !== null || !r.ok) {
      // kept: the resend carries this very seq and these entries (see the class comment)
      part.timedOut = failure?.reason === 'timeout';
      this.roundFailed = true;
      this.health.failing = true;
      const reason = failure?.reason ?? 'error';
      if (reason === 'timeout') {
        this.syncTimeouts++;
        this.notePart(this.storeTimeoutMs, keys);
      } else this.syncErrors++;
      this.emit('syncError', { seq: req.seq, keys, latencyMs: t1 - t0, reason, error: failure?.error });
      return false;
    }
    part.timedOut = false;
    this.notePart(t1 - t0, keys);
    this.storeClock.learn(r.value.now, sentNow, t0, t1);
    const now = this.bookNow();
    const { replies } = r.value;
    const slicer = new Slicer();
    for (let i = 0; i < keys; i++) {
      if (slicer.due()) await slicer.pause();
      const lim = part.owners[i];
      const key = req.entries[i].key;
      if (lim !== null) {
        lim.applySync(this.storeClock.withLapseMargin(replies[i]), now);
        this.table.dropIfIdle(key, lim, now);
      }
      const fb = part.fallbacks[i];
      if (fb !== null) {
        fb.confirm();
        this.table.dropOutageIfIdle(key, fb, now);
      }
    }
    for (const n of part.own) this.limiterUnsynced -= n;
    this.table.full = false;
    this.noteCycle(r.value.now, part.builtFrom);
    this.health.answered(t1);
    if (claim) this.noteClaim(r.value.previousIncarnation);
    this.syncs++;
    this.emit('sync', { seq: req.seq, keys, latencyMs: t1 - t0, retry });
    return true;
  }

  /** The store's answer to this incarnation's claim on the id: the incarnation it replaced (see IdClaims). */
  private noteClaim(previous: string | null | undefined): void {
    const other = this.claims.answered(previous);
    if (other !== null) this.emit('duplicateId', { id: this.id, incarnation: this.incarnation, other });
  }

  stats(): RuntimeStats {
    const t = this.clock();
    return {
      syncs: this.syncs,
      syncTimeouts: this.syncTimeouts,
      syncErrors: this.syncErrors,
      storeCallFailures: this.storeCallFailures,
      lastGoodAt: this.health.lastGoodAt,
      lastGoodAgeMs: this.health.ageMs(t),
      unsyncedAdmits: this.limiterUnsynced + this.table.unconfirmedOutageAdmits(),
      keys: this.table.size,
      decisions: { ...this.counts },
      offsetMs: this.storeClock.offsetMs,
      offsetErrorMs: this.storeClock.offsetErrorMs,
      coalescedAsks: this.asks.coalesced,
      evictions: this.table.evictions,
      keyCapRejections: this.keyCapRejections,
      storeDown: this.storeDown() && this.usesStore,
      pendingVoids: this.voids.pending,
      voidedCalls: this.voids.voided,
      duplicateId: this.claims.duplicate,
      duplicateIdSyncs: this.claims.duplicateSyncs,
      partKeys: this.partKeys(),
    };
  }

  /** Registers this gateway's Prometheus metrics on `registry` (a new one if none is given). */
  registerMetrics(registry?: Registry, opts?: MetricsOptions): Registry {
    return registerGatewayMetrics(this, registry, opts);
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

const EMPTY: number[] = [];
/** A sync request (part) is sized to take about this share of storeTimeoutMs (see partKeys). */
const PART_SHARE = 0.25;
/** Parts in flight at once: the next is written while the store works on one (a pipeline). */
const PIPELINE_PARTS = 2;
/** Keys per part before the store's speed is known. */
const FIRST_PART_KEYS = 1_000;
const MIN_PART_KEYS = 16;
const MAX_PART_KEYS = 20_000;
/** Parts with fewer keys say little about the time per key (their time is mostly the round trip). */
const MIN_SAMPLE_KEYS = 16;
/** Recent parts the size is taken from. */
const PART_SAMPLES = 8;

/** A sync's entries and where their answers go, built side by side. */
class Entries {
  readonly entries: SyncEntry[] = [];
  readonly owners: (KeyLimiter | null)[] = [];
  readonly fallbacks: (Fallback | null)[] = [];
  readonly own: number[] = [];
  add(e: SyncEntry, owner: KeyLimiter | null, fb: Fallback | null, own: number): void {
    this.entries.push(e);
    this.owners.push(owner);
    this.fallbacks.push(fb);
    this.own.push(own);
  }
  append(o: Entries): void {
    for (let i = 0; i < o.entries.length; i++) this.add(o.entries[i], o.owners[i], o.fallbacks[i], o.own[i]);
  }
}

/** Appends part `q` (same seq) to part `p`: one request again. */
function joinPart(p: Part, q: Part): void {
  p.req = { ...p.req, entries: p.req.entries.concat(q.req.entries) };
  p.owners = p.owners.concat(q.owners);
  p.fallbacks = p.fallbacks.concat(q.fallbacks);
  p.own = p.own.concat(q.own);
  p.attempts = Math.max(p.attempts, q.attempts);
}

/**
 * Splits a part into parts of at most `max` keys with the same seq, in order. Entries naming one key
 * stay in one part (the store decides a key's replay once per request); an empty part stays one part
 * (the heartbeat).
 */
function splitPart(p: Part, max: number): Part[] {
  const n = p.req.entries.length;
  if (n <= max) return [p];
  const out: Part[] = [];
  const home = new Map<string, Part>();
  let cur: Part | null = null;
  for (let i = 0; i < n; i++) {
    const e = p.req.entries[i];
    let to = home.get(e.key);
    if (to === undefined) {
      if (cur === null || cur.req.entries.length >= max) {
        cur = { ...p, req: { ...p.req, entries: [] }, owners: [], fallbacks: [], own: [] };
        out.push(cur);
      }
      to = cur;
      home.set(e.key, to);
    }
    to.req.entries.push(e);
    to.owners.push(p.owners[i]);
    to.fallbacks.push(p.fallbacks[i]);
    to.own.push(p.own[i]);
  }
  return out;
}
/** Sync cycles the expiry horizon is sized from (the longest, see horizonMs). */
const CYCLE_SAMPLES = 8;
/** The horizon covers this many times the longest recent cycle: the next one may run longer. */
const CYCLE_MARGIN = 2;

export function createAsyncGateway(opts: AsyncGatewayOptions): AsyncGateway {
  return new AsyncGateway(opts);
}

function requireFailMode(v: unknown): FailMode {
  if (typeof v !== 'string' || !(FAIL_MODES as readonly string[]).includes(v)) {
    throw new ConfigError('failMode', `must be one of ${FAIL_MODES.join(', ')}; got ${JSON.stringify(v)}`);
  }
  return v as FailMode;
}

function requireFunction<F extends (...args: never[]) => unknown>(field: string, v: F): F {
  if (typeof v !== 'function') throw new ConfigError(field, `must be a function, got ${typeof v}`);
  return v;
}

/**
 * A store on its own clock (Redis TIME) ages the window on that clock, and an admit counts from its
 * instant on it. Until a reply tells a gateway that clock, its own may be off by seconds, and an admit
 * stamped on it would count seconds too long (clock ahead) or too short (behind): decisions wait for a
 * sync's reply, one round trip (at most storeTimeoutMs), once per gateway. Not a design's that never
 * syncs: central-log's are made at the store, split's never leave the gateway. If that sync fails,
 * decisions go ahead on the local clock.
 */
function waitsForClock(store: AsyncStore, design: Design): boolean {
  return store.clock === 'store' && design.syncs !== 'never';
}

/** Every option of AsyncGatewayOptions; any other name (a typo such as `syncMS`) is refused. */
const ASYNC_GATEWAY_OPTIONS = {
  id: true,
  design: true,
  limit: true,
  windowMs: true,
  windowKind: true,
  gateways: true,
  syncMs: true,
  leaseTtlMs: true,
  horizonMs: true,
  store: true,
  failMode: true,
  storeTimeoutMs: true,
  staleAfterMs: true,
  clock: true,
  random: true,
  maxKeys: true,
} satisfies Record<keyof AsyncGatewayOptions, true>;
/** The names of every option (an option added to AsyncGatewayOptions must be added above, or typecheck fails). */
export const ASYNC_GATEWAY_FIELDS: readonly string[] = Object.keys(ASYNC_GATEWAY_OPTIONS);

/** A timer's delay: Node fires a timer longer than 2^31 − 1 ms after 1 ms, so every call would time out. */
function requireTimeoutMs(field: string, v: unknown): number {
  const ms = requirePositiveFinite(field, v);
  if (ms > MAX_TIMER_MS) throw new ConfigError(field, `must be at most ${MAX_TIMER_MS} ms, got ${ms}`);
  return ms;
}

/**
 * staleAfterMs: at most W, since it bounds the admits a limiter collects before the fail mode takes
 * over (see the class comment); and at least syncMs + storeTimeoutMs, the longest a healthy store
 * leaves between two answered syncs (the next tick, then a reply within its timeout): shorter, a
 * store that answers every call in time is counted as down for part of every cycle (staleAfterMs
 * below syncMs degraded most decisions with Redis healthy). Where that exceeds W, W is the most
 * there is room for, and the least accepted. @default min(2·syncMs + storeTimeoutMs, W)
 */
function requireStaleAfterMs(
  v: number | undefined,
  options: ResolvedOptions | undefined,
  storeTimeoutMs: number | undefined,
): number | undefined {
  if (options === undefined || storeTimeoutMs === undefined) {
    // the relations cannot be judged; the value itself still can
    return v === undefined ? undefined : requirePositiveFinite('staleAfterMs', v);
  }
  const { syncMs } = options.fleet;
  const { windowMs } = options.policy;
  const stale = requirePositiveFinite('staleAfterMs', v ?? Math.min(2 * syncMs + storeTimeoutMs, windowMs));
  if (stale > windowMs) {
    throw new ConfigError('staleAfterMs', `must not exceed windowMs (${windowMs}), got ${stale}`);
  }
  const least = Math.min(syncMs + storeTimeoutMs, windowMs);
  if (stale < least) {
    throw new ConfigError(
      'staleAfterMs',
      `must be at least syncMs + storeTimeoutMs (${syncMs + storeTimeoutMs}), or windowMs (${windowMs}) if that is less: ` +
        `a store answering every sync within its timeout would count as down; got ${stale}`,
    );
  }
  return stale;
}

function requireStore(s: unknown): AsyncStore {
  const o = s as Partial<AsyncStore> | null | undefined;
  if (o === null || typeof o !== 'object' || typeof o.sync !== 'function') {
    throw new ConfigError('store', 'must be an AsyncStore (with sync, logAdmit, ask and voidLogAdmits)');
  }
  if (
    typeof o.logAdmit !== 'function' ||
    typeof o.ask !== 'function' ||
    typeof o.voidLogAdmits !== 'function'
  ) {
    throw new ConfigError('store', 'must be an AsyncStore (with sync, logAdmit, ask and voidLogAdmits)');
  }
  // a synchronous Store (MemoryStore) too: one code path, every call a promise
  return asAsyncStore(o as AnyStore);
}
