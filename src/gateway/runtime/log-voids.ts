import type { LogVoid } from '../../store/contract.js';
import type { FailureCause } from './failure-cause.js';
import type { Settled } from './timeout.js';

/**
 * central-log calls that failed or timed out, to take back at the store (voidLogAdmits) before the
 * next sync: a call that landed anyway stops counting, and one still on its way is refused when it
 * lands. What the gateway admitted meanwhile reaches the store through its outage records, so the
 * store ends up counting exactly what was admitted. At most `max` are kept (the oldest go first).
 */
export class LogVoids {
  private list: LogVoid[] = [];
  private seq = 0;
  /** Calls taken back at the store (voidLogAdmits answered). */
  voided = 0;

  constructor(private readonly max: number) {}

  /** Calls waiting to be taken back. */
  get pending(): number {
    return this.list.length;
  }

  /** Numbers this incarnation's next central-log call (voids name them), from 1. */
  nextSeq(): number {
    return ++this.seq;
  }

  /** A call that failed or timed out: it may have landed, or land later. */
  add(v: LogVoid): void {
    this.list.push(v);
    if (this.list.length > this.max) this.list.shift();
  }

  /** Every pending void, for one voidLogAdmits call; hand the reply to `settled`. */
  take(): LogVoid[] {
    const voids = this.list;
    this.list = [];
    return voids;
  }

  /**
   * The store's answer to the voids `take` gave. Kept for the next round if it did not answer (ahead
   * of any added meanwhile); the failure is returned, with the first void's key.
   */
  settled(
    voids: LogVoid[],
    r: Settled<unknown>,
  ): { key: string; timedOut: boolean; cause: FailureCause; error?: unknown } | null {
    if (r.ok) {
      this.voided += voids.length;
      return null;
    }
    this.list = voids.concat(this.list);
    if (this.list.length > this.max) this.list.splice(0, this.list.length - this.max);
    return { key: voids[0].key, timedOut: r.timedOut, cause: r.cause, error: r.error };
  }
}
