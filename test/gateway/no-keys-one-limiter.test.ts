import { describe, expect, it } from 'vitest';
import { createGateway } from '../../src/gateway/gateway.js';
import { MemoryStore } from '../../src/store/memory-store.js';

/**
 * A design that holds no keys (central-log) sends every request through one limiter, each store
 * reply written over the last: each key's decision and headers are its own, as with a fresh limiter
 * per request. A design that holds keys keeps one per key.
 */
const opts = { id: 'g', limit: 3, windowMs: 1000, gateways: 1, syncMs: 100 } as const;

describe('the limiter of a design that holds no keys', () => {
  it('central-log: interleaved keys each get their own count and reset, and no key is held', () => {
    const gw = createGateway({ ...opts, design: 'central-log', store: new MemoryStore() });
    expect(gw.admit('a', 0)).toEqual({ allowed: true, remaining: 2, resetMs: 1000 });
    expect(gw.admit('a', 10)).toEqual({ allowed: true, remaining: 1, resetMs: 990 });
    expect(gw.admit('b', 20)).toEqual({ allowed: true, remaining: 2, resetMs: 1000 });
    expect(gw.admit('a', 30)).toEqual({ allowed: true, remaining: 0, resetMs: 970 });
    const denied = gw.admit('a', 40);
    expect([denied.allowed, denied.remaining, denied.resetMs]).toEqual([false, 0, 960]);
    expect(gw.admit('b', 50)).toEqual({ allowed: true, remaining: 1, resetMs: 970 });
    expect(gw.keyCount).toBe(0);
  });

  it('split: a key’s limiter is its own', () => {
    const gw = createGateway({ ...opts, design: 'split', store: new MemoryStore() });
    for (let i = 0; i < 3; i++) expect(gw.allow('a', i)).toBe(true);
    expect(gw.allow('a', 3)).toBe(false);
    expect(gw.allow('b', 4)).toBe(true);
    expect(gw.keyCount).toBe(2);
  });
});
