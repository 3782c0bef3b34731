import { describe, expect, it } from 'vitest';
import { ConfigError, ConfigErrors, MAX_TIMER_MS } from '../../../src/config.js';
import {
  ASYNC_GATEWAY_FIELDS,
  type AsyncGatewayOptions,
  resolveAsyncGatewayOptions,
} from '../../../src/gateway/runtime/async-options.js';
import { MemoryStore } from '../../../src/store/memory-store.js';

/**
 * resolveAsyncGatewayOptions on its own (issue 32: Stryker found its checks reached only through
 * createAsyncGateway's few error cases): each bad option a ConfigError naming its field, every one at
 * once, the relations of staleAfterMs, storeTimeoutMs and gateways 'auto' with the other options.
 */
const W = 10_000;
const D = 1000;

function opts(over: Partial<Record<keyof AsyncGatewayOptions, unknown>> = {}): AsyncGatewayOptions {
  return {
    id: 'g',
    design: 'shared-counter',
    limit: 10,
    windowMs: W,
    gateways: 2,
    syncMs: D,
    store: new MemoryStore(),
    ...over,
  } as AsyncGatewayOptions;
}

/** The errors thrown, as their messages (`field: text`), or [] if it resolved. */
function errors(o: unknown): string[] {
  try {
    resolveAsyncGatewayOptions(o as AsyncGatewayOptions);
    return [];
  } catch (e) {
    if (e instanceof ConfigErrors) return e.errors.map((x) => x.message);
    if (e instanceof ConfigError) return [e.message];
    throw e;
  }
}

const STORE_ERROR = 'store: must be an AsyncStore (with sync, logAdmit, ask and voidLogAdmits)';

describe('resolveAsyncGatewayOptions', () => {
  it('fills in the defaults', async () => {
    const r = resolveAsyncGatewayOptions(opts());
    expect(r.failMode).toBe('local');
    expect(r.storeTimeoutMs).toBe(200);
    expect(r.staleAfterMs).toBe(2 * D + 200);
    expect(r.clock).toBe(Date.now);
    expect(r.random).toBe(Math.random);
    expect(r.maxKeys).toBe(1_000_000);
    expect(r.options.id).toBe('g');
    expect(r.options.fleet.syncMs).toBe(D);
    expect(r.options.policy.windowMs).toBe(W);
    // a MemoryStore is answered through promises
    expect(r.store.sync).toBeTypeOf('function');
    expect(r.store.heartbeat).toBeTypeOf('function');
  });

  it('keeps the values given', () => {
    const clock = () => 5;
    const random = () => 0.5;
    const r = resolveAsyncGatewayOptions(
      opts({ failMode: 'closed', storeTimeoutMs: 50, staleAfterMs: 3000, clock, random, maxKeys: 7 }),
    );
    expect(r).toMatchObject({ failMode: 'closed', storeTimeoutMs: 50, staleAfterMs: 3000, maxKeys: 7 });
    expect(r.clock).toBe(clock);
    expect(r.random).toBe(random);
    expect(resolveAsyncGatewayOptions(opts({ failMode: 'open' })).failMode).toBe('open');
    expect(resolveAsyncGatewayOptions(opts({ failMode: 'local' })).failMode).toBe('local');
  });

  it('refuses options that are not an object', () => {
    for (const o of [null, undefined, 5, 'x']) expect(errors(o)).toEqual(['options: must be an object']);
  });

  it('refuses an unknown option, and knows every one of AsyncGatewayOptions', () => {
    expect(errors(opts({ syncMS: 5 } as never))).toHaveLength(1);
    expect(errors(opts({ syncMS: 5 } as never))[0]).toMatch(/syncMS/);
    expect([...ASYNC_GATEWAY_FIELDS].sort()).toEqual(
      [
        'id',
        'design',
        'limit',
        'windowMs',
        'windowKind',
        'policyName',
        'gateways',
        'initialGateways',
        'syncMs',
        'leaseTtlMs',
        'horizonMs',
        'reads',
        'store',
        'failMode',
        'storeTimeoutMs',
        'staleAfterMs',
        'clock',
        'random',
        'maxKeys',
      ].sort(),
    );
  });

  it('bounds storeTimeoutMs to whole timers Node can set', () => {
    expect(errors(opts({ storeTimeoutMs: 1 }))).toEqual([]);
    expect(errors(opts({ storeTimeoutMs: MAX_TIMER_MS, staleAfterMs: W }))).toEqual([]);
    expect(errors(opts({ storeTimeoutMs: MAX_TIMER_MS + 1, staleAfterMs: W }))).toEqual([
      `storeTimeoutMs: must be at most ${MAX_TIMER_MS} ms, got ${MAX_TIMER_MS + 1}`,
    ]);
    expect(errors(opts({ storeTimeoutMs: 0.5 }))).toEqual([
      'storeTimeoutMs: must be at least 1 ms (timers count whole ms; no store answers sooner), got 0.5',
    ]);
    for (const bad of [0, -1, Number.NaN, Number.POSITIVE_INFINITY, '200']) {
      const e = errors(opts({ storeTimeoutMs: bad }));
      expect(e).toHaveLength(1);
      expect(e[0]).toMatch(/^storeTimeoutMs: /);
    }
  });

  it('passes storeTimeoutMs on to the lease TTL relation', () => {
    const lease = { design: 'leases', leaseTtlMs: 1100 };
    // TTL must be more than Δ + min(storeTimeoutMs, Δ)
    expect(errors(opts({ ...lease, storeTimeoutMs: 99 }))).toEqual([]);
    const e = errors(opts({ ...lease, storeTimeoutMs: 100 }));
    expect(e).toHaveLength(1);
    expect(e[0]).toMatch(/^leaseTtlMs: must be more than syncMs \+ min\(storeTimeoutMs, syncMs\) \(1100\)/);
    // a bad storeTimeoutMs is its own error; the TTL is judged against Δ alone
    const bad = errors(opts({ ...lease, leaseTtlMs: 1000, storeTimeoutMs: -1 }));
    expect(bad).toHaveLength(2);
    expect(bad[0]).toMatch(/^storeTimeoutMs: /);
    expect(bad[1]).toMatch(/^leaseTtlMs: must be more than syncMs \(1000\)/);
  });

  it('refuses a store without every call of an AsyncStore', () => {
    const f = () => undefined;
    const whole = { sync: f, logAdmit: f, ask: f, voidLogAdmits: f };
    expect(errors(opts({ store: whole }))).toEqual([]);
    for (const s of [undefined, null, 5, f, {}]) expect(errors(opts({ store: s }))).toEqual([STORE_ERROR]);
    for (const k of Object.keys(whole)) {
      expect(errors(opts({ store: { ...whole, [k]: 1 } }))).toEqual([STORE_ERROR]);
    }
  });

  it("takes gateways 'auto' only with a store that counts live gateways", () => {
    const f = () => undefined;
    const whole = { sync: f, logAdmit: f, ask: f, voidLogAdmits: f };
    expect(errors(opts({ gateways: 'auto' }))).toEqual([]);
    expect(errors(opts({ gateways: 'auto', store: { ...whole, heartbeat: f } }))).toEqual([]);
    expect(errors(opts({ gateways: 'auto', store: whole }))).toEqual([
      "gateways: 'auto' needs a store that counts live gateways (MemoryStore, RedisStore: heartbeat)",
    ]);
    // without a store, the store's error alone
    expect(errors(opts({ gateways: 'auto', store: undefined }))).toEqual([STORE_ERROR]);
    expect(errors(opts({ gateways: 3, store: whole }))).toEqual([]);
  });

  it('refuses a fail mode it does not know, naming the ones it does', () => {
    expect(errors(opts({ failMode: 'shut' }))).toEqual([
      'failMode: must be one of local, closed, open; got "shut"',
    ]);
    expect(errors(opts({ failMode: 3 }))).toEqual(['failMode: must be one of local, closed, open; got 3']);
  });

  it('refuses a clock or random that is not a function', () => {
    expect(errors(opts({ clock: 5 }))).toEqual(['clock: must be a function, got number']);
    expect(errors(opts({ random: 'x' }))).toEqual(['random: must be a function, got string']);
  });

  it('refuses maxKeys that is not a positive integer', () => {
    expect(errors(opts({ maxKeys: 1 }))).toEqual([]);
    for (const bad of [0, 1.5, -3, '5']) {
      const e = errors(opts({ maxKeys: bad }));
      expect(e).toHaveLength(1);
      expect(e[0]).toMatch(/^maxKeys: /);
    }
  });

  it('defaults staleAfterMs to 2·syncMs + storeTimeoutMs, at most windowMs', () => {
    expect(resolveAsyncGatewayOptions(opts({ storeTimeoutMs: 300 })).staleAfterMs).toBe(2 * D + 300);
    expect(resolveAsyncGatewayOptions(opts({ syncMs: 6000 })).staleAfterMs).toBe(W);
    expect(resolveAsyncGatewayOptions(opts({ syncMs: 4000, storeTimeoutMs: 2001 })).staleAfterMs).toBe(W);
    expect(resolveAsyncGatewayOptions(opts({ syncMs: 4000, storeTimeoutMs: 1999 })).staleAfterMs).toBe(9999);
  });

  it('bounds staleAfterMs by windowMs above and syncMs + storeTimeoutMs below', () => {
    expect(errors(opts({ staleAfterMs: W }))).toEqual([]);
    expect(errors(opts({ staleAfterMs: W + 1 }))).toEqual([
      `staleAfterMs: must not exceed windowMs (${W}), got ${W + 1}`,
    ]);
    expect(errors(opts({ staleAfterMs: D + 200 }))).toEqual([]);
    expect(errors(opts({ staleAfterMs: D + 199 }))).toEqual([
      `staleAfterMs: must be at least syncMs + storeTimeoutMs (${D + 200}), or windowMs (${W}) if that is less: ` +
        `a store answering every sync within its timeout would count as down; got ${D + 199}`,
    ]);
    // Δ + timeout over W: W is the least, and the most
    expect(errors(opts({ syncMs: 9900, staleAfterMs: W }))).toEqual([]);
    const e = errors(opts({ syncMs: 9900, staleAfterMs: W - 1 }));
    expect(e).toHaveLength(1);
    expect(e[0]).toMatch(/^staleAfterMs: must be at least syncMs \+ storeTimeoutMs \(10100\), or windowMs/);
    for (const bad of [0, -5, Number.NaN, 'x']) {
      const b = errors(opts({ staleAfterMs: bad }));
      expect(b).toHaveLength(1);
      expect(b[0]).toMatch(/^staleAfterMs: /);
    }
  });

  it('judges staleAfterMs alone when the options it relates to are bad', () => {
    // storeTimeoutMs bad: no relation is judged, the value itself is
    expect(errors(opts({ storeTimeoutMs: 0, staleAfterMs: 1 }))).toHaveLength(1);
    expect(errors(opts({ storeTimeoutMs: 0, staleAfterMs: W + 1 }))).toHaveLength(1);
    expect(errors(opts({ storeTimeoutMs: 0 }))).toHaveLength(1);
    const e = errors(opts({ storeTimeoutMs: 0, staleAfterMs: -1 }));
    expect(e).toHaveLength(2);
    expect(e[1]).toMatch(/^staleAfterMs: /);
    // windowMs bad: the same
    expect(
      errors(opts({ windowMs: -1, syncMs: 1, staleAfterMs: 1 })).some((m) => m.startsWith('staleAfterMs')),
    ).toBe(false);
    expect(
      errors(opts({ windowMs: -1, syncMs: 1, staleAfterMs: 0 })).some((m) => m.startsWith('staleAfterMs')),
    ).toBe(true);
  });

  it('reports every bad option at once, in the order of the checks', () => {
    const e = errors(
      opts({
        nope: 1,
        storeTimeoutMs: -1,
        limit: 0,
        store: null,
        failMode: 'x',
        staleAfterMs: 0,
        clock: 1,
        random: 2,
        maxKeys: 0,
      } as never),
    );
    expect(e.map((m) => m.slice(0, m.indexOf(':')))).toEqual([
      'nope',
      'storeTimeoutMs',
      'limit',
      'store',
      'failMode',
      'staleAfterMs',
      'clock',
      'random',
      'maxKeys',
    ]);
  });
});
