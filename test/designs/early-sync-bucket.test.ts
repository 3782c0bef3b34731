import { describe, expect, it } from 'vitest';
import { EarlySyncBucket } from '../../src/designs/early-syncs.js';

/**
 * The cap on a gateway's early syncs: `burst` tokens, full at the start, refilled at `perSync` per Δ.
 * Found by Stryker (issue 32): the designs' tests reached it only through the simulator.
 */
describe('EarlySyncBucket', () => {
  it('starts full, spends one token per early sync, and says when the next one is there', () => {
    const b = new EarlySyncBucket(2, 1, 100);
    expect(b.nextAt(0)).toBe(0);
    expect([b.take(0), b.take(0), b.take(0)]).toEqual([true, true, false]);
    // one token per Δ = 100 ms
    expect(b.nextAt(0)).toBe(100);
    expect(b.take(50)).toBe(false);
    expect(b.nextAt(50)).toBe(100);
    expect(b.take(100)).toBe(true);
    expect(b.take(100)).toBe(false);
  });

  it('refills to `burst` at most, at `perSync` tokens per Δ', () => {
    const b = new EarlySyncBucket(3, 0.5, 1000);
    for (let i = 0; i < 3; i++) b.take(0);
    // half a token per second: the next at 2 s
    expect(b.nextAt(1000)).toBe(2000);
    expect(b.take(1999)).toBe(false);
    expect(b.take(2000)).toBe(true);
    // a long quiet spell fills it to 3, no more
    const taken = [1, 2, 3, 4].map(() => b.take(100_000));
    expect(taken).toEqual([true, true, true, false]);
  });

  it('a clock that goes back adds no token', () => {
    const b = new EarlySyncBucket(1, 1, 100);
    expect(b.take(1000)).toBe(true);
    expect(b.take(900)).toBe(false);
    // nor takes any back: the refill counts from the latest instant seen
    expect(b.take(1100)).toBe(true);
    const two = new EarlySyncBucket(2, 1, 100);
    expect(two.take(1000)).toBe(true);
    expect(two.take(900)).toBe(true);
  });

  it('refuses a burst below 1 and a refill rate that is not positive', () => {
    expect(() => new EarlySyncBucket(0, 1, 100)).toThrow(/burst must be at least 1; got 0/);
    expect(() => new EarlySyncBucket(Number.NaN, 1, 100)).toThrow(/burst/);
    expect(() => new EarlySyncBucket(1, 0, 100)).toThrow(/perSync must be positive; got 0/);
    expect(() => new EarlySyncBucket(1, Number.NaN, 100)).toThrow(/perSync/);
    expect(new EarlySyncBucket(1, 0.01, 100).take(0)).toBe(true);
  });
});
