/**
 * The lease designs' mean of arrivals per sync interval, the m of their ask rule ceil(1.5·m) + 1
 * (docs/decisions/0003-leases-follow-the-studied-ask-rule.md): m ← m + α·(arrivals − m) with
 * α = 1 − e^(−Δ/W), Δ the configured interval, so its time constant is W. An interval with no arrivals
 * multiplies it by e^(−Δ/W); those are counted and applied together (m = base·e^(−kΔ/W) after k idle
 * intervals), so a run of idle syncs costs the same however it is split.
 *
 * A base class rather than a member object: LeaseKey is the simulator's hottest per-key state, and
 * the mean's fields on the key itself cost no second object per key nor a load per sync.
 */
export abstract class LeaseMean {
  /** The mean after the last interval with arrivals, and the idle intervals since. */
  protected meanBase = 0;
  protected idleIntervals = 0;
  protected readonly alpha: number;
  protected readonly decay: number;
  /** log(decay), for idleRun's guess (computed once: every park asks for it) */
  protected readonly logDecay: number;
  /** decay^k by k, shared by every key with the same decay (null: too many decays in use). */
  private readonly powers: Float64Array | null;

  constructor(syncMs: number, windowMs: number) {
    this.decay = Math.exp(-syncMs / windowMs);
    this.alpha = 1 - this.decay;
    this.logDecay = Math.log(this.decay);
    this.powers = powersOf(this.decay);
  }

  /** The mean arrivals per interval after `idle` more intervals without arrivals. */
  protected meanAfter(idle: number): number {
    const k = this.idleIntervals + idle;
    return k === 0 ? this.meanBase : this.meanBase * this.decayPow(k);
  }

  /** decay ** k, the power computed once per decay and k (every sync needs one, idleRun a few). */
  protected decayPow(k: number): number {
    const table = this.powers;
    if (table === null || k >= table.length) return this.decay ** k;
    let v = table[k];
    if (Number.isNaN(v)) v = table[k] = this.decay ** k;
    return v;
  }

  /** Closes an interval with `arrivals` arrivals: the per-interval update, the one place it is computed. */
  protected closeInterval(arrivals: number): void {
    if (arrivals === 0) this.idleIntervals++;
    else {
      const m = this.meanAfter(0);
      this.meanBase = m + this.alpha * (arrivals - m);
      this.idleIntervals = 0;
    }
  }
}

/**
 * The powers of each decay in use, filled as asked (NaN: not yet). One decay per policy window and
 * sync interval, so few; past POWERS_DECAYS of them, or past POWERS_MAX intervals, the power is computed.
 */
const POWERS = new Map<number, Float64Array>();
const POWERS_DECAYS = 16;
const POWERS_MAX = 4096;

function powersOf(decay: number): Float64Array | null {
  let table = POWERS.get(decay);
  if (table === undefined) {
    if (POWERS.size >= POWERS_DECAYS) return null;
    table = new Float64Array(POWERS_MAX).fill(Number.NaN);
    POWERS.set(decay, table);
  }
  return table;
}
