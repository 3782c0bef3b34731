import type { EventEmitter } from 'node:events';
import { DESIGNS } from '../../designs/index.js';
import type { AsyncStore } from '../../store/contract.js';
import type { ResolvedOptions } from '../options.js';
import type { AsyncGatewayEvents } from './async-gateway-events.js';
import { buildBatch } from './batch-builder.js';
import type { IdClaims } from './duplicate-id.js';
import type { FailureCause } from './failure-cause.js';
import { Heartbeats } from './heartbeat.js';
import { HorizonSizer } from './horizon-sizer.js';
import type { KeyTable } from './key-table.js';
import type { LogVoids } from './log-voids.js';
import { sendPipelined } from './part-pipeline.js';
import { applyPartReply } from './part-reply.js';
import { PartSizer } from './part-sizer.js';
import { ReadTurns } from './read-turns.js';
import type { RefundQueue } from './refund-queue.js';
import type { ResetQueue } from './reset-queue.js';
import { RoundCalls } from './round-calls.js';
import type { StoreAccess } from './store-access.js';
import type { StoreClock } from './store-clock.js';
import type { StoreHealth } from './store-health.js';
import { type Part, resendParts, splitPart } from './sync-parts.js';
import { SyncTimer } from './sync-timer.js';
import { withTimeout } from './timeout.js';

/** What the sync loop works with: the store (StoreAccess), the key table, the queues and hooks. */
export interface SyncLoopDeps extends StoreAccess {
  id: string;
  /** Uniform in [0, 1): the timer's phase. */
  random: () => number;
  table: KeyTable;
  claims: IdClaims;
  /** Refunds for the store, sent at the start of each round (null: none expected). */
  refunds?: RefundQueue | null;
  /** Keys to reset at the store, sent after the resends and before the new sync (null: none expected). */
  resets?: ResetQueue | null;
  /** Before the refunds are sent: the refunds that waited on a sync are asked about again. */
  resolveRefunds?: (now: number) => void;
  /** An answered part's limiter admits, per entry: the store has them now. */
  confirmed: (own: number[]) => void;
  /** gateways 'auto': a heartbeat changed K (options.fleet.gateways). */
  gatewaysChanged?: () => void;
}

/**
 * The sync rounds (see sync-parts.ts: Syncs in parts, Retried parts; IdClaims: Incarnations):
 * every Δ at a random phase (SyncTimer), one round in flight at a time. A round takes back failed
 * central-log calls (sendVoids), resends the unanswered parts of earlier syncs (halved if they timed
 * out: resendParts), then numbers a new sync, builds its batch of every other key (buildBatch), cuts
 * it into parts sized from the store's recent speed (PartSizer) and sends them two at a time; an
 * answered part's replies go to the limiters and outage records (applyPartReply) and size the
 * horizon of the next sync (HorizonSizer). With gateways 'auto' each round beats (Heartbeats).
 */
export class SyncLoop {
  /** Syncs built by this incarnation; an ask carries the last one (see builtSeq). */
  private seq = 0;
  /** The last sync attempt's start, on decision time (for Retry-After). */
  lastSyncStartAt = Number.NaN;
  /** Parts of earlier syncs not answered yet, resent first, in order (see sendParts). */
  private frozen: Part[] = [];
  /** The keys of `frozen`: not put in a newer sync until their part is answered. */
  private unresolved = new Set<string>();
  private inflight: Promise<boolean> | null = null;
  /** Sync requests (parts) answered; failed, by cause (see FailureCause). */
  syncs = 0;
  syncTimeouts = 0;
  syncRefusals = 0;
  syncErrors = 0;
  /**
   * gateways 'auto': this round's heartbeat, sent beside its sync parts. Settles (never rejects) once
   * it has set K or failed (K then stays); the round's replies are applied only after it, so every
   * key answered in a round decides with the fleet's count as of that round.
   */
  private beat: Promise<void> | null = null;

  private readonly timer: SyncTimer;
  private readonly parts: PartSizer;
  private readonly horizon: HorizonSizer;
  private readonly reads = new ReadTurns();
  /** gateways 'auto' (null: K is configured). */
  private readonly heartbeats: Heartbeats | null;

  private readonly id: string;
  private readonly incarnation: string;
  private readonly options: ResolvedOptions;
  private readonly storeTimeoutMs: number;
  private readonly store: AsyncStore;
  private readonly clock: () => number;
  private readonly storeClock: StoreClock;
  private readonly health: StoreHealth;
  private readonly table: KeyTable;
  private readonly claims: IdClaims;
  private readonly voids: LogVoids;
  private readonly refunds: RefundQueue | null;
  private readonly resets: ResetQueue | null;
  /** The round's store calls besides the sync: voids, refunds, resets. */
  private readonly calls: RoundCalls;
  private readonly events: EventEmitter<AsyncGatewayEvents>;
  private readonly confirmed: (own: number[]) => void;
  /** The design's syncs with nothing to push only read (Design.syncs 'lazy'). */
  private readonly lazy: boolean;

  constructor(d: SyncLoopDeps) {
    this.id = d.id;
    this.incarnation = d.incarnation;
    this.options = d.options;
    this.storeTimeoutMs = d.storeTimeoutMs;
    this.store = d.store;
    this.clock = d.clock;
    this.storeClock = d.storeClock;
    this.health = d.health;
    this.table = d.table;
    this.claims = d.claims;
    this.voids = d.voids;
    this.refunds = d.refunds ?? null;
    this.resets = d.resets ?? null;
    this.events = d.events;
    this.confirmed = d.confirmed;
    this.calls = new RoundCalls({
      store: d.store,
      gatewayId: d.incarnation,
      policy: d.options.policy,
      storeTimeoutMs: d.storeTimeoutMs,
      voids: d.voids,
      refunds: this.refunds,
      resets: this.resets,
      resolveRefunds: d.resolveRefunds ?? (() => {}),
      events: d.events,
    });
    const { fleet, policy } = d.options;
    this.timer = new SyncTimer(fleet.syncMs, d.random, () => this.tick());
    this.parts = new PartSizer(d.storeTimeoutMs);
    this.horizon = new HorizonSizer({
      syncMs: fleet.syncMs,
      horizonMs: fleet.horizonMs,
      windowMs: policy.windowMs,
    });
    this.heartbeats = d.options.autoGateways
      ? new Heartbeats({
          store: d.store,
          incarnation: d.incarnation,
          options: d.options,
          storeTimeoutMs: d.storeTimeoutMs,
          gatewaysChanged: d.gatewaysChanged ?? (() => {}),
        })
      : null;
    this.lazy = DESIGNS[d.options.design].syncs === 'lazy';
  }

  /** The seq of the last sync built (0 before the first): a request-path ask is tagged with it. */
  get builtSeq(): number {
    return this.seq;
  }

  /** Heartbeats that failed or timed out (K kept its last value). */
  get heartbeatFailures(): number {
    return this.heartbeats?.failures ?? 0;
  }

  /** Keys per sync request (part) the next sync is cut into (PartSizer). */
  partKeys(): number {
    return this.parts.keys();
  }

  /** Decision time for a sync's own bookkeeping (see StoreClock.bookAt). */
  private bookNow(): number {
    return this.storeClock.bookAt(this.clock());
  }

  /** Starts the sync timer: every Δ, first at a random phase in [0, Δ) so the fleet's syncs spread out. */
  start(): void {
    this.timer.start();
  }

  get running(): boolean {
    return this.timer.running;
  }

  /** A sync round is in flight: a tick now would be skipped. */
  get busy(): boolean {
    return this.inflight !== null;
  }

  tick(): void {
    // one sync in flight at a time: a tick that finds one running skips
    if (this.inflight !== null) return;
    this.syncNow().catch((error: unknown) => {
      this.syncErrors++;
      this.events.emit('syncError', { seq: this.seq, keys: 0, latencyMs: 0, reason: 'error', error });
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
    this.timer.stop();
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
    this.beat = this.heartbeats === null ? null : this.heartbeats.beat(final, this.bookNow());
    try {
      return await this.round(final);
    } finally {
      if (this.beat !== null) await this.beat;
    }
  }

  /** The body of runSync: see there. */
  private async round(final: boolean): Promise<boolean> {
    if (this.voids.pending > 0) await this.calls.takeBackVoids(this.bookNow());
    if (this.refunds !== null && this.refunds.pending > 0) await this.sendRefunds();
    this.claims.startRound(final);
    this.horizon.startRound();
    let answered = 0;
    if (this.frozen.length > 0) {
      const parts = resendParts(this.frozen, this.parts.keys());
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
    // after the resends (their admits were made before the reset), before the new sync (made after)
    if (this.resets !== null && this.resets.pending > 0) await this.sendResets();
    const r = await this.sendParts(splitPart(await this.newSync(final), this.parts.keys()));
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
   * Refunds of admits the store counts, sent before the sync (RoundCalls.sendRefunds). Also called at
   * once for central-log's refunds (its every admit is the store's, and its requests call the store
   * anyway).
   */
  sendRefunds(): Promise<void> {
    return this.calls.sendRefunds(this.bookNow());
  }

  /**
   * Resets of keys, except those an unanswered part still carries (RoundCalls.sendResets). Also called
   * at once for central-log's resets (no sync of it carries admits).
   */
  sendResets(): Promise<void> {
    return this.calls.sendResets(this.bookNow(), this.unresolved);
  }

  /**
   * While the store is away no batch is built, and building one is what normally drops idle keys; without
   * this, a long outage with many distinct keys would hold every key it ever saw.
   */
  private async sweep(): Promise<void> {
    await this.table.sweep(this.bookNow());
  }

  /** A new sync of every key not in an unanswered part, as one part (see buildBatch). */
  private async newSync(final: boolean): Promise<Part> {
    const now = this.bookNow();
    // numbered before any key is walked: an ask sent from here on carries this seq, so this sync
    // (which releases the grants tagged below it) never hands back a grant the limiter may spend
    const seq = ++this.seq;
    const { policy, fleet } = this.options;
    // keys whose reset waits stay out too: an admit made since must not reach the store before it
    // (asked as the batch is built: a reset queued meanwhile leaves its key out from then on)
    const resets = this.resets;
    const frozen = this.unresolved;
    const unresolved =
      resets === null
        ? frozen
        : {
            get size() {
              return frozen.size + resets.pending;
            },
            has: (key: string) => frozen.has(key) || resets.holds(key),
          };
    const how = {
      now,
      final,
      lazy: this.lazy,
      limit: policy.limit,
      unresolved,
      partKeys: this.parts.keys(),
    };
    const batch = await buildBatch(this.table, how, this.reads);
    // an empty sync still goes out: it is the heartbeat that tells the runtime the store is back
    return {
      req: {
        gatewayId: this.incarnation,
        seq,
        policy,
        leaseTtlMs: fleet.leaseTtlMs,
        horizonMs: this.horizon.horizonMs(),
        entries: batch.entries,
      },
      owners: batch.owners,
      fallbacks: batch.fallbacks,
      own: batch.own,
      attempts: 0,
      timedOut: false,
      builtFrom: now,
    };
  }

  /** Sends parts two at a time, in order, up to the first failure (see sendPipelined). */
  private sendParts(parts: Part[]): Promise<{ answered: number; left: Part[] }> {
    return sendPipelined(
      parts,
      (part) => this.send(part),
      (part, error) => {
        this.syncErrors++;
        this.events.emit('syncError', {
          seq: part.req.seq,
          keys: part.req.entries.length,
          latencyMs: 0,
          reason: 'error',
          error,
        });
      },
    );
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
    // off the request path: a timer made late by a busy loop renews the part's timeout (withTimeout)
    const r = await withTimeout(
      () => this.store.sync(req, sentNow),
      this.storeTimeoutMs,
      this.store,
      'renew',
    );
    const t1 = this.clock();
    const keys = req.entries.length;
    let failure: { reason: FailureCause; error?: unknown } | null = null;
    if (!r.ok) failure = { reason: r.cause, error: r.error };
    else if (r.value.replies.length !== keys) {
      const error = new Error(`store answered ${r.value.replies.length} replies to a sync of ${keys} keys`);
      failure = { reason: 'error', error };
    }
    if (failure !== null || !r.ok) {
      // kept: the resend carries this very seq and these entries (sync-parts.ts, Retried parts)
      // the part waited out the whole timeout (refused, too, when its client queued it offline)
      part.timedOut = !r.ok && r.timedOut;
      this.horizon.partFailed();
      this.health.failing = true;
      const reason = failure?.reason ?? 'error';
      if (part.timedOut) this.parts.note(this.storeTimeoutMs, keys);
      if (reason === 'timeout') this.syncTimeouts++;
      else if (reason === 'refused') this.syncRefusals++;
      else this.syncErrors++;
      this.events.emit('syncError', {
        seq: req.seq,
        keys,
        latencyMs: t1 - t0,
        reason,
        error: failure?.error,
      });
      return false;
    }
    part.timedOut = false;
    this.parts.note(t1 - t0, keys);
    if (this.beat !== null) await this.beat;
    this.storeClock.learn(r.value.now, t0, t1);
    const storeClock = this.storeClock;
    await applyPartReply(part, r.value.replies, this.bookNow(), this.table, (x) =>
      storeClock.withLapseMargin(x),
    );
    this.confirmed(part.own);
    // a store that tells no time gives no cycle
    if (Number.isFinite(r.value.now)) this.horizon.noteReply(r.value.now, part.builtFrom, this.bookNow());
    this.health.answered(t1);
    if (claim) this.noteClaim(r.value.previousIncarnation);
    this.syncs++;
    this.events.emit('sync', { seq: req.seq, keys, latencyMs: t1 - t0, retry });
    return true;
  }

  /** The store's answer to this incarnation's claim on the id: the incarnation it replaced (see IdClaims). */
  private noteClaim(previous: string | null | undefined): void {
    const other = this.claims.answered(previous);
    if (other !== null)
      this.events.emit('duplicateId', { id: this.id, incarnation: this.incarnation, other });
  }
}
