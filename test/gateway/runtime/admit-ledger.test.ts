// The admits kept per key for refunds that name only their key (express-rate-limit's decrement,
// Envoy's is_negative_hits): oldest first, whole then part, floored at none, aged by the window,
// bounded in keys.
import { describe, expect, it } from 'vitest';
import type { Decision } from '../../../src/gateway/decision.js';
import { AdmitLedger } from '../../../src/gateway/runtime/admit-ledger.js';

const admit = (at: number): Decision => ({ allowed: true, remaining: 0, resetMs: 0, at });

function takeAll(l: AdmitLedger, key: string, hits: number, now: number) {
  const got: [number, number][] = [];
  const n = l.takeBack(key, hits, now, (d, cost) => got.push([d.at as number, cost]));
  return { n, got };
}

describe('AdmitLedger', () => {
  it('takes back the oldest admits first, each whole while its cost fits, then part of the next', () => {
    const l = new AdmitLedger(60_000);
    l.keepAdmit('k', admit(1), 1, 1);
    l.keepAdmit('k', admit(2), 3, 2);
    l.keepAdmit('k', admit(3), 1, 3);
    expect(takeAll(l, 'k', 2, 10)).toEqual({
      n: 2,
      got: [
        [1, 1],
        [2, 1],
      ],
    });
    // the part of the admit at 2 not taken back stays counted: only the admit at 3 is left
    expect(takeAll(l, 'k', 5, 10)).toEqual({ n: 1, got: [[3, 1]] });
    expect(l.size).toBe(0);
  });

  it('a refund on a key with no admit of the window takes nothing (floored at zero)', () => {
    const l = new AdmitLedger(60_000);
    expect(takeAll(l, 'none', 3, 5)).toEqual({ n: 0, got: [] });
    l.keepAdmit('k', admit(0), 1, 0);
    expect(takeAll(l, 'k', 1, 60_000)).toEqual({ n: 0, got: [] });
  });

  it('keeps no rejection and no fail-mode admit', () => {
    const l = new AdmitLedger(60_000);
    l.keepAdmit('k', { allowed: false, remaining: 0, resetMs: 0, at: 1 }, 1, 1);
    l.keepAdmit('k', { ...admit(2), degraded: true }, 1, 2);
    expect(takeAll(l, 'k', 2, 3).n).toBe(0);
  });

  it('matches limited requests apart from admits, and forgets a key', () => {
    const l = new AdmitLedger(1000);
    l.keepLimited('k', 5);
    l.keepAdmit('k', admit(6), 1, 6);
    expect(l.takeLimited('k', 7)).toBe(true);
    expect(l.takeLimited('k', 7)).toBe(false);
    l.forget('k');
    expect(takeAll(l, 'k', 1, 8).n).toBe(0);
  });

  it('holds at most maxKeys keys: keys with nothing in the window go first, then the oldest', () => {
    const l = new AdmitLedger(1000, 10);
    for (let i = 0; i < 10; i++) l.keepAdmit(`old${i}`, admit(0), 1, 0);
    // all ten aged out by 1000: the sweep empties them
    l.keepAdmit('new', admit(1000), 1, 1000);
    expect(l.size).toBe(1);
    for (let i = 0; i < 20; i++) l.keepAdmit(`live${i}`, admit(1001), 1, 1001);
    expect(l.size).toBeLessThanOrEqual(10);
    // the newest key is kept
    expect(takeAll(l, 'live19', 1, 1002).n).toBe(1);
  });
});
