import type { Design } from '../../designs/index.js';
import { forgets, type KeyLimiter, type TakesBack, takesBack } from '../../designs/key-limiter.js';
import { expiryOf } from '../../window/expiry.js';
import type { Decision } from '../decision.js';
import type { ResolvedOptions } from '../options.js';
import type { KeyTable } from './key-table.js';
import { RefundQueue } from './refund-queue.js';
import { ResetQueue } from './reset-queue.js';

/** The sync rounds, as far as a refund or reset needs them (SyncLoop). */
export interface RoundsForTakeBacks {
  sendRefunds(): Promise<void>;
  sendResets(): Promise<void>;
  readonly running: boolean;
  /** A round is in flight. */
  readonly busy: boolean;
  /** The round in flight, or a new one. */
  syncNow(): Promise<boolean>;
  tick(): void;
}

/** What refunds and resets work with: see TakeBacks. */
export interface TakeBacksDeps {
  table: KeyTable;
  design: Design;
  options: ResolvedOptions;
  maxKeys: number;
  /** touchesStore(design): false (split) keeps no store, so nothing waits to be confirmed. */
  usesStore: boolean;
  /** Decision time now (read only once a refund or reset goes ahead). */
  now: () => number;
  /** The sync rounds (read when needed: the loop is built after this). */
  rounds: () => RoundsForTakeBacks;
  /** Admits the gateway counted as unconfirmed that it took back before the store saw them. */
  unspent: (n: number) => void;
}

/**
 * What the gateway takes back (AsyncGateway.refund and resetKey, which check their input and the
 * store's support, then call here): a refund of one admit, a reset of a key. Each takes back locally
 * what the store has not seen, and queues for the store what it counts (RefundQueue, ResetQueue, sent
 * by the sync rounds; central-log's at once). Apart from the gateway: the decision path never reads
 * this state, and a refund and a reset must agree with each other (a refund of an admit at or before
 * its key's last reset takes nothing), which is easiest to see in one place.
 */
export class TakeBacks {
  /** Refunds of admits the store counts, sent at the start of each sync round. */
  readonly refundQueue: RefundQueue;
  /** Keys to reset at the store, sent in the next sync round (resetKey). */
  readonly resetQueue: ResetQueue;
  /** Decisions taken back already: a second refund of one takes nothing. */
  private readonly refunded = new WeakSet<Decision>();
  /**
   * Per key, the decision time of its last reset, oldest first, for a window (at most maxKeys): a
   * refund of an admit at or before it takes nothing (the reset forgot it; at the store a refund of
   * its instant would take another admit made there since).
   */
  private readonly lastReset = new Map<string, number>();
  /** The decision time of the last resetAll: a refund of an admit at or before it takes nothing. */
  private lastResetAll = Number.NEGATIVE_INFINITY;

  constructor(private readonly d: TakeBacksDeps) {
    this.refundQueue = new RefundQueue(d.maxKeys);
    this.resetQueue = new ResetQueue(d.maxKeys);
  }

  /** AsyncGateway.refund once its input is checked: see there. */
  refund(key: string, decision: Decision, cost: number): boolean {
    const at = decision.at;
    if (!decision.allowed || decision.degraded === true || at === undefined) return false;
    if (this.refunded.has(decision)) return false;
    const reset = this.lastReset.get(key);
    if ((reset !== undefined && at <= reset) || at <= this.lastResetAll) return false;
    this.refunded.add(decision);
    const now = this.d.now();
    const r = this.refundLimiter(key, now).takeBack(at, cost, now);
    if (r === 'local') this.tookBackLocally(cost);
    else if (r === 'store') {
      this.refundQueue.add(key, at, cost);
      // central-log calls the store on every request: its refunds go at once, not a round later
      if (this.d.design.requestPath === 'log') void this.d.rounds().sendRefunds();
    } else if (r === 'wait') this.refundQueue.wait(key, at, cost);
    return r !== 'gone';
  }

  /** The refunds that waited on a sync, asked about again before the round sends its refunds. */
  resolveRefunds(now: number): void {
    this.refundQueue.resolve(
      now,
      (key) => this.refundLimiter(key, now),
      (cost) => this.tookBackLocally(cost),
    );
  }

  /**
   * The key's limiter for a refund; one made afresh if the key's state was dropped (idle: nothing of it
   * left here, so a fresh limiter answers as the dropped one would, 'store' or 'gone').
   */
  private refundLimiter(key: string, now: number): KeyLimiter & TakesBack {
    const lim = this.d.table.get(key) ?? this.d.design.create(this.d.options.fleet, now);
    if (!takesBack(lim)) throw new Error(`${lim.design} cannot take admits back`);
    return lim;
  }

  /** A refund taken back before the store saw the admit: it no longer waits to be confirmed. */
  private tookBackLocally(cost: number): void {
    if (this.d.usesStore) this.d.unspent(cost);
  }

  /** AsyncGateway.resetKey once its input is checked: see there. */
  reset(key: string, send = true): Promise<boolean> {
    const { usesStore } = this.d;
    const sent = usesStore ? this.resetQueue.add(key) : Promise.resolve(true);
    if (sent === null) return Promise.resolve(false);
    const now = this.d.now();
    const lim = this.d.table.get(key);
    if (lim !== undefined && forgets(lim)) {
      const n = lim.forget(now);
      if (usesStore) this.d.unspent(n);
    }
    this.noteReset(key, now);
    this.refundQueue.drop(key);
    if (usesStore && send) this.sendResets();
    return sent;
  }

  /** Sends the queued resets now if they would wait on no round: central-log, or no sync timer. */
  private sendResets(): void {
    // central-log's admits are all the store's, none in a sync: its reset goes at once; a gateway
    // whose sync timer does not run (not started, or stopped) runs a round for it now. A round in
    // flight may have sent its resets already: one more after it (else the reset would wait for a
    // timer that never comes)
    const rounds = this.d.rounds();
    if (this.d.design.requestPath === 'log') void rounds.sendResets();
    else if (!rounds.running && !rounds.busy) rounds.tick();
    else if (!rounds.running) {
      // (a failed round is reported by its tick)
      rounds.syncNow().then(
        () => {
          if (this.resetQueue.pending > 0 && !rounds.running && !rounds.busy) rounds.tick();
        },
        () => {},
      );
    }
  }

  /**
   * AsyncGateway.resetAll once checked: see there. Every key this gateway holds goes through `reset`
   * (0014's path), and `scan(at)` resets at the store the keys held there through `at`, now. Resolves
   * true once both are done, false if either could not be.
   */
  resetAll(scan: ((at: number) => Promise<boolean>) | null): Promise<boolean> {
    const at = this.d.now();
    this.lastResetAll = at;
    // every queued refund is of an admit at or before now: the reset forgets it
    this.refundQueue.dropThrough(at);
    // queued together, then sent together: one round carries them all
    const held = this.d.table.keys().map((k) => this.reset(k, false));
    if (this.d.usesStore && held.length > 0) this.sendResets();
    const scanned = scan === null ? Promise.resolve(true) : scan(at);
    return Promise.all([scanned, ...held]).then((oks) => oks.every((ok) => ok));
  }

  /** Records the key's reset at `now` (lastReset), dropping those a window old and past maxKeys. */
  private noteReset(key: string, now: number): void {
    const m = this.lastReset;
    m.delete(key);
    m.set(key, now);
    const { windowMs, windowKind } = this.d.options.policy;
    for (const [k, t] of m) {
      if (m.size <= this.d.maxKeys && expiryOf(t, windowMs, windowKind) > now) break;
      m.delete(k);
    }
  }
}
