import { describe, expect, it } from 'vitest';
import type { Policy } from '../../src/config.js';
import { boundedSweep } from '../support/bounded-sweep.js';

/**
 * The lazy sweep drops a record untouched since it was scheduled without pruning it (KeyRecord.changed:
 * its deadline has passed, so nothing of it counts). One a call reached after it was scheduled may
 * count something past that instant, and must be pruned and kept: every way a call reaches a record
 * (record, peek, peekOnly) marks it.
 */
const policy: Policy = { limit: 5, windowMs: 100, windowKind: 'sliding' };

describe('MemoryStore sweep of records unchanged since scheduled', () => {
  it('a key admitted again after it was scheduled still counts past its first deadline', () => {
    const s = boundedSweep();
    s.logAdmit({ key: 'k', policy, cost: 1 }, 0); // scheduled at 100
    s.logAdmit({ key: 'k', policy, cost: 1 }, 50); // counts until 150
    s.logAdmit({ key: 'other', policy, cost: 1 }, 120); // sweeps k
    expect(s.countOf('k', policy, 120)).toBe(1);
    expect(s.keyCount).toBe(2);
  });

  it('a grant renewed after it was scheduled (renewLease, through peekOnly) still counts', () => {
    const s = boundedSweep();
    s.ask({ gatewayId: 'g', key: 'j', policy, leaseTtlMs: 50, ask: 1 }, 0); // until 150
    s.renewLease('j', 'g', 200); // until 300
    s.logAdmit({ key: 'other', policy, cost: 1 }, 160); // sweeps j
    expect(s.outstandingOf('j', policy, 160)).toBe(1);
  });

  it('an unchanged key leaves at its deadline, and its record serves the next new key', () => {
    const s = boundedSweep();
    s.logAdmit({ key: 'a', policy, cost: 1 }, 0);
    s.logAdmit({ key: 'b', policy, cost: 1 }, 100); // a's deadline: a is dropped first
    expect(s.keyCount).toBe(1);
    expect(s.countOf('a', policy, 100)).toBe(0);
    expect(s.logAdmit({ key: 'a', policy, cost: 5 }, 100).allowed).toBe(true);
  });
});
