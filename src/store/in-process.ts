// A sync with a store in the same process, entry by entry: the in-memory store's fast path for the
// library's Gateway (docs/decisions/0002). The store contract's sync() stays the reference, and the
// only form a store over a network has: this one only saves the request's entries array, the
// replies array and a reply object per key, which a network store needs.
import type { Store, SyncEntry, SyncReply, SyncRequest } from './contract.js';

/**
 * A store that applies a sync's entries one at a time, each reply written into the caller's object,
 * deciding exactly as sync() with those entries would. The caller applies each reply before it asks
 * for the next entry's, so it may reuse one reply object: nothing in it is kept by the store.
 */
export interface InProcessSync {
  /**
   * Starts a sync of `req` (its `entries` are not read) at `now`. False: the store cannot take it
   * entry by entry (a seq not above every one this gateway sent, whose keys sync() checks before
   * writing any; an incarnation to answer; a subclass's own sync()): the caller sends sync()
   * instead, nothing was changed.
   */
  openSync(req: SyncRequest, now: number): boolean;
  /** One entry of the sync openSync started, as sync() applies it; its reply written into `out`. */
  syncNext(req: SyncRequest, entry: SyncEntry, now: number, out: SyncReply): SyncReply;
}

export function syncsInProcess(store: Store): store is Store & InProcessSync {
  const s = store as Partial<InProcessSync>;
  return typeof s.openSync === 'function' && typeof s.syncNext === 'function';
}
