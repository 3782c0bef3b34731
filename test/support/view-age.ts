import type { KeyLimiter } from '../../src/designs/key-limiter.js';
import type { AsyncGateway } from '../../src/gateway/runtime/index.js';

/**
 * How stale `key`'s view gets on `gw`: a reader of the longest time between two sync replies reaching
 * the key's state, from `from` on (ms, on `Date.now()`, so fake timers work). A view not refreshed
 * yet ages too. Call the reader often: it also re-attaches when the key's state is replaced.
 */
export function watchSyncReplies(gw: AsyncGateway, key: string, from: number): () => number {
  let last = Number.NaN;
  let longest = 0;
  let lim: KeyLimiter | undefined;
  return () => {
    const cur = gw.limiterFor(key);
    if (cur !== undefined && cur !== lim) {
      lim = cur;
      const apply = cur.applySync.bind(cur);
      cur.applySync = (reply, at) => {
        const t = Date.now();
        if (!Number.isNaN(last) && t >= from) longest = Math.max(longest, t - last);
        last = t;
        apply(reply, at);
      };
    }
    const now = Date.now();
    return Number.isNaN(last) || now < from ? longest : Math.max(longest, now - last);
  };
}
