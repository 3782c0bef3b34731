/** Store replies the clock offset is chosen from (the one with the shortest round trip). */
const OFFSET_SAMPLES = 8;
/** The store's clock counts whole milliseconds (Redis TIME, floored). */
const STORE_TICK_MS = 1;
/** The default local clock (Date.now) counts whole milliseconds: a round trip read as 0 ms took up to 1. */
const CLOCK_TICK_MS = 1;

/**
 * The gateway's estimate of the store's clock: decision time is a local clock reading + the offset,
 * never going backwards. Each store reply carries the store's now; the offset is store now − the local
 * midpoint of the call, taken from the reply with the shortest round trip among the last
 * OFFSET_SAMPLES (as NTP's clock filter does): off by at most half that round trip + the local clock's
 * tick, and a reply that waited behind a stalled event loop (its midpoint late) is not the one used.
 * It never reads a clock: every local reading is passed in.
 */
export class StoreClock {
  private offset = 0;
  private error = Number.NaN;
  /** The last OFFSET_SAMPLES (offset, round trip) pairs, a ring. */
  private readonly samples: { offset: number; rtt: number }[] = [];
  private next = 0;
  /** The latest decision time handed out (or store time learnt): time never goes back below it. */
  private last = Number.NEGATIVE_INFINITY;
  private knows = false;
  /** Decisions wait for the store's clock first (see waitsForClock); cleared once they no longer do. */
  waiting: boolean;

  /**
   * `ownClock`: the store's times are on its own clock (AsyncStore.clock 'store', Redis TIME), so every
   * reply is a sample, even one whose time equals the time sent (the clocks agree to the millisecond).
   * Otherwise the store echoes the time sent, and no reply says anything of an offset.
   */
  constructor(
    waiting: boolean,
    private readonly ownClock = false,
  ) {
    this.waiting = waiting;
  }

  /** Store time − local time, from the reply with the shortest recent round trip. */
  get offsetMs(): number {
    return this.offset;
  }

  /** How far offsetMs can be off (NaN before the first reply with a store time). */
  get offsetErrorMs(): number {
    return this.error;
  }

  /** A store reply has told this gateway the store's time. */
  get known(): boolean {
    return this.knows;
  }

  /** Decision time at local clock reading `local`. */
  timeAt(local: number): number {
    const t = local + this.offset;
    if (t > this.last) this.last = t;
    return this.last;
  }

  /**
   * Decision time for a sync's own bookkeeping. Until the store's clock is known it does not hold the
   * decision clock there: the first sync reads the clock before its reply brings the offset, and a
   * gateway whose clock runs seconds ahead would stay at that reading, seconds ahead of the store,
   * until the store's clock caught up, ageing the store's admits out early meanwhile.
   */
  bookAt(local: number): number {
    if (this.knows) return this.timeAt(local);
    return Math.max(this.last, local + this.offset);
  }

  /**
   * A reply's store time `storeNow` to a call made between local readings `t0` and `t1`. A store that ran on the time we sent it (the in-memory store, or
   * RedisStore in caller-time mode) says nothing about its own clock; learning from that echo would
   * feed half of every round trip back into the offset, and it would drift by that much at each sync.
   * Which one it is, the store says (ownClock), not the equality: a Redis whose TIME agrees with this
   * gateway to the millisecond answers with the time sent too, and skipping those left the offset's
   * error unknown (NaN), so grants were spent without the lapse margin.
   */
  learn(storeNow: number, t0: number, t1: number): void {
    if (!Number.isFinite(storeNow)) return;
    this.knows = true;
    this.waiting = false;
    // Never decide at a time before the store's answer: a grant made at store time s, spent at a
    // local estimate below s, would put an admit within W of one the store had already let expire.
    if (storeNow > this.last) this.last = storeNow;
    if (!this.ownClock) return;
    const sample = { offset: storeNow - (t0 + t1) / 2, rtt: Math.max(0, t1 - t0) };
    const ring = this.samples;
    if (ring.length < OFFSET_SAMPLES) ring.push(sample);
    else ring[this.next] = sample;
    this.next = (this.next + 1) % OFFSET_SAMPLES;
    let best = ring[0];
    for (const x of ring) if (x.rtt < best.rtt) best = x;
    this.offset = best.offset;
    this.error = best.rtt / 2 + CLOCK_TICK_MS;
  }

  /**
   * A grant lapses at the store at `grantExpiresAt` on the store's clock; this gateway reads that clock
   * as local time + offset, which may run behind it by offsetErrorMs, and the store counts whole
   * milliseconds. Stopping that much earlier means a slot is never spent after the store took it back
   * and may have granted it again.
   */
  withLapseMargin<R extends { granted: number; grantExpiresAt: number }>(reply: R): R {
    if (reply.granted === 0 || Number.isNaN(this.error)) return reply;
    return { ...reply, grantExpiresAt: reply.grantExpiresAt - this.error - STORE_TICK_MS };
  }
}
