/**
 * Merges K streams of arrivals, each in time order, into one in time order; ties go to the lower
 * stream (file order). Holds one batch per stream. K is small (gateways' logs), so the next arrival
 * is found by a scan of the K heads, not a heap.
 */
import type { Arrival } from '../arrival.js';

const OUT_BATCH = 4096;

export async function* mergeSorted(sources: AsyncIterator<Arrival[]>[]): AsyncGenerator<Arrival[]> {
  if (sources.length === 1) {
    const only = sources[0];
    try {
      for (let r = await only.next(); !r.done; r = await only.next()) yield r.value;
    } finally {
      await only.return?.();
    }
    return;
  }
  const heads: (Arrival[] | null)[] = sources.map(() => null);
  const at: number[] = sources.map(() => 0);
  /** Reads stream k's next non-empty batch (null once it has ended). */
  const refill = async (k: number) => {
    for (;;) {
      const r = await sources[k].next();
      if (r.done) {
        heads[k] = null;
        return;
      }
      if (r.value.length > 0) {
        heads[k] = r.value;
        at[k] = 0;
        return;
      }
    }
  };
  try {
    for (let k = 0; k < sources.length; k++) await refill(k);
    let out: Arrival[] = [];
    for (;;) {
      let best = -1;
      let bestT = 0;
      for (let k = 0; k < heads.length; k++) {
        const h = heads[k];
        if (h === null) continue;
        const t = h[at[k]].t;
        if (best < 0 || t < bestT) {
          best = k;
          bestT = t;
        }
      }
      if (best < 0) break;
      const h = heads[best]!;
      out.push(h[at[best]++]);
      if (at[best] === h.length) await refill(best);
      if (out.length >= OUT_BATCH) {
        yield out;
        out = [];
      }
    }
    if (out.length > 0) yield out;
  } finally {
    // a consumer that stops early: close every file still open
    await Promise.all(sources.map((s) => s.return?.()));
  }
}
