/**
 * Each gateway's sync instants, phase + n·Δ, and the next one it will run. An instant is always
 * computed from its index n (never by adding Δ), so skipping syncs changes no instant.
 */
export class SyncClock {
  /** Each gateway's first sync instant, in [0, Δ). */
  readonly phase: Float64Array;
  /** Each gateway's next sync instant to run (Infinity: none) and its index. */
  readonly nextSync: Float64Array;
  readonly nextSyncIdx: Float64Array;
  private readonly D: number;

  constructor(gateways: number, syncMs: number) {
    this.D = syncMs;
    this.phase = new Float64Array(gateways);
    this.nextSync = new Float64Array(gateways);
    this.nextSyncIdx = new Float64Array(gateways);
  }

  /** g's sync instant of index idx. */
  instant(g: number, idx: number): number {
    return this.phase[g] + idx * this.D;
  }

  /** The index of g's first sync instant at or after t. */
  idxAtOrAfter(g: number, t: number): number {
    if (t === Number.POSITIVE_INFINITY) return Number.POSITIVE_INFINITY;
    let i = Math.max(0, Math.ceil((t - this.phase[g]) / this.D));
    // guard the float division: the instant itself decides
    while (i > 0 && this.instant(g, i - 1) >= t) i--;
    while (this.instant(g, i) < t) i++;
    return i;
  }

  /** g's next sync to run is the one of index idx (Infinity: none). */
  setNext(g: number, idx: number): void {
    this.nextSyncIdx[g] = idx;
    this.nextSync[g] = idx === Number.POSITIVE_INFINITY ? idx : this.instant(g, idx);
  }
}

/** Every gateway syncs every Δ from its phase until the end, whether or not the simulator ran that sync. */
export function scheduledSyncs(phase: Float64Array, D: number, end: number): number {
  let syncs = 0;
  for (let g = 0; g < phase.length; g++) if (phase[g] < end) syncs += Math.ceil((end - phase[g]) / D);
  return syncs;
}
