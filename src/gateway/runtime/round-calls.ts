import type { EventEmitter } from 'node:events';
import type { Policy } from '../../config.js';
import type { AsyncStore } from '../../store/contract.js';
import type { AsyncGatewayEvents, StoreCallErrorEvent } from './async-gateway-events.js';
import type { LogVoids } from './log-voids.js';
import type { RefundQueue } from './refund-queue.js';
import type { ResetQueue } from './reset-queue.js';
import type { KeyFailure } from './store-queue.js';
import { sendVoids } from './void-call.js';

/** What a round's own store calls need: see RoundCalls. */
export interface RoundCallsDeps {
  store: AsyncStore;
  /** Who the store knows this gateway as (its incarnation), and the gateway's policy. */
  gatewayId: string;
  policy: Policy;
  storeTimeoutMs: number;
  voids: LogVoids;
  refunds: RefundQueue | null;
  resets: ResetQueue | null;
  /** Before the refunds are sent: the refunds that waited on a sync are asked about again. */
  resolveRefunds: (now: number) => void;
  events: EventEmitter<AsyncGatewayEvents>;
}

/**
 * The store calls of a sync round besides its sync: failed central-log calls taken back, refunds, and
 * resets, each at decision time `now`. Apart from SyncLoop because they share nothing with the sync's
 * parts but the round's order (SyncLoop.round says where each goes): each sends what its queue holds
 * and reports a failure as a storeCallError; what failed stays queued for the next round.
 */
export class RoundCalls {
  constructor(private readonly d: RoundCallsDeps) {}

  /** A failed call of the round, as a storeCallError. */
  private report(call: StoreCallErrorEvent['call'], f: KeyFailure): void {
    this.d.events.emit('storeCallError', { call, key: f.key, reason: f.cause, error: f.error });
  }

  private call(): { gatewayId: string; policy: Policy; timeoutMs: number } {
    return { gatewayId: this.d.gatewayId, policy: this.d.policy, timeoutMs: this.d.storeTimeoutMs };
  }

  /** The failed central-log calls taken back before the sync (see sendVoids); a failure is reported. */
  async takeBackVoids(now: number): Promise<void> {
    const failed = await sendVoids(this.d.store, this.d.voids, this.call(), now);
    if (failed !== null) this.report('voidLogAdmits', failed);
  }

  /**
   * Refunds of admits the store counts, sent before the sync so its reads count without them (see
   * RefundQueue); those that waited on the last round's sync are asked about first. A failure is
   * reported; they go again next round.
   */
  async sendRefunds(now: number): Promise<void> {
    this.d.resolveRefunds(now);
    const failed = await this.d.refunds!.send(this.d.store, this.call(), now);
    if (failed !== null) this.report('refundAdmits', failed);
  }

  /**
   * Resets of keys (see ResetQueue), except those in `unresolved` (an unanswered part still carries
   * them: its resend goes first); failures are reported, and go again next round.
   */
  async sendResets(now: number, unresolved: ReadonlySet<string>): Promise<void> {
    const failed = await this.d.resets!.send(this.d.store, this.call(), now, unresolved);
    for (const f of failed) this.report('resetKey', f);
  }
}
