/** What sizes the horizon: Δ, the configured floor and W (ResolvedOptions' fleet and policy). */
export interface HorizonBounds {
  syncMs: number;
  /** The configured horizon: never less. */
  horizonMs: number;
  /** W: where every expiry is listed; never more. */
  windowMs: number;
}

/**
 * How far ahead a sync's replies list expiries. A key ages its view with them until the next reply is
 * applied; past the horizon it keeps the rest of the count, erring towards rejecting. A sync of many
 * keys (thousands of an attacker's, say) takes longer to build, run and apply than Δ, and a fixed
 * horizon of a few Δ then runs out before the next reply lands: every key, the real ones too, rejects
 * admits it would take with a timely view. So the horizon is at least twice the longest of the last
 * few sync cycles (see noteReply), up to W, and never below the configured one. A longer list is only
 * more of the truth: it never admits what the store would refuse. Time is passed in.
 */
export class HorizonSizer {
  /** The last CYCLE_SAMPLES sync cycles, ms: from a reply's store time to the end of applying the next reply, a ring. */
  private readonly cycles: number[] = [];
  private next = 0;
  /**
   * Store time of the first answer of the last round; NaN if a part of it failed (the cycle that
   * follows is an outage's, not a sync's). A key answered in that round's first part may be in this
   * round's last: its next reply comes that long after.
   */
  private prevRoundReply = Number.NaN;
  /** The same for the round running now. */
  private roundReply = Number.NaN;
  private roundFailed = false;

  constructor(private readonly bounds: HorizonBounds) {}

  /** A sync round begins: the last one's first reply becomes the reference of this one's cycles. */
  startRound(): void {
    this.prevRoundReply = this.roundFailed ? Number.NaN : this.roundReply;
    this.roundReply = Number.NaN;
    this.roundFailed = false;
  }

  /** A part of this round failed. */
  partFailed(): void {
    this.roundFailed = true;
  }

  /**
   * A cycle sample, when a part's reply (store time `replyNow`) has been applied at `now`: from the
   * last round's first reply to now; and at least this sync's own duration (from `builtFrom`: build,
   * round trip, apply) plus Δ, the wait for the next tick: what the next cycle will take if the next
   * sync is as slow. That one is known from the first sync on, so a key table that grows at once (an
   * attack from the start) has its horizon sized by its first sync.
   */
  noteReply(replyNow: number, builtFrom: number, now: number): void {
    const next = now - builtFrom + this.bounds.syncMs;
    const cycle = Number.isNaN(this.prevRoundReply) ? next : Math.max(next, now - this.prevRoundReply);
    const ring = this.cycles;
    if (ring.length < CYCLE_SAMPLES) ring.push(cycle);
    else ring[this.next] = cycle;
    this.next = (this.next + 1) % CYCLE_SAMPLES;
    if (Number.isNaN(this.roundReply)) this.roundReply = replyNow;
  }

  /** The horizon of the next sync's replies. */
  horizonMs(): number {
    const { horizonMs, windowMs } = this.bounds;
    let longest = 0;
    for (const c of this.cycles) if (c > longest) longest = c;
    return Math.max(horizonMs, Math.min(windowMs, Math.ceil(CYCLE_MARGIN * longest)));
  }
}

/** Sync cycles the expiry horizon is sized from (the longest, see horizonMs). */
const CYCLE_SAMPLES = 8;
/** The horizon covers this many times the longest recent cycle: the next one may run longer. */
const CYCLE_MARGIN = 2;
