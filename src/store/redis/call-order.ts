// The order a store's calls land in, resends included: a sync goes alone, request-path calls around it.

/**
 * Keeps a store's calls landing in the order they were made, resends included. A call that comes
 * back NOSCRIPT (or MOVED, ASK, TRYAGAIN, CLUSTERDOWN) did not run and is resent; a call made after
 * it, already on the wire or sent meanwhile, may run first (another client may have loaded the
 * script it uses, or its slot may be served elsewhere already). So a sync is exclusive: it is
 * written once every call made before it has settled, and a request-path call (logAdmit, ask,
 * void) made while a sync is pending is sent once that sync has settled, replies and resends and
 * all. Request-path calls run alongside one another: each is one atomic script that checks the
 * limit itself, so their relative order decides nothing a later call could undo. Without a pending
 * sync a request-path call is sent at once, in the caller's turn.
 */
export class CallOrder {
  /** Settles (never rejects) once the last sync made has settled. */
  private lastSync: Promise<void> = Promise.resolve();
  private syncPending = false;
  /** Request-path calls made since the last sync was made and not settled yet. */
  private calls = new Set<Promise<void>>();

  /** A request-path call: after every sync made before it, alongside other request-path calls. */
  request<T>(work: () => Promise<T>): Promise<T> {
    const p = this.syncPending ? this.lastSync.then(work) : work();
    const settled = p.then(
      () => {},
      () => {},
    );
    this.calls.add(settled);
    settled.then(() => this.calls.delete(settled));
    return p;
  }

  /**
   * A sync: `prepare` starts at once (it writes nothing), `send` runs once every call made before
   * this one has settled, and calls made after wait until what `send` returns has settled.
   */
  exclusive<P, T>(prepare: () => Promise<P>, send: (prepared: P) => Promise<T>): Promise<T> {
    const before = [this.lastSync, ...this.calls];
    this.calls = new Set();
    const prepared = prepare();
    const p = Promise.all(before).then(() => prepared.then(send));
    const settled = p.then(
      () => {},
      () => {},
    );
    this.lastSync = settled;
    this.syncPending = true;
    settled.then(() => {
      if (this.lastSync === settled) this.syncPending = false;
    });
    return p;
  }
}
