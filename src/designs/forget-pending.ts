import type { AdmitLog } from '../window/run-log.js';
import type { TakesBack } from './key-limiter.js';

/**
 * A reset (Forgets) on a design that holds its own admits pending until a sync: every live pending run
 * taken back as a refund of it would be. Returns the admits taken back here (TakeBack 'local').
 */
export function forgetPending(limiter: TakesBack, pending: AdmitLog, now: number): number {
  const { times, counts } = pending.liveRuns();
  let n = 0;
  for (let i = 0; i < times.length; i++) {
    if (limiter.takeBack(times[i], counts[i], now) === 'local') n += counts[i];
  }
  return n;
}
