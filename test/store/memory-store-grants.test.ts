import { describe, expect, it } from 'vitest';
import type { Policy } from '../../src/config.js';
import type { SyncEntry, SyncRequest } from '../../src/store/contract.js';
import { boundedSweep } from '../support/bounded-sweep.js';

/**
 * MemoryStore's grants beyond the store contract: the parts a grant is made of (which a sync hands
 * back), their lapses, and what a gateway holding nothing is told. Found by Stryker (issue 32,
 * docs/testing.md): each of these behaviours could be broken without a store test failing.
 */
const p: Policy = { limit: 10, windowMs: 1000, windowKind: 'sliding' };

const req = (seq: number, entries: SyncEntry[], over: Partial<SyncRequest> = {}): SyncRequest => ({
  gatewayId: 'a',
  seq,
  policy: p,
  leaseTtlMs: 500,
  horizonMs: 1000,
  entries,
  ...over,
});
/** A lease design's entry: hands back what it held, asks for `ask` more. */
const lease = (key: string, ask: number, admits: number[] = []): SyncEntry => ({
  key,
  admits,
  read: false,
  release: true,
  ask,
});

describe('MemoryStore grants', () => {
  it('asks that land out of order: a sync hands back only the parts asked for before it was built', () => {
    const s = boundedSweep();
    // an ask sent after sync 3 was built lands before one sent after sync 1
    expect(s.ask({ gatewayId: 'a', key: 'k', policy: p, leaseTtlMs: 500, ask: 2, seq: 3 }, 0).granted).toBe(
      2,
    );
    expect(s.ask({ gatewayId: 'a', key: 'k', policy: p, leaseTtlMs: 500, ask: 3, seq: 1 }, 10).granted).toBe(
      3,
    );
    // sync 2 hands back the 3 of the ask before it, not the 2 of the one after it
    expect(s.sync(req(2, [lease('k', 0)]), 20).replies[0].free).toBe(8);
    expect(s.ask({ gatewayId: 'b', key: 'k', policy: p, leaseTtlMs: 500, ask: 10 }, 30).granted).toBe(8);
  });

  it('asks after one sync make one part: many of them never delay an older part’s hand-back', () => {
    const s = boundedSweep();
    s.ask({ gatewayId: 'a', key: 'k', policy: p, leaseTtlMs: 500, ask: 1, seq: 1 }, 0);
    for (let t = 1; t <= 8; t++)
      expect(s.ask({ gatewayId: 'a', key: 'k', policy: p, leaseTtlMs: 500, ask: 1, seq: 2 }, t).granted).toBe(
        1,
      );
    // sync 2 hands back the ask made after sync 1, and only it
    expect(s.sync(req(2, [lease('k', 0)]), 20).replies[0].free).toBe(2);
    expect(s.ask({ gatewayId: 'a', key: 'k', policy: p, leaseTtlMs: 500, ask: 1, seq: 3 }, 21).granted).toBe(
      1,
    );
    // sync 3 the eight made after sync 2, not the one made after it
    expect(s.sync(req(3, [lease('k', 0)]), 30).replies[0].free).toBe(9);
  });

  it('a grant keeps eight parts; past that its two oldest are handed back together, with the newer', () => {
    // eight asks, each after another sync: eight parts, each handed back by the sync after it
    const eight = boundedSweep();
    for (let seq = 1; seq <= 8; seq++)
      eight.ask({ gatewayId: 'a', key: 'k', policy: p, leaseTtlMs: 500, ask: 1, seq }, seq);
    expect(eight.sync(req(2, [lease('k', 0)]), 20).replies[0].free).toBe(3);
    // nine: the oldest two are one part, handed back when the newer of them is (later, never earlier)
    const nine = boundedSweep();
    for (let seq = 1; seq <= 9; seq++)
      nine.ask({ gatewayId: 'a', key: 'k', policy: p, leaseTtlMs: 500, ask: 1, seq }, seq);
    expect(nine.sync(req(2, [lease('k', 0)]), 20).replies[0].free).toBe(1);
    expect(nine.sync(req(3, [lease('k', 0)]), 30).replies[0].free).toBe(3);
    expect(nine.sync(req(10, [lease('k', 0)]), 40).replies[0].free).toBe(10);
  });

  it('a grant’s lapse only moves later while it holds slots; one refilled after a full hand-back lapses at its own TTL', () => {
    const s = boundedSweep();
    expect(s.ask({ gatewayId: 'a', key: 'k', policy: p, leaseTtlMs: 500, ask: 2 }, 0)).toMatchObject({
      granted: 2,
      grantExpiresAt: 500,
    });
    // a shorter TTL (a gateway restarted with another config) does not cut short what it holds
    expect(s.ask({ gatewayId: 'a', key: 'k', policy: p, leaseTtlMs: 100, ask: 1 }, 10)).toMatchObject({
      granted: 1,
      grantExpiresAt: 500,
    });
    // sync 1 hands all of it back and is granted anew: the new grant lapses at its own TTL
    const r = s.sync(req(1, [lease('k', 2)], { leaseTtlMs: 100 }), 30);
    expect(r.replies[0]).toMatchObject({ granted: 2, grantExpiresAt: 130 });
  });

  it('each grant stops counting at its own end, in whatever order the grants were made', () => {
    const s = boundedSweep();
    // counted until an admit made at their lapses (100, 200, 300) would age out
    s.ask({ gatewayId: 'a', key: 'k', policy: p, leaseTtlMs: 100, ask: 2 }, 0);
    s.ask({ gatewayId: 'b', key: 'k', policy: p, leaseTtlMs: 200, ask: 2 }, 0);
    s.ask({ gatewayId: 'c', key: 'k', policy: p, leaseTtlMs: 300, ask: 2 }, 0);
    expect(s.outstandingOf('k', p, 1099)).toBe(6);
    expect(s.outstandingOf('k', p, 1100)).toBe(4);
    expect(s.outstandingOf('k', p, 1199)).toBe(4);
    expect(s.outstandingOf('k', p, 1200)).toBe(2);
    expect(s.outstandingOf('k', p, 1300)).toBe(0);
  });

  it('a retried sync answers with the lapse its first attempt set, and with nothing once that lapse is reached', () => {
    const s = boundedSweep();
    const first = req(1, [lease('k', 2)]);
    expect(s.sync(first, 0).replies[0]).toMatchObject({ granted: 2, grantExpiresAt: 500 });
    expect(s.sync(first, 100).replies[0]).toMatchObject({ granted: 2, grantExpiresAt: 500 });
    // the gateway spends none of it from its lapse on: a retry then is granted nothing
    expect(s.sync(first, 500).replies[0]).toMatchObject({ granted: 0, grantExpiresAt: 500 });
  });

  it('after a full hand-back, a refused ask reports no held lapse', () => {
    const s = boundedSweep();
    const two: Policy = { ...p, limit: 2 };
    s.sync(req(1, [lease('k', 2)], { policy: two }), 0);
    // the two slots spent and handed back as admits: the key is full, the gateway holds nothing
    s.sync(req(2, [lease('k', 0, [10, 20])], { policy: two }), 30);
    expect(s.ask({ gatewayId: 'a', key: 'k', policy: two, leaseTtlMs: 500, ask: 1 }, 40)).toMatchObject({
      granted: 0,
      grantExpiresAt: 40,
      free: 0,
    });
  });
});
