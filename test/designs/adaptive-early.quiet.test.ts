/**
 * adaptive-early's quietWhile: the bound under which the replay's checked chunks skip saving a key
 * (src/replay/run/key-checkpoints.ts, `quiet`). Driven with chosen and with seeded scripts of syncs
 * and requests that keep within the bound's premises (own admits per sync interval ≤ ownMax, every
 * read's count ≤ countMax, all before `until`; syncs Δ apart or closer, as early ones come): wherever a decision wanted an early sync, the bound
 * must have said false; and it says true often enough to be of use.
 */
import { describe, expect, it } from 'vitest';
import { makePolicy } from '../../src/config.js';
import { AdaptiveEarlyKey } from '../../src/designs/adaptive-early.js';
import type { FleetParams } from '../../src/designs/key-limiter.js';
import type { SyncReply } from '../../src/store/contract.js';

const W = 60_000;
const DELTA = 1000;

function params(limit: number, gateways: number): FleetParams {
  return { policy: makePolicy(limit, W), gateways, syncMs: DELTA, leaseTtlMs: 3 * DELTA, horizonMs: DELTA };
}

function reply(count: number, now: number): SyncReply {
  return { count, expiries: [], horizon: now + DELTA, granted: 0, grantExpiresAt: 0 };
}

function sync(lim: AdaptiveEarlyKey, now: number, count: number): void {
  lim.syncEntry('k', now);
  lim.applySync(reply(count, now), now);
}

/** A script: per sync interval i (a sync at i·Δ reading counts[i]), decides[i] requests after it. */
interface Script {
  limit: number;
  K: number;
  /** The read before the bound is asked, at 0. */
  first: number;
  counts: number[];
  decides: number[];
  /** The span between two syncs (Δ: regular ones; less: early ones among them). */
  gap?: number;
}

/** Runs a script on a new key; whether the bound said quiet (asked after the first read) and whether a decision wanted an early sync. */
function run(s: Script): { quiet: boolean; wanted: boolean } {
  const lim = new AdaptiveEarlyKey(params(s.limit, s.K), 0);
  sync(lim, 0, s.first);
  const n = s.counts.length;
  const ownMax = Math.max(0, ...s.decides);
  const countMax = Math.max(0, ...s.counts);
  const gap = s.gap ?? DELTA;
  const until = n * gap;
  const quiet = lim.quietWhile(ownMax, countMax, 0, until);
  let wanted = false;
  for (let i = 0; i < n; i++) {
    const at = i * gap;
    if (i > 0) sync(lim, at, s.counts[i]);
    for (let d = 0; d < s.decides[i]; d++) {
      const t = at + 1 + (d * (gap - 2)) / Math.max(1, s.decides[i]);
      lim.decide(t, 1);
      if (lim.wantsEarlySync(t)) wanted = true;
    }
  }
  return { quiet, wanted };
}

/** A seeded generator (mulberry32): the scripts are the same on every run. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('adaptive-early: quietWhile, the bound of a checked chunk’s unsaved keys', () => {
  it('is false where the view already counts near the limit (known ≤ the view’s count, not only countMax)', () => {
    // L = 30, K = 2, the read counts 27: part (30 − 27) · 0.5 / 1.5 = 1, one admit spends it
    const s: Script = { limit: 30, K: 2, first: 27, counts: [0], decides: [1] };
    const r = run(s);
    expect(r.wanted).toBe(true);
    expect(r.quiet).toBe(false);
  });

  it('is false where a round’s unseen admits already shrink the part (they count as they are)', () => {
    // K = 8, L = 100: 8 admits spend the part (100 / 8 / 1.5 = 8.3) and an early sync 500 ms after the
    // read pushes them: a round, the others' parts unseen, 7 · 8 = 56. Part (100 − 8 − 56) / 8 / 1.5
    // = 3 (its share a little above 1/8 now): the third admit spends it
    const lim = new AdaptiveEarlyKey(params(100, 8), 0);
    sync(lim, 0, 0);
    for (let d = 0; d < 8; d++) lim.decide(1 + d, 1);
    sync(lim, 500, 8);
    expect(lim.quietWhile(3, 8, 500, 1400)).toBe(false);
    const wanted: boolean[] = [];
    for (let d = 0; d < 3; d++) {
      lim.decide(600 + d, 1);
      wanted.push(lim.wantsEarlySync(600 + d));
    }
    expect(wanted).toEqual([false, false, true]);
  });

  it('is false where the part’s share drifts down over a long span (others’ admits dominate)', () => {
    // K = 2, L = 100, 85 counted and none of them own for 55 s: the share falls toward its floor 1/8
    // (part 15 · 0.5 / 1.5 = 5 at first, 15 · 0.27 / 1.5 = 2.7 then), and two requests spend it
    const n = 57;
    const decides = Array<number>(n).fill(0);
    decides[n - 2] = decides[n - 1] = 2;
    const s: Script = { limit: 100, K: 2, first: 85, counts: Array<number>(n).fill(85), decides };
    const r = run(s);
    expect(r.wanted).toBe(true);
    expect(r.quiet).toBe(false);
  });

  it('is never true where a decision wanted an early sync (seeded scripts), and often true', () => {
    const next = rng(67);
    let quiet = 0;
    let wanted = 0;
    for (let k = 0; k < 3000; k++) {
      const limit = [5, 20, 100, 300][Math.floor(next() * 4)];
      const K = [2, 4, 8, 32][Math.floor(next() * 4)];
      const n = 1 + Math.floor(next() * 70);
      const cMax = Math.floor(next() * limit);
      const dMax = Math.floor(next() * 6);
      const s: Script = {
        limit,
        K,
        first: Math.floor(next() * (cMax + 1)),
        counts: Array.from({ length: n }, () => Math.floor(next() * (cMax + 1))),
        decides: Array.from({ length: n }, () => Math.floor(next() * (dMax + 1))),
        gap: [DELTA, DELTA / 2, DELTA / 5][Math.floor(next() * 3)],
      };
      const r = run(s);
      if (r.wanted) {
        wanted++;
        expect(r.quiet, JSON.stringify(s)).toBe(false);
      }
      if (r.quiet) quiet++;
    }
    expect(wanted).toBeGreaterThan(100);
    expect(quiet).toBeGreaterThan(300);
  });
});
