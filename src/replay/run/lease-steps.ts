/**
 * The lease designs' part of the per-key syncs (KeySyncs, src/replay/run/key-syncs.ts: why exact): a
 * gateway's sync of a key, with an idle gateway's syncs that re-grant what it holds applied at once,
 * and leases-ask's ask on a request.
 */
import type { AsksStore, KeyLimiter } from '../../designs/key-limiter.js';
import { applyReply, DROP, syncEntryOf } from '../../designs/key-steps.js';
import type { LeaseKey } from '../../designs/leases.js';
import type { Gateway } from '../../gateway/gateway.js';
import type { AskReply, AskRequest, SyncEntry, SyncReply, SyncRequest } from '../../store/contract.js';
import type { MemoryStore } from '../../store/memory-store.js';
import type { Slot, SyncClock } from './key-track.js';

export class LeaseSteps {
  /** Key-syncs the last `step` ran or applied. */
  counted = 0;
  /** Asks sent on requests' path so far (leases-ask). */
  askCalls = 0;
  /** The ask of a request (one object: the store keeps nothing of it). */
  private readonly askReq: AskRequest;
  /** Its reply, written by the store (one object: the gateway reads it at once). */
  private readonly askReply: AskReply = {
    granted: 0,
    grantExpiresAt: 0,
    now: 0,
    count: 0,
    oldestExpiry: 0,
    free: 0,
  };
  /** The instants LeaseKey.idleRun asks about: idleAt(j) = syncAt(idleFrom + j·K). */
  private idleFrom = 0;
  private readonly idleAt: (j: number) => number;

  constructor(
    private readonly clock: SyncClock,
    private readonly gws: readonly Gateway[],
    private readonly store: MemoryStore,
    /** KeySyncs' own: the gateways' sync requests, a sync's entry and its reply (one object each). */
    private readonly reqs: readonly SyncRequest[],
    private readonly entry: SyncEntry,
    private readonly reply: SyncReply,
    /** Per gateway, its place in the fleet's sync order. */
    private readonly place: readonly number[],
  ) {
    const fleet = gws[0].options.fleet;
    this.askReq = {
      gatewayId: '',
      key: '',
      policy: fleet.policy,
      leaseTtlMs: fleet.leaseTtlMs,
      ask: 0,
      seq: 0,
    };
    const K = clock.K;
    this.idleAt = (j: number) => clock.syncAt(this.idleFrom + j * K);
  }

  /**
   * leases-ask's ask, as Gateway.allow sends it (callStore), tagged with the gateway's last sync
   * before it: the count of its sync indices below `end`. The walk's seq counts only the syncs the
   * gateway sent, but a tag only has to fall between the syncs around the ask (the store hands a
   * grant back at the gateway's first sync tagged above it), and the key's syncs are the same.
   */
  ask(lim: KeyLimiter & AsksStore, key: string, g: number, t: number, end: number): boolean {
    const K = this.clock.K;
    const req = this.askReq;
    req.gatewayId = this.gws[g].id;
    req.key = key;
    req.ask = lim.askSize(1);
    req.seq = Math.max(0, Math.floor((end - this.place[g] + K - 1) / K));
    this.askCalls++;
    return lim.onAskReply(this.store.askKey(req, t, this.askReply), t, 1);
  }

  /**
   * A lease design's sync i of the key on gateway g (held there): every sync runs (each renews the
   * key's grant), except that an idle gateway's syncs answered with exactly what it holds are applied
   * at once, as the simulator's parked gateways are (LeaseKey.fastForwardIdle, and the store's
   * renewLease for the lease they renew); returns g's next sync index (+∞: the key dropped there),
   * the key-syncs in `counted`.
   */
  step(key: string, slot: Slot, lim: LeaseKey, g: number, i: number, end: number): number {
    const clock = this.clock;
    const K = clock.K;
    const s = clock.syncAt(i);
    this.counted = 0;
    if (lim.unsyncedAdmits() === 0) {
      // idle here: the syncs from i that the store would answer with exactly what it holds
      const held = lim.slots(s);
      this.idleFrom = i;
      const n = lim.fastForwardIdle(this.idleAt, Math.floor((end - 1 - i) / K) + 1);
      if (n > 0) {
        this.counted = n;
        // the store's side of them: the lease renewed by the last, as that sync's re-grant would
        const last = clock.syncAt(i + (n - 1) * K);
        if (held > 0) this.store.renewLease(key, this.gws[g].id, last + this.reqs[g].leaseTtlMs);
        return i + n * K;
      }
    }
    const e = syncEntryOf(lim, key, s, this.entry);
    if (e === null) return i + K;
    if (e !== DROP) {
      this.counted = 1;
      const req = this.reqs[g];
      req.seq = Math.floor(i / K) + 1;
      if (!applyReply(lim, this.store.syncNext(req, e, s, this.reply), s)) return i + K;
    }
    slot.lim = null;
    return Number.POSITIVE_INFINITY;
  }
}
