/**
 * The cap on a gateway's early syncs (Design.earlySyncs): a token bucket of `burst` tokens, refilled
 * at `perSync` tokens per Δ, full at the start. One per gateway, shared by its keys: an early sync is
 * one sync round, whatever key asked for it. Time is a parameter (the simulator's virtual time, the
 * runtime's clock).
 */
export class EarlySyncBucket {
  private tokens: number;
  private at = Number.NaN;
  private readonly perMs: number;

  constructor(
    private readonly burst: number,
    perSync: number,
    syncMs: number,
  ) {
    if (!(burst >= 1)) throw new Error(`earlySyncs.burst must be at least 1; got ${burst}`);
    if (!(perSync > 0)) throw new Error(`earlySyncs.perSync must be positive; got ${perSync}`);
    this.tokens = burst;
    this.perMs = perSync / syncMs;
  }

  private refill(now: number): void {
    if (now > this.at || Number.isNaN(this.at)) {
      if (!Number.isNaN(this.at))
        this.tokens = Math.min(this.burst, this.tokens + (now - this.at) * this.perMs);
      this.at = now;
    }
  }

  /** Takes a token if there is one at `now`. */
  take(now: number): boolean {
    this.refill(now);
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }

  /** The first instant ≥ now at which a token is there (now if one is). */
  nextAt(now: number): number {
    this.refill(now);
    return this.tokens >= 1 ? now : now + (1 - this.tokens) / this.perMs;
  }
}
