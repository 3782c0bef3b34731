import { describe, expect, it } from 'vitest';
import type { Arrival } from '../../src/replay/arrival.js';
import { ReplayRun } from '../../src/replay/run/engine.js';
import type { KeySummary } from '../../src/replay/run/key-stats.js';
import { Leaderboard } from '../../src/replay/run/leaderboard.js';

const summary = (key: string, honest: number, over = 0): KeySummary => ({
  key,
  requests: 10,
  floodRequests: 0,
  logRejected: 0,
  honestRejected: [0, honest],
  overAdmitted: [0, over],
  worst: [1, 1],
  admitted: [5, 5],
});

/** split against the central log, K = 2, 5 per 10 s (split's share: ceil(5/2) = 3), Δ = 1 s. */
const splitRun = (): ReplayRun =>
  new ReplayRun({
    designs: ['split'],
    gateways: 2,
    limit: 5,
    windowMs: 10_000,
    syncMs: 1000,
    seed: 1,
    top: 3,
  });

describe('the most affected keys', () => {
  it('a key that goes quiet for a window and comes back is ranked on both stretches', () => {
    // key "a" at 1 per second, all on gateway 0: split (K = 2) holds it to ceil(L/2) = 3 per 10 s, the
    // central log to 5; then 30 s of quiet (longer than W); then the same again. Key "b" keeps the log
    // going meanwhile (one request per 4 s on gateway 1, under its share).
    const arrivals: Arrival[] = [];
    for (let s = 0; s < 120; s++) {
      if (s < 40 || s >= 70) arrivals.push({ t: s * 1000, key: 'a', gateway: 0 });
      if (s % 4 === 1) arrivals.push({ t: s * 1000 + 500, key: 'b', gateway: 1 });
    }
    const run = splitRun();
    const perStretch = [0, 0];
    for (const a of arrivals) {
      run.push(a);
      if (a.key === 'a' && run.decided[0] === 1 && run.decided[1] === 0) perStretch[a.t < 50_000 ? 0 : 1]++;
    }
    expect(perStretch[0]).toBeGreaterThan(0);
    expect(perStretch[1]).toBeGreaterThan(0);
    const r = run.finish();
    // "a" was retired once (quiet for a whole window) and came back: its row sums both stretches
    expect(r.keys).toBe(3);
    expect(r.top[0].byHonestRejected[0]).toMatchObject({
      key: 'a',
      requests: 90,
      honestRejected: perStretch[0] + perStretch[1],
    });
  });

  it('a kept key back for a stretch no design treats differently is summarized again, both stretches in', () => {
    // as above, but the second stretch is two requests, both admitted by split too: unaffected alone, so
    // only its kept past (taken off the board when it came back) makes its retirement worth a summary
    const arrivals: Arrival[] = [];
    for (let s = 0; s < 120; s++) {
      if (s < 40 || s === 70 || s === 75) arrivals.push({ t: s * 1000, key: 'a', gateway: 0 });
      if (s % 4 === 1) arrivals.push({ t: s * 1000 + 500, key: 'b', gateway: 1 });
    }
    const run = splitRun();
    let late = 0;
    for (const a of arrivals) {
      run.push(a);
      if (a.key === 'a' && a.t >= 50_000) late += run.decided[1];
    }
    expect(late).toBe(2);
    const r = run.finish();
    // retired twice (at ~50 s and ~90 s, the second time from its unaffected stretch): still ranked
    expect(r.keys).toBe(3);
    expect(r.top[0].byHonestRejected[0]).toMatchObject({ key: 'a', requests: 42 });
  });

  it('a kept key live at the end, in a stretch no design treats differently, is ranked on both', () => {
    // as above, but the second stretch is still live when the stream ends: finish summarizes only the
    // live keys worth it, and this one is worth it for its kept past alone
    const arrivals: Arrival[] = [];
    for (let s = 0; s < 120; s++) {
      if (s < 40 || s === 115 || s === 118) arrivals.push({ t: s * 1000, key: 'a', gateway: 0 });
      if (s % 4 === 1) arrivals.push({ t: s * 1000 + 500, key: 'b', gateway: 1 });
    }
    const run = splitRun();
    let late = 0;
    for (const a of arrivals) {
      run.push(a);
      if (a.key === 'a' && a.t >= 50_000) late += run.decided[1];
    }
    expect(late).toBe(2);
    expect(run.liveKeys).toBe(2);
    const r = run.finish();
    expect(r.top[0].byHonestRejected.map((k) => k.key)).toEqual(['a']);
    expect(r.top[0].byHonestRejected[0]).toMatchObject({ key: 'a', requests: 42 });
  });

  it('the board keeps the most affected keys when full, and says how many it dropped', () => {
    const board = new Leaderboard(4);
    for (let i = 1; i <= 5; i++) board.offer(summary(`k${i}`, i));
    board.offer(summary('unaffected', 0));
    // five offered into four places: pruned to the best two, then k5 added
    expect([...board.values()].map((s) => s.key).sort()).toEqual(['k4', 'k5']);
    expect(board.pruned).toBe(3);
    expect(board.take('k4')?.honestRejected).toEqual([0, 4]);
    expect(board.take('k4')).toBeUndefined();
  });
});
