import { EarlySyncBucket } from '../../designs/early-syncs.js';
import type { Design } from '../../designs/index.js';
import { type KeyLimiter, syncsEarly } from '../../designs/key-limiter.js';

/** What the early syncs drive: the gateway's sync loop. */
export interface EarlySyncTarget {
  /** the sync timer runs (start() was called, stop() was not) */
  readonly running: boolean;
  /** a sync round is in flight (a tick now would be skipped) */
  readonly busy: boolean;
  /** starts one sync round now (skipped if one is in flight) */
  tick(): void;
}

/**
 * Design.earlySyncs in the async runtime: after a decision whose key wants a sync
 * (KeyLimiter.wantsEarlySync), one sync round of the whole gateway is started on the next turn of the
 * event loop (setImmediate: never on the request's path), if the timer runs, no round is in flight or
 * already scheduled, and the gateway's bucket has a token. The bucket caps the store's extra work: at
 * most `perSync` early rounds per Δ over time, `burst` at once.
 */
export class EarlySyncs {
  /** early rounds started */
  sent = 0;
  /** a key wanted one but the bucket was empty */
  capped = 0;
  private scheduled = false;
  private readonly bucket: EarlySyncBucket;

  constructor(
    spec: NonNullable<Design['earlySyncs']>,
    syncMs: number,
    private readonly loop: EarlySyncTarget,
  ) {
    this.bucket = new EarlySyncBucket(spec.burst, spec.perSync, syncMs);
  }

  /** After a decision on `lim` at `now` (decision time). */
  after(lim: KeyLimiter, now: number): void {
    if (
      this.scheduled ||
      !this.loop.running ||
      this.loop.busy ||
      !syncsEarly(lim) ||
      !lim.wantsEarlySync(now)
    )
      return;
    if (!this.bucket.take(now)) {
      this.capped++;
      return;
    }
    this.scheduled = true;
    this.sent++;
    const run = setImmediate(() => {
      this.scheduled = false;
      this.loop.tick();
    });
    run.unref?.();
  }
}
