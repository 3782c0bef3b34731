type Timer = { kind: 'timeout' | 'interval'; handle: ReturnType<typeof setTimeout> };

/**
 * The sync timer: `tick` every `everyMs`, the first at a random phase in [0, everyMs) so a fleet's
 * syncs spread out. Unref'd: it never keeps the process alive.
 */
export class SyncTimer {
  private timer: Timer | null = null;

  constructor(
    private readonly everyMs: number,
    /** Uniform in [0, 1): the phase. */
    private readonly random: () => number,
    private readonly tick: () => void,
  ) {}

  get running(): boolean {
    return this.timer !== null;
  }

  start(): void {
    if (this.timer !== null) return;
    const every = this.everyMs;
    const phase = this.random() * every;
    const first = setTimeout(() => {
      this.tick();
      const each = setInterval(() => this.tick(), every);
      each.unref?.();
      this.timer = { kind: 'interval', handle: each };
    }, phase);
    first.unref?.();
    this.timer = { kind: 'timeout', handle: first };
  }

  stop(): void {
    if (this.timer === null) return;
    if (this.timer.kind === 'timeout') clearTimeout(this.timer.handle);
    else clearInterval(this.timer.handle);
    this.timer = null;
  }
}
