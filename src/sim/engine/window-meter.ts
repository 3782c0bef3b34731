/**
 * What a run's admits add up to over windows: the admits in the trailing W-long span at each admit
 * (its most, its most around the flood's onset, the admits over L), or per fixed window.
 */
export class WindowMeter {
  admitted = 0;
  /** admits at or after W (the first window fills from empty) */
  admittedAfterFirstWindow = 0;
  /** the most admits in any W-long span */
  worst = 0;
  /** the most in a span ending in the onset's window [onsetAt, onsetAt + W) */
  onsetWorst = 0;
  /** admits that took a window over L (sliding: each one over; fixed: each window once) */
  overLimit = 0;
  private readonly W: number;
  private readonly L: number;
  private readonly fixed: boolean;
  private readonly onsetAt: number;
  private readonly onsetEnd: number;
  /** the admit instants of the trailing span: a ring buffer, grown when full */
  private recent = new Float64Array(1 << 12);
  private head = 0;
  private len = 0;
  private fixedIdx = -1;
  private fixedCount = 0;

  /** onsetAt: when the flood comes on (−1: none). */
  constructor(windowMs: number, limit: number, fixed: boolean, onsetAt: number) {
    this.W = windowMs;
    this.L = limit;
    this.fixed = fixed;
    this.onsetAt = onsetAt;
    this.onsetEnd = onsetAt >= 0 ? onsetAt + windowMs : Number.NEGATIVE_INFINITY;
  }

  /** An admit at t (t never decreases). */
  noteAdmit(t: number): void {
    const W = this.W;
    this.admitted++;
    if (t >= W) this.admittedAfterFirstWindow++;
    // trailing W-long span ending at t
    let buf = this.recent;
    let mask = buf.length - 1;
    let head = this.head;
    let len = this.len;
    while (len > 0 && t - buf[head] >= W) {
      head = (head + 1) & mask;
      len--;
    }
    if (len === buf.length) {
      const grown = new Float64Array(buf.length * 2);
      for (let i = 0; i < len; i++) grown[i] = buf[(head + i) & mask];
      this.recent = buf = grown;
      head = 0;
      mask = grown.length - 1;
    }
    buf[(head + len) & mask] = t;
    len++;
    this.head = head;
    this.len = len;
    if (len > this.worst) this.worst = len;
    if (t >= this.onsetAt && t < this.onsetEnd && len > this.onsetWorst) this.onsetWorst = len;
    if (this.fixed) {
      const idx = Math.floor(t / W);
      if (idx !== this.fixedIdx) {
        this.fixedIdx = idx;
        this.fixedCount = 0;
      }
      if (++this.fixedCount === this.L + 1) this.overLimit++;
    } else if (len > this.L) this.overLimit++;
  }
}
