import { describe, expect, it } from 'vitest';
import { ConfigError, KeyError, MAX_KEY_LENGTH } from '../src/config.js';
import { createGateway } from '../src/gateway/gateway.js';
import { MemoryStore } from '../src/store/memory-store.js';

const good = {
  id: 'gw-1',
  design: 'shared-counter' as const,
  limit: 100,
  windowMs: 60_000,
  gateways: 8,
  syncMs: 1000,
  store: new MemoryStore(),
};

function errorOf(f: () => unknown): Error {
  try {
    f();
  } catch (e) {
    return e as Error;
  }
  throw new Error('expected an error');
}

describe('bad configuration gets an error naming the field', () => {
  const cases: [string, Record<string, unknown>][] = [
    ['limit', { limit: 0 }],
    ['limit', { limit: -5 }],
    ['limit', { limit: Number.NaN }],
    ['limit', { limit: Number.POSITIVE_INFINITY }],
    ['limit', { limit: 1.5 }],
    ['limit', { limit: '100' }],
    ['windowMs', { windowMs: 0 }],
    ['windowMs', { windowMs: -1 }],
    ['windowMs', { windowMs: Number.NaN }],
    ['windowKind', { windowKind: 'rolling' }],
    ['gateways', { gateways: 0 }],
    ['gateways', { gateways: 2.5 }],
    ['syncMs', { syncMs: 0 }],
    ['syncMs', { syncMs: -100 }],
    ['syncMs', { syncMs: 60_001 }],
    ['design', { design: 'token-bucket' }],
    ['id', { id: '' }],
  ];
  for (const [field, patch] of cases) {
    it(`${field} = ${String(Object.values(patch)[0])}`, () => {
      const err = errorOf(() => createGateway({ ...good, ...patch } as typeof good));
      expect(err).toBeInstanceOf(ConfigError);
      expect((err as ConfigError).field).toBe(field);
      expect(err.message).toMatch(new RegExp(`^${field}: `));
    });
  }
});

describe('bad keys and costs', () => {
  const gw = createGateway(good);
  it('rejects an empty key', () => {
    expect(errorOf(() => gw.admit('', 0))).toBeInstanceOf(KeyError);
  });
  it('rejects a key that is not a string', () => {
    expect(errorOf(() => gw.admit(42 as unknown as string, 0)).message).toMatch(/key must be a string/);
  });
  it(`rejects a key longer than ${MAX_KEY_LENGTH} characters`, () => {
    expect(errorOf(() => gw.admit('x'.repeat(MAX_KEY_LENGTH + 1), 0)).message).toMatch(/maximum is 1024/);
    expect(gw.admit('x'.repeat(MAX_KEY_LENGTH), 0).allowed).toBe(true);
  });
  it('rejects a cost that is 0, negative, fractional or NaN, and a time that is not finite', () => {
    for (const cost of [0, -1, 1.5, Number.NaN]) {
      expect((errorOf(() => gw.admit('k', 0, cost)) as ConfigError).field).toBe('cost');
    }
    expect((errorOf(() => gw.admit('k', Number.NaN)) as ConfigError).field).toBe('now');
  });
  it('bad input loses nothing already counted', () => {
    const g = createGateway({ ...good, design: 'central-log', limit: 2, store: new MemoryStore() });
    expect(g.admit('a', 0).allowed).toBe(true);
    errorOf(() => g.admit('a', 1, -1));
    expect(g.admit('a', 2).allowed).toBe(true);
    expect(g.admit('a', 3).allowed).toBe(false);
  });
});
