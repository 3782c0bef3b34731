import { describe, expect, it } from 'vitest';
import { joinPart, type Part, splitPart } from '../../../src/gateway/runtime/sync-parts.js';
import type { SyncEntry } from '../../../src/store/contract.js';

const entry = (key: string, admits: number[] = []): SyncEntry => ({
  key,
  admits,
  read: true,
  release: false,
  ask: 0,
});

function part(keys: string[], seq = 7): Part {
  const entries = keys.map((k, i) => entry(k, [i]));
  return {
    req: { gatewayId: 'g~x', seq, policy: {} as never, leaseTtlMs: 1, horizonMs: 1, entries },
    owners: keys.map(() => null),
    fallbacks: keys.map(() => null),
    own: keys.map((_, i) => i),
    attempts: 1,
    timedOut: true,
    builtFrom: 42,
  };
}

describe('sync parts', () => {
  it('splits in order into parts of at most max keys, each with the same seq and bookkeeping', () => {
    const out = splitPart(part(['a', 'b', 'c', 'd', 'e']), 2);
    expect(out.map((p) => p.req.entries.map((e) => e.key))).toEqual([['a', 'b'], ['c', 'd'], ['e']]);
    for (const p of out) {
      expect(p.req.seq).toBe(7);
      expect(p.attempts).toBe(1);
      expect(p.builtFrom).toBe(42);
      expect(p.own).toEqual(p.req.entries.map((e) => e.admits[0]));
      expect(p.owners.length).toBe(p.req.entries.length);
    }
  });

  it("keeps one key's entries in one part (the store decides a replay once per request)", () => {
    const out = splitPart(part(['a', 'b', 'a', 'c']), 1);
    expect(out.map((p) => p.req.entries.map((e) => e.key))).toEqual([['a', 'a'], ['b'], ['c']]);
  });

  it('a part that fits, and an empty one (the heartbeat), stay whole', () => {
    const p = part(['a', 'b']);
    expect(splitPart(p, 2)).toEqual([p]);
    const empty = part([]);
    expect(splitPart(empty, 1)).toEqual([empty]);
  });

  it('joins two parts of one seq back into one request', () => {
    const [x, y] = splitPart(part(['a', 'b', 'c']), 2);
    y.attempts = 3;
    joinPart(x, y);
    expect(x.req.entries.map((e) => e.key)).toEqual(['a', 'b', 'c']);
    expect(x.own).toEqual([0, 1, 2]);
    expect(x.attempts).toBe(3);
  });
});
