import { describe, expect, it } from 'vitest';
import { ConfigError, MAX_GATEWAYS } from '../../src/config.js';
import { loadConfig } from '../../src/config-file.js';
import { createGateway } from '../../src/gateway/gateway.js';
import { type AsyncGatewayOptions, createAsyncGateway } from '../../src/gateway/runtime/index.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import { TestAsyncStore } from '../support/async-memory-store.js';

/**
 * Issue 32, smaller items: `storeTimeoutMs: 0.001` and `gateways: 1e9` were accepted. A timeout
 * under 1 ms fires after 1 ms (Node's timers count whole ms) and no store answers within 0.001 ms;
 * a K of a billion is a typo, and its shares L/K are a ten-millionth of a request. Bad
 * configuration throws an error naming the field.
 */
const base = {
  id: 'gw-1',
  design: 'shared-counter' as const,
  limit: 100,
  windowMs: 60_000,
  gateways: 4,
  syncMs: 1_000,
};

function fieldOf(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    if (e instanceof ConfigError) return e.field;
    throw e;
  }
  throw new Error('accepted');
}

const asyncGw = (patch: Record<string, unknown>) =>
  createAsyncGateway({ ...base, store: new TestAsyncStore(), ...patch } as AsyncGatewayOptions);

describe('regression: a tiny store timeout and a huge K are refused', () => {
  it('storeTimeoutMs below 1 ms', () => {
    for (const storeTimeoutMs of [0.001, 0.5, 0.999]) {
      expect(fieldOf(() => asyncGw({ storeTimeoutMs }))).toBe('storeTimeoutMs');
    }
    expect(fieldOf(() => loadConfig({ ...base, storeTimeoutMs: 0.001 }))).toBe('storeTimeoutMs');
    expect(asyncGw({ storeTimeoutMs: 1 }).storeTimeoutMs).toBe(1);
  });

  it('gateways and initialGateways above MAX_GATEWAYS, in both runtimes and in a config file', () => {
    expect(fieldOf(() => asyncGw({ gateways: 1e9 }))).toBe('gateways');
    expect(fieldOf(() => asyncGw({ gateways: MAX_GATEWAYS + 1 }))).toBe('gateways');
    expect(fieldOf(() => createGateway({ ...base, gateways: 1e9, store: new MemoryStore() }))).toBe(
      'gateways',
    );
    expect(fieldOf(() => loadConfig({ ...base, gateways: 1e9 }))).toBe('gateways');
    expect(fieldOf(() => asyncGw({ gateways: 'auto', initialGateways: 1e9 }))).toBe('initialGateways');
    expect(asyncGw({ gateways: MAX_GATEWAYS }).options.fleet.gateways).toBe(MAX_GATEWAYS);
    expect(asyncGw({ gateways: 'auto', initialGateways: 64 }).options.fleet.gateways).toBe(64);
  });
});
