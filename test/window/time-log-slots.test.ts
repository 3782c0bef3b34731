/**
 * TimeLog's two forms (issue 32, Stryker on src/window): while no slot holds more than one admit the
 * log is a plain deque, small runs going in as that many slots; the first big run makes the counts,
 * and from then on a run is one slot. `slots` tells the forms apart where the admits held are the same.
 */
import { describe, expect, it } from 'vitest';
import { expiryRunsBefore } from '../../src/window/expiry-runs.js';
import { NO_EXPIRIES, TimeLog } from '../../src/window/time-log.js';

describe('TimeLog: plain slots while no slot holds more than one admit', () => {
  it('insert, insertMany up to 8 and insertAll of small runs each take one slot per admit', () => {
    const log = new TimeLog(4);
    log.insert(5);
    log.insert(5);
    expect([log.size, log.slots]).toEqual([2, 2]);
    log.insertMany(7, 3);
    expect([log.size, log.slots]).toEqual([5, 5]);
    log.insertMany(8, 8);
    expect([log.size, log.slots]).toEqual([13, 13]);
    log.insertAll([6, 9, 10], 1, [5, 2, 1]);
    expect([log.size, log.slots]).toEqual([16, 16]);
    log.insertAll([4, 11], 0, [8, 1]);
    expect([log.size, log.slots]).toEqual([25, 25]);
    // without counts, then a small run: still plain
    log.insertAll([3, 12]);
    log.insertMany(13, 2);
    expect([log.size, log.slots]).toEqual([29, 29]);
    expect(log.toArray()).toEqual([
      3,
      ...Array(8).fill(4),
      5,
      5,
      ...Array(3).fill(7),
      ...Array(8).fill(8),
      9,
      9,
      10,
      11,
      12,
      13,
      13,
    ]);
  });

  it('a run of more than 8 is one slot, and from then on every run is one slot', () => {
    const log = new TimeLog(4);
    log.insert(1);
    log.insertAll([30], 0, [9]);
    expect([log.size, log.slots]).toEqual([10, 2]);
    log.insertMany(31, 2);
    expect([log.size, log.slots]).toEqual([12, 3]);
    // onto the newest slot at that time
    log.insertMany(31, 3);
    expect([log.size, log.slots]).toEqual([15, 3]);
    // between slots, then onto it
    log.insertMany(20, 2);
    log.insertMany(20, 4);
    expect([log.size, log.slots]).toEqual([21, 4]);
    log.insert(20);
    expect([log.size, log.slots]).toEqual([22, 4]);
    log.insertMany(25, 0);
    expect([log.size, log.slots]).toEqual([22, 4]);
    expect(log.toArray()).toEqual([1, ...Array(7).fill(20), ...Array(9).fill(30), ...Array(5).fill(31)]);
    // small runs into a log that has counts: one slot each, with their counts
    log.insertAll([10, 40], 0, [2, 1]);
    expect([log.size, log.slots]).toEqual([25, 6]);
    expect(log.toArray().slice(0, 3)).toEqual([1, 10, 10]);
    expect(log.toArray().slice(-1)).toEqual([40]);
    const big = new TimeLog(4);
    big.insertMany(50, 9);
    expect([big.size, big.slots]).toEqual([9, 1]);
  });

  it('a buffer grows only when full: 64 runs at distinct instants', () => {
    const log = new TimeLog(4);
    for (let i = 0; i < 64; i++) log.insertMany(i, 9);
    expect([log.size, log.slots]).toEqual([64 * 9, 64]);
    expect(log.first()).toBe(0);
    expect(log.last()).toBe(63);
  });

  it('shift takes the oldest slot and its admits', () => {
    const plain = new TimeLog(4);
    plain.insert(3);
    plain.insert(5);
    expect(plain.shift()).toBe(3);
    expect(plain.size).toBe(1);
    const runs = new TimeLog(4);
    runs.insertMany(3, 9);
    runs.insert(5);
    expect(runs.shift()).toBe(3);
    expect([runs.size, runs.slots]).toEqual([1, 1]);
  });
});

describe('TimeLog: expiries before a horizon, as runs', () => {
  const W = 50;

  it('equal expiries of plain slots join, with their admits', () => {
    const log = new TimeLog(4);
    log.insert(10);
    log.insert(10);
    log.insert(20);
    log.insert(21);
    const out: { expiries: number[]; expiryCounts?: number[] } = { expiries: [] };
    expiryRunsBefore(log, 100, W, 'sliding', out);
    expect(out).toEqual({ expiries: [60, 70, 71], expiryCounts: [2, 1, 1] });
  });

  it('a counted log whose listed slots hold one admit each gives no counts, whatever follows', () => {
    const log = new TimeLog(4);
    log.insertMany(50, 9);
    log.insert(10);
    log.insert(20);
    const out: { expiries: number[]; expiryCounts?: number[] } = { expiries: [], expiryCounts: [7] };
    expiryRunsBefore(log, 80, W, 'sliding', out);
    expect(out.expiries).toEqual([60, 70]);
    expect(out.expiryCounts).toBeUndefined();
    expiryRunsBefore(log, 200, W, 'sliding', out);
    expect(out).toEqual({ expiries: [60, 70, 100], expiryCounts: [1, 1, 9] });
  });

  it('nothing before the horizon is the shared empty list', () => {
    const log = new TimeLog(4);
    log.insert(10);
    expect(log.expiriesBefore(60, W, 'sliding')).toBe(NO_EXPIRIES);
    expect(log.expiriesBefore(50, W, 'fixed')).toBe(NO_EXPIRIES);
    expect(new TimeLog().expiriesBefore(1000, W, 'sliding')).toBe(NO_EXPIRIES);
  });
});
