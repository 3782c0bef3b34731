import { describe, expect, it } from 'vitest';
import { StoreClock } from '../../../src/gateway/runtime/store-clock.js';

describe('StoreClock', () => {
  it('decision time is the local reading plus the offset, and never goes back', () => {
    const c = new StoreClock(false, true);
    expect(c.timeAt(1_000)).toBe(1_000);
    expect(c.timeAt(900)).toBe(1_000);
    // store 500 ms ahead, round trip 10 ms: offset from the call's local midpoint
    c.learn(1_505, 1_000, 1_010);
    expect(c.offsetMs).toBe(500);
    expect(c.offsetErrorMs).toBe(6);
    expect(c.timeAt(1_010)).toBe(1_510);
    expect(c.timeAt(1_009)).toBe(1_510);
  });

  it('takes the offset from the reply with the shortest round trip among the last eight', () => {
    const c = new StoreClock(false, true);
    c.learn(2_100, 1_000, 1_020); // rtt 20: offset 1,090
    c.learn(2_200, 1_100, 1_102); // rtt 2: offset 1,099
    c.learn(2_500, 1_200, 1_400); // rtt 200, late midpoint: not used
    expect(c.offsetMs).toBe(1_099);
    expect(c.offsetErrorMs).toBe(2);
    // eight slower replies push the rtt 2 one out of the ring
    for (let i = 0; i < 8; i++) c.learn(3_000 + i, 2_000 + i, 2_010 + i);
    expect(c.offsetMs).toBe(995);
    expect(c.offsetErrorMs).toBe(6);
  });

  it("a store on the caller's clock (an echo) says nothing of its clock, but the time still never goes below it", () => {
    const c = new StoreClock(true);
    c.learn(5_000, 1_000, 1_010);
    expect(c.known).toBe(true);
    expect(c.waiting).toBe(false);
    expect(c.offsetMs).toBe(0);
    expect(Number.isNaN(c.offsetErrorMs)).toBe(true);
    expect(c.timeAt(1_020)).toBe(5_000);
  });

  it('a reply without a store time teaches nothing', () => {
    const c = new StoreClock(true);
    c.learn(Number.NaN, 0, 1);
    expect(c.known).toBe(false);
    expect(c.waiting).toBe(true);
  });

  it('bookkeeping time does not hold the decision clock until the store clock is known', () => {
    const c = new StoreClock(true, true);
    expect(c.bookAt(10_000)).toBe(10_000);
    // not held: a later reading behind it is taken as is
    expect(c.bookAt(9_000)).toBe(9_000);
    c.learn(4_105, 4_000, 4_010); // offset 100
    expect(c.bookAt(4_020)).toBe(4_120);
    // known now: held like decision time
    expect(c.bookAt(4_010)).toBe(4_120);
  });

  it('spends a grant only until its lapse less the offset error and the store tick', () => {
    const c = new StoreClock(false, true);
    const reply = { granted: 3, grantExpiresAt: 10_000 };
    expect(c.withLapseMargin(reply)).toBe(reply);
    c.learn(1_005, 1_000, 1_010);
    expect(c.withLapseMargin(reply).grantExpiresAt).toBe(10_000 - 6 - 1);
    const none = { granted: 0, grantExpiresAt: 10_000 };
    expect(c.withLapseMargin(none)).toBe(none);
  });
});
