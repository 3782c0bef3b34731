/**
 * RunLog and AdmitLog beyond the model properties of run-log.test.ts (issue 32, Stryker on src/window):
 * refunds (remove), the expiry runs, the forms a sync takes (runCounts undefined while every run holds
 * one), a clock that went back onto a walked-past run, growth only when full, and the spare-log pool
 * (never the shared NONE, at most SPARE_AT_REST logs of at most 16 runs, a sweep's worth while a replay
 * holds the pool, cut back after it).
 */
import { describe, expect, it } from 'vitest';
import { AdmitLog, holdSpares, MAX_SPARE, RunLog, SPARE_AT_REST } from '../../src/window/run-log.js';

const W = 50;

/** Empties the spare pool (at most MAX_SPARE logs): the next take() is a new log unless one is recycled. */
function drainSpares(): void {
  for (let i = 0; i < MAX_SPARE; i++) AdmitLog.take();
}

describe('RunLog', () => {
  it('remove takes back up to n admits at t, dropping a run it empties', () => {
    const log = new RunLog();
    log.insert(10, 2);
    log.insert(20, 3);
    log.insert(30);
    expect(log.remove(20, 1)).toBe(1);
    expect(log.toArray()).toEqual([10, 10, 20, 20, 30]);
    expect(log.remove(20, 5)).toBe(2);
    expect(log.toArray()).toEqual([10, 10, 30]);
    expect(log.remove(99, 1)).toBe(0);
    expect(log.remove(30, 0)).toBe(0);
    // exactly a run's admits: the run goes, the next is the oldest
    expect(log.remove(10, 2)).toBe(2);
    expect([log.first(), log.size]).toEqual([30, 1]);
    expect(log.remove(30, 1)).toBe(1);
    expect([log.first(), log.size]).toEqual([Number.POSITIVE_INFINITY, 0]);
    log.insert(40);
    expect(log.toArray()).toEqual([40]);
    // the slot past the last run may still hold a removed run's time: never taken
    const stale = new RunLog();
    stale.insert(10);
    stale.insert(20);
    expect(stale.remove(20, 1)).toBe(1);
    expect(stale.remove(20, 1)).toBe(0);
    expect(stale.toArray()).toEqual([10]);
    // taking none from a log without counts
    const plain = new RunLog();
    plain.insert(5);
    expect(plain.remove(5, 0)).toBe(0);
    expect(plain.size).toBe(1);
  });

  it('remove leaves runs that aged out (before the head) alone', () => {
    const log = new RunLog();
    log.insert(5);
    log.insert(30);
    expect(log.dropExpired(5 + W, W, 'sliding')).toBe(1);
    expect(log.remove(5, 1)).toBe(0);
    expect(log.remove(30, 1)).toBe(1);
    expect(log.size).toBe(0);
  });

  it('expiryRuns lists each live run’s expiry with its admits', () => {
    const log = new RunLog();
    log.insert(5, 3);
    log.insert(10, 2);
    log.insert(20);
    log.dropExpired(5 + W, W, 'sliding');
    expect(log.expiryRuns(W, 'sliding')).toEqual({ t: [10 + W, 20 + W], n: [2, 1] });
    expect(log.expiryRuns(W, 'fixed')).toEqual({ t: [W, W], n: [2, 1] });
    expect(new RunLog().expiryRuns(W, 'sliding')).toEqual({ t: [], n: [] });
  });

  it('grows only when full: 64 inserts in order, then 64 out of order', () => {
    const log = new RunLog();
    for (let i = 0; i < 64; i++) log.insert(1000 + i);
    for (let i = 1; i <= 64; i++) log.insert(1000 - i);
    expect(log.size).toBe(128);
    expect(log.first()).toBe(936);
  });

  it('the error names the admits one instant would hold', () => {
    const log = new AdmitLog();
    log.append(5, 3);
    expect(() => log.append(5, 2 ** 32 - 3)).toThrow(
      new RangeError('4294967296 admits at one instant on one key: at most 4294967295 are recorded'),
    );
  });
});

describe('AdmitLog', () => {
  it('runCounts is undefined while every run holds one admit, and exactly one per run after', () => {
    const log = new AdmitLog();
    log.append(1, 1);
    log.append(2, 1);
    expect(log.runTimes()).toEqual([1, 2]);
    expect(log.runCounts()).toBeUndefined();
    log.append(3, 4);
    expect(log.runCounts()).toStrictEqual([1, 1, 4]);
    expect(log.runTimes()).toStrictEqual([1, 2, 3]);
  });

  it('liveRuns, firstHeld and firstLive after a walk past the oldest', () => {
    const log = new AdmitLog();
    expect(log.firstHeld()).toBeNaN();
    log.append(10, 2);
    log.append(20, 1);
    log.append(30, 3);
    expect(log.expire(10 + W, W, 'sliding')).toBe(4);
    expect(log.liveRuns()).toStrictEqual({ times: [20, 30], counts: [1, 3] });
    expect([log.firstHeld(), log.firstLive()]).toEqual([10, 20]);
  });

  it('a clock gone back onto a walked-past run opens a live run of its own', () => {
    const log = new AdmitLog();
    log.append(10, 1);
    expect(log.expire(10 + W, W, 'sliding')).toBe(0);
    expect(log.append(10, 2)).toBe(true);
    expect([log.size, log.live, log.firstLive()]).toEqual([3, 2, 10]);
    expect(log.liveRuns()).toStrictEqual({ times: [10], counts: [2] });
    expect(log.runTimes()).toEqual([10, 10]);
  });

  it('remove takes back live admits only; NONE holds none', () => {
    expect(AdmitLog.NONE.remove(1, 1)).toBe(0);
    const log = new AdmitLog();
    log.append(10, 1);
    log.expire(10 + W, W, 'sliding');
    log.append(100, 2);
    log.append(200, 1);
    expect(log.remove(10, 1)).toBe(0);
    expect(log.remove(100, 1)).toBe(1);
    expect([log.size, log.live]).toEqual([3, 2]);
    expect(log.remove(200, 1)).toBe(1);
    expect([log.size, log.live]).toEqual([2, 1]);
    expect(log.runTimes()).toEqual([10, 100]);
  });

  it('prefixed puts the given runs, with their counts, before the live admits', () => {
    const log = new AdmitLog();
    log.append(1, 1);
    log.expire(1 + W, W, 'sliding');
    log.append(60, 2);
    const out = log.prefixed([40, 50, 55], [9, 2, 3], 1);
    expect([out.size, out.live]).toEqual([7, 7]);
    expect(out.runTimes()).toEqual([50, 55, 60]);
    expect(out.runCounts()).toEqual([2, 3, 2]);
  });

  it('grows only when full: 64 appends', () => {
    const log = new AdmitLog();
    for (let i = 0; i < 64; i++) log.append(i, 1);
    expect(log.size).toBe(64);
  });
});

describe('AdmitLog: the spare pool', () => {
  it('a log of at most two runs goes back to the pool and is handed out again; more stays the key’s', () => {
    drainSpares();
    const a = new AdmitLog();
    a.append(1, 1);
    a.append(2, 1);
    expect(a.recycle()).toBe(AdmitLog.NONE);
    const b = new AdmitLog();
    b.append(1, 1);
    expect(b.recycle()).toBe(AdmitLog.NONE);
    expect(AdmitLog.take()).toBe(b);
    expect(AdmitLog.take()).toBe(a);
    expect(a.size + a.live).toBe(0);
    const c = new AdmitLog();
    for (const t of [1, 2, 3]) c.append(t, 1);
    expect(c.recycle()).toBe(c);
    expect(c.size).toBe(0);
    expect(AdmitLog.take()).not.toBe(c);
  });

  it('never takes the shared NONE', () => {
    drainSpares();
    expect(AdmitLog.NONE.recycle()).toBe(AdmitLog.NONE);
    expect(AdmitLog.take()).not.toBe(AdmitLog.NONE);
  });

  /** Hands back n new one-admit logs; returns them in the order handed back. */
  function handBack(n: number): AdmitLog[] {
    const logs: AdmitLog[] = [];
    for (let i = 0; i < n; i++) {
      const l = new AdmitLog();
      l.append(i, 1);
      expect(l.recycle()).toBe(AdmitLog.NONE);
      logs.push(l);
    }
    return logs;
  }

  /** How many of `logs` the next `n` takes hand out. */
  function reusedOf(logs: readonly AdmitLog[], n: number): number {
    const back = new Set(logs);
    let reused = 0;
    for (let i = 0; i < n; i++) if (back.has(AdmitLog.take())) reused++;
    return reused;
  }

  it('holds at most SPARE_AT_REST logs outside a replay', () => {
    drainSpares();
    const logs = handBack(SPARE_AT_REST + 1);
    expect(AdmitLog.take()).toBe(logs[SPARE_AT_REST - 1]);
    drainSpares();
  });

  it("keeps a sweep's worth of quiet keys' logs while a replay holds the pool: 50,000 handed back are all handed out again", () => {
    // the replay runs quiet keys' syncs at a sweep: tens of thousands of logs come back at once
    drainSpares();
    const release = holdSpares();
    try {
      expect(reusedOf(handBack(50_000), 50_000)).toBe(50_000);
      expect(reusedOf(handBack(MAX_SPARE + 1), MAX_SPARE + 1)).toBe(MAX_SPARE);
    } finally {
      release();
    }
    drainSpares();
  });

  it('lets the extra spares go when the last hold ends (a library gateway keeps none after a replay)', () => {
    drainSpares();
    const first = holdSpares();
    const second = holdSpares();
    const logs = handBack(1000);
    first();
    first(); // a second call changes nothing: the other hold still stands
    expect(reusedOf(logs, 1000)).toBe(1000);
    const later = handBack(1000);
    second();
    // cut back to SPARE_AT_REST, and the cap is back too
    expect(reusedOf(later, 1000)).toBe(SPARE_AT_REST);
    drainSpares();
    const rest = handBack(SPARE_AT_REST + 10);
    expect(reusedOf(rest, SPARE_AT_REST + 10)).toBe(SPARE_AT_REST);
    drainSpares();
  });

  it('keeps logs of up to 16 runs, not bigger', () => {
    for (const [runs, kept] of [
      [9, true],
      [17, false],
    ] as const) {
      drainSpares();
      const l = new AdmitLog();
      for (let i = 0; i < runs; i++) l.append(i, 1);
      expect(l.recycle()).toBe(l);
      l.append(1, 1);
      expect(l.recycle()).toBe(AdmitLog.NONE);
      expect(AdmitLog.take() === l).toBe(kept);
    }
  });

  it('a log 16 times bigger than its interval needed shrinks to a quarter and drops its counts', () => {
    // grown to 64 runs, with counts
    const l = new AdmitLog();
    for (let i = 0; i < 33; i++) l.append(i, 2);
    expect(l.recycle()).toBe(l);
    // 4 runs in 64: kept as it is (16 · 4 = 64), counts too
    for (let i = 0; i < 4; i++) l.append(i, 1);
    expect(l.runCounts()).toEqual([1, 1, 1, 1]);
    expect(l.recycle()).toBe(l);
    for (let i = 0; i < 4; i++) l.append(i, 1);
    expect(l.runCounts()).toEqual([1, 1, 1, 1]);
    expect(l.recycle()).toBe(l);
    // 3 runs in 64: shrunk to 16, counts dropped
    for (let i = 0; i < 3; i++) l.append(i, 1);
    expect(l.recycle()).toBe(l);
    for (let i = 0; i < 3; i++) l.append(i, 1);
    expect(l.runCounts()).toBeUndefined();
    // 3 runs in 16: kept (48 > 16), counts made since kept too
    expect(l.recycle()).toBe(l);
    for (let i = 0; i < 3; i++) l.append(i, 2);
    expect(l.recycle()).toBe(l);
    for (let i = 0; i < 3; i++) l.append(i, 1);
    expect(l.runCounts()).toEqual([1, 1, 1]);
    // 3 runs in 32: kept
    const m = new AdmitLog();
    for (let i = 0; i < 17; i++) m.append(i, 2);
    expect(m.recycle()).toBe(m);
    for (let i = 0; i < 3; i++) m.append(i, 1);
    expect(m.recycle()).toBe(m);
    for (let i = 0; i < 3; i++) m.append(i, 1);
    expect(m.runCounts()).toEqual([1, 1, 1]);
  });
});
