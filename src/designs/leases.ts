import type { AskReply, LogAdmitReply, SyncEntry, SyncReply } from '../store/contract.js';
import { ALLOW, DENY, type FleetParams, type KeyLimiter, NEED_STORE, type Verdict } from './key-limiter.js';

/**
 * leases: a gateway admits only within slots the store granted it. At each sync it pushes its
 * admits, hands back unused slots and asks for ceil(1.5 × m) + 1, where m is an exponentially
 * weighted mean of its per-interval arrival counts with time constant W. The store never grants
 * past L (admitted in the window + outstanding <= L), so no window ever holds more than L.
 *
 * leases-ask: the same, but a gateway that saw no arrivals since its last sync asks for nothing,
 * and one that runs out asks the store at once (a round trip on that request), sized by the same
 * rule. If the store grants nothing it rejects until its next sync.
 *
 * A grant lapses at the store after the lease TTL; the gateway stops spending it at the same
 * instant, so a gateway cut off from the store never spends slots the store has taken back.
 */
export class LeaseKey implements KeyLimiter {
  readonly design: 'leases' | 'leases-ask';
  private grant = 0;
  private grantExpiresAt = Number.NEGATIVE_INFINITY;
  private meanArrivals = 0;
  private arrivals = 0;
  private lastArrivalAt = Number.NEGATIVE_INFINITY;
  private lastSyncAt: number;
  private pending: number[] = [];
  private inflight: number[] = EMPTY;
  private deniedUntilSync = false;
  /** Slots handed back unused at the last sync (stranded budget, for the study). */
  lastReturned = 0;

  constructor(
    private readonly p: FleetParams,
    private readonly askWhenEmpty: boolean,
    now: number,
  ) {
    this.design = askWhenEmpty ? 'leases-ask' : 'leases';
    this.lastSyncAt = now;
  }

  /** Slots this gateway may still spend. */
  slots(now: number): number {
    if (now >= this.grantExpiresAt) this.grant = 0;
    return this.grant;
  }

  decide(now: number, cost: number): Verdict {
    this.arrivals += cost;
    this.lastArrivalAt = now;
    if (this.slots(now) >= cost) return this.spend(now, cost);
    if (this.askWhenEmpty && !this.deniedUntilSync) return NEED_STORE;
    return DENY;
  }

  private spend(now: number, cost: number): Verdict {
    this.grant -= cost;
    for (let i = 0; i < cost; i++) this.pending.push(now);
    return ALLOW;
  }

  askSize(cost: number): number {
    return Math.max(cost, this.sizeRule());
  }

  private sizeRule(): number {
    return Math.ceil(1.5 * this.meanArrivals) + 1;
  }

  onAskReply(reply: AskReply, now: number, cost: number): boolean {
    if (reply.granted > 0) {
      this.grant = this.slots(now) + reply.granted;
      this.grantExpiresAt = reply.grantExpiresAt;
    }
    if (this.slots(now) >= cost) {
      this.spend(now, cost);
      return true;
    }
    this.deniedUntilSync = true;
    return false;
  }

  onLogReply(_r: LogAdmitReply, _now: number, _cost: number): boolean {
    throw new Error(`${this.design} never calls the log on the request path`);
  }

  noteRejected(n: number, now: number): void {
    this.arrivals += n;
    this.lastArrivalAt = now;
  }

  nextChangeAt(_now: number): number {
    // only a sync brings slots (an ask happens inside decide, before a DENY)
    return Number.POSITIVE_INFINITY;
  }

  remaining(now: number): number {
    return this.slots(now);
  }

  resetAt(_now: number): number {
    return this.lastSyncAt + this.p.syncMs;
  }

  syncEntry(key: string, now: number): SyncEntry {
    const dt = Math.max(0, now - this.lastSyncAt);
    const alpha = 1 - Math.exp(-dt / this.p.policy.windowMs);
    this.meanArrivals += alpha * (this.arrivals - this.meanArrivals);
    const quiet = this.askWhenEmpty
      ? this.arrivals === 0
      : now - this.lastArrivalAt >= this.p.policy.windowMs;
    this.arrivals = 0;
    this.lastReturned = this.slots(now);
    this.grant = 0;
    this.deniedUntilSync = false;
    const admits = this.inflight === EMPTY ? this.pending : this.inflight.concat(this.pending);
    this.inflight = admits;
    this.pending = [];
    this.lastSyncAt = now;
    return { key, admits, read: false, release: true, ask: quiet ? 0 : this.sizeRule() };
  }

  applySync(reply: SyncReply, _now: number): void {
    this.inflight = EMPTY;
    this.grant = reply.granted;
    this.grantExpiresAt = reply.grantExpiresAt;
  }

  syncFailed(_now: number): void {
    if (this.inflight.length > 0) this.pending = this.inflight.concat(this.pending);
    this.inflight = EMPTY;
  }

  unsyncedAdmits(): number {
    return this.pending.length + this.inflight.length;
  }

  isIdle(now: number): boolean {
    return (
      this.pending.length === 0 &&
      this.inflight.length === 0 &&
      this.slots(now) === 0 &&
      now - this.lastArrivalAt >= this.p.policy.windowMs
    );
  }
}

const EMPTY: number[] = [];
