import { ConfigError, requireCost, requireKey, requireTime } from '../config.js';
import { EarlySyncBucket } from '../designs/early-syncs.js';
import { DESIGNS, type Design } from '../designs/index.js';
import { ALLOW, DENY, type KeyLimiter, syncsEarly } from '../designs/key-limiter.js';
import { applyReply, callStore, DROP, newEntry, syncEntryOf } from '../designs/key-steps.js';
import type { Store, SyncEntry, SyncRequest } from '../store/contract.js';
import { type InProcessSync, syncsInProcess } from '../store/in-process.js';
import { newReply } from '../store/memory/sync-entry.js';
import { type Decision, resetMsOf } from './decision.js';
import {
  type GatewayOptions,
  learnGateways,
  liveWithinMs,
  maxRequestCost,
  type ResolvedOptions,
  resolveGatewayOptions,
} from './options.js';
import { retryAfterMs } from './retry-after.js';

export interface SyncStats {
  /** Keys exchanged with the store in this sync. */
  keys: number;
  /** Keys whose state was dropped because nothing of them is left. */
  dropped: number;
}

/**
 * One gateway over a synchronous store (the in-memory store): decisions and syncs are plain calls,
 * `now` is always passed in. The Redis runtime drives the same key state machines asynchronously.
 */
export class Gateway {
  readonly id: string;
  readonly options: ResolvedOptions;
  private readonly keys = new Map<string, KeyLimiter>();
  private seq = 0;
  private lastSyncAt = Number.NaN;
  /** gateways 'auto': store time of the first heartbeat's count (see learnGateways). */
  private firstCountAt = Number.NaN;
  /** A request costing more is never admitted (maxRequestCost; it follows K with gateways 'auto'). */
  private maxCost: number;
  /** The design's facts (DESIGNS), read here rather than from its name. */
  private readonly design: Design;
  /** Design.earlySyncs: this gateway's bucket (null: the design has none). */
  private readonly early: EarlySyncBucket | null;
  /** Early syncs sent, and the keys they carried (the store's work beyond the regular syncs). */
  earlySyncs = 0;
  earlySyncKeys = 0;
  /** syncInProcess's entry and reply, written for each key in turn. */
  private readonly entry: SyncEntry = newEntry();
  private readonly reply = newReply();
  /** A design that holds no keys: the limiter every request goes through (newLimiter). */
  private passing: KeyLimiter | undefined = undefined;

  constructor(
    opts: GatewayOptions,
    private readonly store: Store,
  ) {
    this.options = resolveGatewayOptions(opts);
    this.id = this.options.id;
    this.maxCost = maxRequestCost(this.options);
    this.design = DESIGNS[this.options.design];
    const e = this.design.earlySyncs;
    this.early = e === null ? null : new EarlySyncBucket(e.burst, e.perSync, this.options.fleet.syncMs);
    if (this.options.autoGateways && typeof store.heartbeat !== 'function') {
      throw new ConfigError('gateways', "'auto' needs a store that counts live gateways (heartbeat)");
    }
  }

  /** Keys this gateway holds state for. */
  get keyCount(): number {
    return this.keys.size;
  }

  /**
   * One request's decision with what the RateLimit headers need. A fresh value per call: callers may
   * keep it. `allow` makes the same decision without building it.
   */
  admit(key: string, now: number, cost = 1): Decision {
    if (cost > this.maxCost) return this.overLimit(key, now, cost);
    const lim = this.limiterOf(key, now, cost);
    const v = lim.decide(now, cost);
    const allowed = v === ALLOW || (v !== DENY && this.viaStore(lim, key, now, cost));
    if (this.early !== null) this.earlySync(this.early, lim, now);
    // the limiter keeps what it computed to decide: these read it, they do not recount the window
    const resetMs = resetMsOf(lim.resetAt(now), now);
    const remaining = lim.remaining(now);
    // each shape built whole: adding retryAfterMs afterwards costs a second allocation
    if (allowed) return { allowed, remaining, resetMs };
    return { allowed, remaining, resetMs, retryAfterMs: this.retryAfter(lim, now, cost) };
  }

  /**
   * The same decision as `admit` (it counts the request the same way), as a bare boolean: nothing is
   * allocated, for callers that send no rate-limit headers.
   */
  allow(key: string, now: number, cost = 1): boolean {
    if (cost > this.maxCost) return this.overLimit(key, now, cost).allowed;
    const lim = this.limiterOf(key, now, cost);
    const v = lim.decide(now, cost);
    const allowed = v === ALLOW || (v !== DENY && this.viaStore(lim, key, now, cost));
    if (this.early !== null) this.earlySync(this.early, lim, now);
    return allowed;
  }

  /**
   * Design.earlySyncs: after a decision, a sync now if the key wants one and the bucket has a token.
   * Here a plain call after the decision is made (the async runtime sends it off the request path).
   */
  private earlySync(early: EarlySyncBucket, lim: KeyLimiter, now: number): void {
    if (!syncsEarly(lim) || !lim.wantsEarlySync(now) || !early.take(now)) return;
    this.earlySyncs++;
    // the regular syncs keep their phase: Retry-After predicts the next one from the last of them
    const last = this.lastSyncAt;
    this.earlySyncKeys += this.sync(now).keys;
    this.lastSyncAt = last;
  }

  /**
   * Checks the request and returns the key's state machine, made on the key's first request. Kept
   * small, with the rare paths out of line, so that a caller's loop can inline the whole decision.
   */
  private limiterOf(key: string, now: number, cost: number): KeyLimiter {
    requireKey(key);
    requireTime('now', now);
    requireCost(cost);
    return this.keys.get(key) ?? this.newLimiter(key, now);
  }

  /**
   * A request that can never be admitted (Decision.exceedsLimit): denied now, without the store, and
   * the key's state is only read (a key not held is not created). No retryAfterMs: no retry can succeed.
   */
  private overLimit(key: string, now: number, cost: number): Decision {
    requireKey(key);
    requireTime('now', now);
    requireCost(cost);
    const lim = this.keys.get(key) ?? this.design.create(this.options.fleet, now);
    const resetMs = resetMsOf(lim.resetAt(now), now);
    return { allowed: false, remaining: lim.remaining(now), resetMs, exceedsLimit: true };
  }

  private newLimiter(key: string, now: number): KeyLimiter {
    // a design that holds no keys (central-log) keeps nothing between requests: the store has it all,
    // and the one limiter serves every request, each reply written over the last (a new one per
    // request was a replay's garbage on every line)
    if (!this.design.holdsKeys) return (this.passing ??= this.design.create(this.options.fleet, now));
    const lim = this.design.create(this.options.fleet, now);
    this.keys.set(key, lim);
    return lim;
  }

  /** NEED_STORE: central-log's logAdmit, or leases-ask's ask, on this request's path. */
  private viaStore(lim: KeyLimiter, key: string, now: number, cost: number): boolean {
    const path = this.design.requestPath;
    return callStore(this.store, path, lim, this.id, key, this.options.fleet, now, cost, this.seq);
  }

  private retryAfter(lim: KeyLimiter, now: number, cost: number): number {
    return retryAfterMs(lim, this.design, this.options.fleet, this.lastSyncAt, now, cost);
  }

  /** One batched exchange with the store for every key this gateway holds; drops idle keys. */
  sync(now: number): SyncStats {
    requireTime('now', now);
    // K is learnt before the entries are built there (beat): that path stays the contract's
    const store = this.store;
    if (!this.options.autoGateways && syncsInProcess(store)) {
      const req = this.syncRequest(this.seq + 1);
      if (store.openSync(req, now)) {
        this.seq++;
        return this.syncInProcess(store, req, now);
      }
    }
    // made at their largest size and cut to what was filled: grown by push from empty, the two were
    // copied at every doubling (~160 bytes of garbage per line of a replay that syncs 10,000 keys)
    const held = this.keys.size;
    const entries = new Array<SyncEntry>(held);
    const owners = new Array<KeyLimiter>(held);
    let n = 0;
    let dropped = 0;
    // forEach, not for…of over [key, lim] pairs: a pair and an iterator result per held key per sync
    // were garbage (~250 bytes per line of a replay that syncs every held key)
    this.keys.forEach((lim, key, keys) => {
      const e = syncEntryOf(lim, key, now);
      if (e === DROP) {
        keys.delete(key);
        dropped++;
        return;
      }
      if (e === null) return;
      entries[n] = e;
      owners[n++] = lim;
    });
    entries.length = n;
    owners.length = n;
    this.lastSyncAt = now;
    // K first: every reply of this sync is applied with the fleet's count as of this round
    if (this.options.autoGateways) this.beat(now, false);
    // an empty sync still goes out: it is the store's heartbeat and lets it sweep idle keys
    const { policy, fleet } = this.options;
    const seq = ++this.seq;
    let result: ReturnType<Store['sync']>;
    try {
      result = this.store.sync(
        {
          gatewayId: this.id,
          seq,
          policy,
          leaseTtlMs: fleet.leaseTtlMs,
          horizonMs: fleet.horizonMs,
          entries,
        },
        now,
      );
    } catch (err) {
      for (const lim of owners) lim.syncFailed(now);
      throw err;
    }
    for (let i = 0; i < owners.length; i++) {
      if (applyReply(owners[i], result.replies[i], now)) {
        this.keys.delete(entries[i].key);
        dropped++;
      }
    }
    return { keys: entries.length, dropped };
  }

  /**
   * sync() with a store in this process (InProcessSync): each key's entry applied and its reply
   * applied before the next key's entry is built, into one reply object, deciding as the contract's
   * sync() does (test/gateway/in-process-sync.test.ts). A sync entry, a reply, and the arrays of
   * both per sync were most of a synced replay's garbage (docs/replay.md).
   */
  private syncInProcess(store: Store & InProcessSync, req: SyncRequest, now: number): SyncStats {
    const out = this.reply;
    const into = this.entry;
    let n = 0;
    let dropped = 0;
    this.keys.forEach((lim, key, keys) => {
      const e = syncEntryOf(lim, key, now, into);
      if (e === null) return;
      if (e !== DROP) {
        n++;
        if (!applyReply(lim, store.syncNext(req, e, now, out), now)) return;
      }
      keys.delete(key);
      dropped++;
    });
    this.lastSyncAt = now;
    return { keys: n, dropped };
  }

  /** A sync's request, its entries left to the caller. */
  private syncRequest(seq: number): SyncRequest {
    const { policy, fleet } = this.options;
    return {
      gatewayId: this.id,
      seq,
      policy,
      leaseTtlMs: fleet.leaseTtlMs,
      horizonMs: fleet.horizonMs,
      entries: [],
    };
  }

  /** The key's state machine, if held (tests and tools). */
  limiterFor(key: string): KeyLimiter | undefined {
    return this.keys.get(key);
  }

  /** K in use: the configured one, or with gateways 'auto' the last count of live gateways. */
  get gateways(): number {
    return this.options.fleet.gateways;
  }

  /**
   * With gateways 'auto': this gateway leaves the store's count of live gateways now (the others
   * learn it at their next sync) rather than after the liveness window. Call it when it stops.
   */
  leave(now: number): void {
    requireTime('now', now);
    if (this.options.autoGateways) this.beat(now, true);
  }

  /** One heartbeat (gateways 'auto'): K is the store's count of live gateways of this policy. */
  private beat(now: number, leaving: boolean): void {
    const { policy } = this.options;
    const live = liveWithinMs(this.options);
    const r = this.store.heartbeat!({ gatewayId: this.id, policy, liveWithinMs: live, leaving }, now);
    if (leaving) return;
    if (Number.isNaN(this.firstCountAt)) this.firstCountAt = r.now;
    if (learnGateways(this.options, r.live, r.now - this.firstCountAt, live)) {
      this.maxCost = maxRequestCost(this.options);
    }
  }
}

export function createGateway(opts: GatewayOptions & { store: Store }): Gateway {
  return new Gateway(opts, opts.store);
}
