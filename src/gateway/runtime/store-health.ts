/**
 * Whether the store counts as reachable: from the local time of its last good reply, and whether the
 * last store call failed. Every local reading is passed in.
 */
export class StoreHealth {
  /** Local clock time of the last good store reply; NaN before the first. */
  lastGoodAt = Number.NaN;
  /** The last store call failed and none has succeeded since. */
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
   * Whether decisions must not rely on the store at local time `local`. Designs that call the store on
   * the request path also stop calling it as soon as one call failed, so requests do not each wait
   * out the timeout on a store that is gone; the next good sync (the timer keeps trying) brings them
   * back.
   */
  down(local: number): boolean {
    const since = Number.isNaN(this.lastGoodAt) ? this.createdAt : this.lastGoodAt;
    if (local - since > this.staleAfterMs) return true;
    return this.failing && this.callsOnRequest;
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
