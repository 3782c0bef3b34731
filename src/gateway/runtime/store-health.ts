/**
 * Whether the store counts as reachable: from the local time of its last good reply, and whether a
 * store call failed since. Every local reading is passed in: the rule takes no clock of its own.
 *
 * "The store did not answer" is told apart from "the gateway did not ask" (issue 32, item 1). A view
 * grows stale in both, but only the first is an outage: a sync timer that could not run (an event
 * loop busy with a burst of requests) sent nothing that could fail. So the age of the last good reply
 * puts the gateway on its fail mode only once a call has failed since it (timed out, refused, or
 * answered with an error). While the gateway asks on time the two are the same rule: a store that
 * stops answering fails the next sync, Δ + storeTimeoutMs after the last good reply at the latest,
 * before staleAfterMs (at least Δ + storeTimeoutMs, see requireStaleAfterMs) has run out. A stalled
 * gateway keeps deciding on its last view, which errs towards rejecting as it ages (a limiter keeps
 * the rest of its count past the expiry horizon), rather than admitting everything (`open`) or
 * rejecting honest requests past L/K (`local`).
 */
export class StoreHealth {
  /** Local clock time of the last good store reply; NaN before the first. */
  lastGoodAt = Number.NaN;
  /** A store call failed and none has succeeded since. */
  failing = false;

  /**
   * `createdAt`: the gateway's start (the age before any reply counts from it); `callsOnRequest`: the
   * design calls the store on the request path (see down).
   */
  constructor(
    private readonly createdAt: number,
    private readonly staleAfterMs: number,
    private readonly callsOnRequest: boolean,
  ) {}

  /**
   * Whether decisions must not rely on the store at local time `local`: a call failed since the last
   * good reply, and that reply (or the start, before any) is older than staleAfterMs. Designs that call
   * the store on the request path stop calling it as soon as one call failed, so requests do not each
   * wait out the timeout on a store that is gone; the next good sync (the timer keeps trying) brings
   * them back. Without a failure the store is never down: nothing was asked that it left unanswered.
   */
  down(local: number): boolean {
    if (!this.failing) return false;
    if (this.callsOnRequest) return true;
    return this.ageMs(local) > this.staleAfterMs;
  }

  /** A store reply arrived at local time `t`. */
  answered(t: number): void {
    if (Number.isNaN(this.lastGoodAt) || t > this.lastGoodAt) this.lastGoodAt = t;
    this.failing = false;
  }

  /** Since the last good reply, or since the start if there was none, at local time `t`. */
  ageMs(t: number): number {
    const since = Number.isNaN(this.lastGoodAt) ? this.createdAt : this.lastGoodAt;
    return Math.max(0, t - since);
  }
}
