/**
 * Incarnations. The store knows this gateway as `incarnation`, its id and a random nonce drawn at
 * start; seqs count from 1 under it. A seq from the clock (as before) put a restart on a clock behind,
 * or two live gateways with one id, below the seqs the store had applied: every sync refused as stale,
 * or taken for a replay and dropped (issue 17, item 8).
 *
 * IdClaims: this incarnation's claims on its gateway id at the store. A round's first sync request
 * carries the claim (SyncRequest.incarnationOf); the store answers with the incarnation it replaced.
 * Once a claim of ours was answered, finding another one there means another live gateway synced with
 * our id since: reported loudly (the metric, the 'duplicateId' event, one console.warn), never
 * silently. The first answer may name the previous run of this id (a restart): not a twin.
 */
export class IdClaims {
  /** This round's first sync request claims the id. */
  private due = false;
  /** The store answered a claim of this incarnation's: a later claim that finds another one is a twin's. */
  private claimed = false;
  /** The last answered claim found another live gateway with this id. */
  duplicate = false;
  /** Answered claims that found one. */
  duplicateSyncs = 0;

  constructor(
    private readonly id: string,
    private readonly incarnation: string,
  ) {}

  /** A new round: its first request claims the id, unless it is a stopping gateway's last (`final`). */
  startRound(final: boolean): void {
    // a stopping gateway's last sync claims nothing: a successor may be syncing under the id already
    this.due = !final;
  }

  /** Whether this request carries the claim (the round's first does; only one). */
  take(): boolean {
    const claim = this.due;
    this.due = false;
    return claim;
  }

  /**
   * The store's answer to a claim: the incarnation it replaced (undefined: the store said nothing).
   * Returns the twin's incarnation when another live gateway uses this id, else null.
   */
  answered(previous: string | null | undefined): string | null {
    if (previous === undefined) return null;
    const twin = this.claimed && previous !== null && previous !== this.incarnation;
    this.claimed = true;
    this.duplicate = twin;
    if (!twin) return null;
    if (this.duplicateSyncs++ === 0) {
      console.warn(
        `fleetlimit: another live gateway syncs with this gateway's id "${this.id}" (incarnation ${previous}; this one is ${this.incarnation}): every gateway needs an id of its own, or the limit's split over the fleet is off`,
      );
    }
    return previous;
  }
}
