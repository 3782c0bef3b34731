import { describe, expect, it } from 'vitest';
import type { Policy } from '../../../src/config.js';
import { KeyNameCache } from '../../../src/store/redis/key-name-cache.js';
import { keyNames } from '../../../src/store/redis/key-names.js';

const a: Policy = { limit: 10, windowMs: 1000, windowKind: 'sliding' };
const b: Policy = { limit: 10, windowMs: 1000, windowKind: 'sliding', name: 'b' };

describe('KeyNameCache', () => {
  it('gives keyNames for every key and policy, across its resets', () => {
    const cache = new KeyNameCache('fl:', 'l', 5);
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < 12; i++) {
        for (const p of [a, b])
          expect(cache.get(`user:${i}`, p)).toEqual(keyNames('fl:', `user:${i}`, 'l', p));
      }
    }
  });

  it('names a key by one object until it starts over, and counts its start-overs', () => {
    // a sync tells keys apart by these objects (chunkEntries' KeyMark) only while generation stands
    const cache = new KeyNameCache('fl:', 'l', 3);
    const first = cache.named('user:0', a);
    expect(cache.named('user:0', a)).toBe(first);
    expect(cache.named('user:0', b)).not.toBe(first);
    expect(cache.generation).toBe(0);
    cache.named('user:1', a);
    cache.named('user:2', a);
    expect(cache.generation).toBe(1);
    expect(cache.named('user:0', a)).not.toBe(first);
    expect(cache.named('user:0', a).names).toEqual(first.names);
  });

  it('still refuses a bad key', () => {
    const cache = new KeyNameCache('fl:', 'l', 5);
    expect(() => cache.get('', a)).toThrow(/non-empty/);
  });
});
