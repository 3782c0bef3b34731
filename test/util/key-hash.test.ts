import { describe, expect, it } from 'vitest';
import { makeRouter } from '../../src/replay/parse/route.js';
import { fnv1a, keyHash } from '../../src/util/key-hash.js';

describe('fnv1a: one FNV-1a for the tables and --route hash', () => {
  it('gives the published FNV-1a 32-bit values', () => {
    // the reference vectors of the FNV authors' test suite (ASCII: a code unit is a byte)
    expect(fnv1a('') >>> 0).toBe(0x811c9dc5);
    expect(fnv1a('a') >>> 0).toBe(0xe40c292c);
    expect(fnv1a('foobar') >>> 0).toBe(0xbf9cf968);
  });

  it('keyHash is it, with 0 (an empty slot) moved to 1', () => {
    for (const k of ['', 'a', 'foobar', '10.0.0.1', 'Ω-key']) expect(keyHash(k)).toBe(fnv1a(k) || 1);
  });

  it('--route hash sends a key where it always did (scripts compare runs across versions)', () => {
    const at = (K: number) => makeRouter('hash', K, 1);
    expect(['10.0.0.1', '10.0.0.2', 'alice', 'bob', 'Ω-key'].map(at(4))).toEqual([1, 0, 3, 0, 2]);
    expect(['10.0.0.1', '10.0.0.2', 'alice', 'bob', 'Ω-key'].map(at(32))).toEqual([13, 20, 7, 20, 18]);
  });
});
