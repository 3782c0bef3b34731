import { describe, expect, it } from 'vitest';
import type { DesignId } from '../../src/config.js';
import { ReplayRun } from '../../src/replay/run/engine.js';
import { KeyPool } from '../../src/replay/run/key-pool.js';
import { KeyStats, summarize } from '../../src/replay/run/key-stats.js';
import { randomArrivals } from './support.js';

const W = 10_000;

/** A key's object after a busy stretch on two designs: every count moved, a prior, a chunk place. */
function busyKey(): KeyStats {
  const st = new KeyStats('busy', 2, 0);
  for (let i = 0; i < 40; i++) {
    for (const d of st.designs) {
      d.requests++;
      if (d.liveAt(i * 100, W) < 30) {
        d.admitted++;
        d.worst = Math.max(d.worst, d.admit(i * 100, W));
      } else d.rejected++;
    }
  }
  st.designs[1].honestRejected = 3;
  st.designs[1].overAdmitted = 2;
  st.floodRequests = 4;
  st.logRejected = 5;
  st.prior = summarize(st);
  st.chunkHead = 7;
  st.chunkTail = 9;
  st.lastSeen = 3900;
  return st;
}

describe('reusing a retired key’s objects (KeyPool)', () => {
  it('a reset key is a fresh one: every count zero, no prior, no chunk place, an empty window', () => {
    const st = busyKey();
    // its window still holds admits at this instant: a reset must empty it, not wait for them to age
    expect(st.designs[0].liveAt(4000, W)).toBe(30);
    st.reset('next', 4000);
    const fresh = new KeyStats('next', 2, 4000);
    expect(summarize(st)).toEqual(summarize(fresh));
    expect(st).toMatchObject({ key: 'next', lastSeen: 4000, prior: undefined, chunkHead: -1, chunkTail: -1 });
    for (const [i, d] of st.designs.entries()) {
      expect(d.rejected).toBe(fresh.designs[i].rejected);
      expect(d.liveAt(4000, W)).toBe(0);
      expect(d.admit(4000, W)).toBe(1);
    }
    expect(st.worthSummary).toBe(false);
  });

  it('the pool hands back what it was given, reset, and keeps at most its capacity', () => {
    const pool = new KeyPool(2, 1);
    const a = busyKey();
    const b = busyKey();
    pool.give(a);
    pool.give(b);
    expect(pool.size).toBe(1);
    const c = pool.take('c', 5000);
    expect(c).toBe(a);
    expect(summarize(c)).toEqual(summarize(new KeyStats('c', 2, 5000)));
    expect(pool.take('d', 5000)).not.toBe(b);
  });

  it('a replay of keys that come and go decides and counts the same with the pool as without', () => {
    // 3,000 keys at 60 lines a second: a key is back every ~50 s, W is 10 s, so nearly every key's
    // stretch is a reused object; floods and four gateways give honest rejections and over-admits
    const arrivals = randomArrivals(7, 40_000, { keys: 3000, gateways: 4, perSec: 60, floodEvery: 13 });
    // a few busy keys among them, affected enough to be ranked
    for (let i = 0; i < arrivals.length; i += 3) arrivals[i] = { ...arrivals[i], key: `busy${i % 4}` };
    const designs: DesignId[] = ['split', 'shared-counter', 'central-log'];
    const run = (pool: number, chunk: number) => {
      const r = new ReplayRun(
        { designs, gateways: 4, limit: 3, windowMs: W, syncMs: 1000, seed: 1, top: 50 },
        null,
        { pool, chunk },
      );
      const decided: number[] = [];
      for (const a of arrivals) {
        r.push(a);
        if (chunk === 0) decided.push(...r.decided);
      }
      return { result: r.finish(), decided };
    };
    const fresh = run(0, 0);
    const pooled = run(1 << 18, 0);
    expect(fresh.result.top[0].byHonestRejected.length).toBeGreaterThan(10);
    expect(fresh.result.top[1].byOverAdmitted.length).toBeGreaterThan(2);
    expect(pooled.decided).toEqual(fresh.decided);
    expect(pooled.result).toEqual(fresh.result);
    expect(run(1 << 18, 4096).result).toEqual(fresh.result);
  });
});
