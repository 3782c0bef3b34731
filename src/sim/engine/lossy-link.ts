import type { KeyLimiter } from '../../designs/key-limiter.js';
import { applyReply, DROP, syncEntryOf } from '../../designs/key-steps.js';
import type { LeaseKey } from '../../designs/leases.js';
import type { SyncEntry, SyncReply, SyncRequest } from '../../store/contract.js';
import type { MemoryStore } from '../../store/memory-store.js';
import type { Random } from '../random.js';
import type { RunCounts } from './run-counts.js';

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
 * finds one in flight is skipped. The delay and loss draws come from their own generator (`net`).
 */
export class LossyLink {
  /** When each gateway's reply in flight arrives (Infinity: none). */
  readonly replyAt: Float64Array;
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

  constructor(
    private readonly link: LinkParams,
    private readonly net: Random,
    private readonly store: MemoryStore,
    private readonly key: string,
    /** the run's one request object: the gateway and seq are set per sync */
    private readonly request: SyncRequest,
    private readonly gatewayIds: readonly string[],
    /** each gateway's last sync seq */
    private readonly seq: Int32Array,
    private readonly lims: (KeyLimiter | null)[],
    private readonly counts: RunCounts,
    /** a lease design: its syncs count the slots handed back */
    private readonly grants: boolean,
  ) {
    const K = lims.length;
    this.replyAt = new Float64Array(K).fill(Number.POSITIVE_INFINITY);
    this.pendEntry = new Array(K).fill(null);
    this.pendReply = new Array(K).fill(null);
    this.pendKind = new Uint8Array(K);
    this.frozen = new Uint8Array(K);
  }

  /** One round trip's time, ms (a draw when there is jitter). */
  roundTripMs(): number {
    const { delayMs, jitterMs } = this.link;
    return jitterMs > 0 ? delayMs + jitterMs * this.net.uniform() : delayMs;
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
    const lim = this.lims[g];
    if (lim === null) return;
    if (this.frozen[g] === 1) {
      this.send(g, s, this.pendEntry[g]!, true);
      return;
    }
    const entry = syncEntryOf(lim, this.key, s);
    if (entry === DROP) this.lims[g] = null;
    else if (entry !== null) this.send(g, s, entry, false);
  }

  /** g's reply in flight arrives at r. */
  onReply(g: number, r: number): void {
    const kindOf = this.pendKind[g];
    const reply = this.pendReply[g];
    this.replyAt[g] = Number.POSITIVE_INFINITY;
    this.pendKind[g] = 0;
    this.pendReply[g] = null;
    const lim = this.lims[g]!;
    if (reply === null) {
      // lost: kept whole, resent at the next sync instant; its pushes stay in flight
      this.frozen[g] = 1;
      return;
    }
    this.frozen[g] = 0;
    this.pendEntry[g] = null;
    if (kindOf !== 2) {
      if (applyReply(lim, reply, r)) this.lims[g] = null;
      return;
    }
    // the resend was answered: the fresh sync goes out now
    lim.applySync(reply, r);
    const entry = syncEntryOf(lim, this.key, r);
    if (entry === DROP) this.lims[g] = null;
    else if (entry !== null) {
      this.extraSyncs++;
      this.send(g, r, entry, false);
    }
  }

  /** Sends g's entry to the store at s (unless lost before landing); its reply is due at s + delay. */
  private send(g: number, s: number, entry: SyncEntry, resend: boolean): void {
    const request = this.request;
    request.gatewayId = this.gatewayIds[g];
    if (!resend) ++this.seq[g];
    request.seq = this.seq[g];
    const loss = this.link.loss;
    const lost = loss > 0 && this.net.uniform() < loss;
    const landed = !lost || this.net.uniform() < 0.5;
    const reply = landed ? this.store.syncKey(request, entry, s) : null;
    if (!lost && this.grants) {
      this.counts.returnedSum += (this.lims[g] as LeaseKey).lastReturned;
      this.counts.leaseSyncs++;
    }
    this.pendEntry[g] = entry;
    this.pendReply[g] = lost ? null : reply;
    this.pendKind[g] = resend ? 2 : 1;
    this.replyAt[g] = s + this.roundTripMs();
  }
}
