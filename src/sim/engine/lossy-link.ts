import { applyReply, DROP, syncEntryOf } from '../../designs/key-steps.js';
import type { LeaseKey } from '../../designs/leases.js';
import type { SyncEntry, SyncReply } from '../../store/contract.js';
import type { RunState } from './run-state.js';

/** The network between the gateways and the store, as a run sets it. */
export interface LinkParams {
  /** every round trip takes this long, ms */
  delayMs: number;
  /** plus a uniform extra in [0, jitterMs) */
  jitterMs: number;
  /** a sync is lost with this probability */
  loss: number;
}

/**
 * Real-world syncs (a delay, jitter or loss): a sync is taken at s and applied by the store at s (if
 * it lands); its reply reaches the gateway at s + delay. A lost sync (probability `loss`) landed at
 * the store or not, half and half; the gateway learns it failed at s + delay and, as the runtime
 * does, keeps the request whole and resends it (same seq, same entry) at its next sync instant: the
 * store applies a seq once, so the resend pushes nothing twice if the first landed. Once the resend
 * is answered, a fresh sync goes out at once. One sync in flight per gateway: a sync instant that
 * finds one in flight is skipped. The delay and loss draws come from their own generator (RunState.net).
 */
export class LossyLink {
  /** When each gateway's reply in flight arrives (RunState.replyAt). */
  private readonly replyAt: Float64Array;
  /** sync instants skipped because the gateway's last sync was still in flight */
  busySkips = 0;
  /** fresh syncs sent right after an answered resend, beyond the one per Δ */
  extraSyncs = 0;
  private readonly pendEntry: (SyncEntry | null)[];
  private readonly pendReply: (SyncReply | null)[];
  /** 0: no reply pending; 1: a fresh sync's reply; 2: a resend's reply */
  private readonly pendKind: Uint8Array;
  /** 1 while g's last sync was lost: its entry goes out again, whole */
  private readonly frozen: Uint8Array;

  constructor(private readonly run: RunState) {
    const K = run.K;
    this.replyAt = run.replyAt;
    this.pendEntry = new Array(K).fill(null);
    this.pendReply = new Array(K).fill(null);
    this.pendKind = new Uint8Array(K);
    this.frozen = new Uint8Array(K);
  }

  /** One round trip's time, ms (a draw when there is jitter). */
  roundTripMs(): number {
    const { delayMs, jitterMs } = this.run.link;
    return jitterMs > 0 ? delayMs + jitterMs * this.run.net.uniform() : delayMs;
  }

  /** Whether g has a sync in flight (a sync instant now would be skipped). */
  busy(g: number): boolean {
    return this.pendKind[g] !== 0;
  }

  /** g's sync instant s. */
  startSync(g: number, s: number): void {
    if (this.pendKind[g] !== 0) {
      this.busySkips++;
      return;
    }
    const lims = this.run.lims;
    const lim = lims[g];
    if (lim === null) return;
    if (this.frozen[g] === 1) {
      this.send(g, s, this.pendEntry[g]!, true);
      return;
    }
    const entry = syncEntryOf(lim, this.run.key, s);
    if (entry === DROP) lims[g] = null;
    else if (entry !== null) this.send(g, s, entry, false);
  }

  /** g's reply in flight arrives at r. */
  onReply(g: number, r: number): void {
    const kindOf = this.pendKind[g];
    const reply = this.pendReply[g];
    this.replyAt[g] = Number.POSITIVE_INFINITY;
    this.pendKind[g] = 0;
    this.pendReply[g] = null;
    const lims = this.run.lims;
    const lim = lims[g]!;
    if (reply === null) {
      // lost: kept whole, resent at the next sync instant; its pushes stay in flight
      this.frozen[g] = 1;
      return;
    }
    this.frozen[g] = 0;
    this.pendEntry[g] = null;
    if (kindOf !== 2) {
      if (applyReply(lim, reply, r)) lims[g] = null;
      return;
    }
    // the resend was answered: the fresh sync goes out now
    lim.applySync(reply, r);
    const entry = syncEntryOf(lim, this.run.key, r);
    if (entry === DROP) lims[g] = null;
    else if (entry !== null) {
      this.extraSyncs++;
      this.send(g, r, entry, false);
    }
  }

  /** Sends g's entry to the store at s (unless lost before landing); its reply is due at s + delay. */
  private send(g: number, s: number, entry: SyncEntry, resend: boolean): void {
    const run = this.run;
    const request = run.request;
    request.gatewayId = run.gatewayIds[g];
    if (!resend) ++run.seq[g];
    request.seq = run.seq[g];
    const loss = run.link.loss;
    const lost = loss > 0 && run.net.uniform() < loss;
    const landed = !lost || run.net.uniform() < 0.5;
    const reply = landed ? run.store.syncKey(request, entry, s) : null;
    // a lease design's syncs count the slots handed back
    if (!lost && run.design.grants) {
      run.counts.returnedSum += (run.lims[g] as LeaseKey).lastReturned;
      run.counts.leaseSyncs++;
    }
    this.pendEntry[g] = entry;
    this.pendReply[g] = lost ? null : reply;
    this.pendKind[g] = resend ? 2 : 1;
    this.replyAt[g] = s + this.roundTripMs();
  }
}
