import type { KeyLimiter } from '../../designs/key-limiter.js';
import { applyReply, DROP, syncEntryOf } from '../../designs/key-steps.js';
import type { LeaseKey } from '../../designs/leases.js';
import type { SyncReply } from '../../store/contract.js';
import type { RunState } from './run-state.js';

/**
 * Syncs that take no time and never fail: each runs through the store at its instant, and its reply
 * is applied at once. A lazy design's syncs (Design.syncs) may be skipped where they change nothing:
 * lastNeeded schedules only the last one before an arrival, and sync skips an unchanged read.
 *
 * Unchanged reads (lazy designs, the flood's common case): a sync with nothing to push, while the
 * store is as the gateway's last sync left it and nothing in it expires before this sync's horizon,
 * is skipped. Why that changes nothing: let s_p be the gateway's last sync and s this one, with no
 * push by any gateway since s_p (storeVersion; a lazy design makes no other store call), the
 * store's count at s the same as its reply at s_p said (readCount: with nothing added, nothing was
 * dropped either, so the store holds what it held after s_p; asking drops what expired by s, as
 * the sync at s would first), and its oldest admit expiring at or after s + H (H the reply's
 * horizon). Then every admit in the store expires at or after s + H > s_p + H: both replies list
 * no expiry and carry the same count. The gateway pushed nothing since s_p (a read), so
 * its pending and in-flight logs are empty, and every own admit still counting is in the store
 * (pushed at or before s_p, unexpired then): the own-admit log the share designs (track-share,
 * adaptive) measure at a sync loses nothing in (s_p, s], and their share comes out of the same
 * numbers. What a synced design keeps from a reply beyond that (horizon, lastSyncAt) decides
 * nothing, and its cached decision inputs recompute to the same values. The store's side of the
 * sync (the gateway's seq, pruning nothing, a sweep that keeps the non-empty record) changes
 * nothing later syncs see. So the sync leaves the gateway as it is, and whether it goes idle is
 * the same question. The tests compare decisions with everySync, which runs every one.
 */
export class InstantSync {
  /** pushes by any gateway so far (lazy designs) */
  private storeVersion = 0;
  /** Per gateway: storeVersion after its last sync (−1: its limiter has not synced), and the store's count then. */
  private readonly readVersion: Float64Array;
  private readonly readCount: Float64Array;
  /** each reply is applied at once (no design keeps the reply object): one object serves them all */
  private readonly reply: SyncReply = {
    count: 0,
    expiries: [],
    expiryCounts: undefined,
    horizon: 0,
    granted: 0,
    grantExpiresAt: 0,
  };
  /** the design's syncs may be skipped (Design.syncs 'lazy', unless every sync is run) */
  private readonly lazy: boolean;
  /** Design.readsFollowRequests, asked for */
  private readonly readsFollow: boolean;

  constructor(private readonly run: RunState) {
    this.lazy = run.syncs === 'lazy';
    this.readsFollow = run.fleet.readsOnRequest === true;
    this.readVersion = new Float64Array(run.K).fill(-1);
    this.readCount = new Float64Array(run.K);
  }

  /** g has a new limiter: it has not synced. */
  forget(g: number): void {
    this.readVersion[g] = -1;
  }

  /** g's sync at s. */
  sync(g: number, s: number): void {
    const run = this.run;
    const lim = run.lims[g];
    if (lim === null) return;
    const store = run.store;
    // (a design whose reads follow requests keeps no such skip: whether it reads, and the view a read
    // leaves, depend on when its last read was; see simulate's scheduling)
    const unchanged =
      this.lazy &&
      !this.readsFollow &&
      this.readVersion[g] === this.storeVersion &&
      lim.unsyncedAdmits() === 0 &&
      store.countOf(run.key, run.fleet.policy, s) === this.readCount[g] &&
      store.headExpiry(run.key) >= s + run.fleet.horizonMs;
    // the gateway drops a key's state once nothing of it is left
    if (unchanged ? lim.isIdle(s) : this.exchange(g, lim, s)) run.lims[g] = null;
  }

  /** g's sync at s through the store; true when nothing is left of the key after it. */
  private exchange(g: number, lim: KeyLimiter, s: number): boolean {
    const run = this.run;
    const entry = syncEntryOf(lim, run.key, s);
    if (entry === DROP) return true;
    if (entry === null) return false;
    const request = run.request;
    const reply = this.reply;
    request.gatewayId = run.gatewayIds[g];
    request.seq = ++run.seq[g];
    run.store.syncKey(request, entry, s, reply);
    // a lease design's syncs count the slots handed back
    if (run.design.grants) {
      run.counts.returnedSum += (lim as LeaseKey).lastReturned;
      run.counts.leaseSyncs++;
    }
    const idle = applyReply(lim, reply, s);
    if (this.lazy) {
      if (entry.admits.length > 0) this.storeVersion++;
      this.readVersion[g] = this.storeVersion;
      this.readCount[g] = reply.count;
    }
    return idle;
  }

  /**
   * A lazy design's gateway with nothing to push, after its sync: the index of the next sync that
   * matters, from `next` on, its next arrival no earlier than `bound`. Only the last sync before the
   * arrival matters, as long as no sync in between would find the key idle and drop the state (not
   * before the store's newest admit expires; later pushes only add to it).
   */
  lastNeeded(g: number, next: number, bound: number): number {
    const { clock, store, key } = this.run;
    // (idxAtOrAfter is monotone: the store's expiry bounds `last` only when it comes before the arrival)
    const latest = store.latestExpiry(key);
    const beforeArrival = clock.idxAtOrAfter(g, bound) - 1;
    const last = latest >= bound ? beforeArrival : Math.min(beforeArrival, clock.idxAtOrAfter(g, latest));
    return Math.max(last, next);
  }
}
