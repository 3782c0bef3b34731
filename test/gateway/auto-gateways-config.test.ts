import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/cli/validate-command.js';
import { ConfigError } from '../../src/config.js';
import { loadConfig } from '../../src/config-file.js';
import { Gateway } from '../../src/gateway/gateway.js';
import { resolveGatewayOptions } from '../../src/gateway/options.js';
import { createAsyncGateway } from '../../src/gateway/runtime/async-gateway.js';
import { asAsyncStore } from '../../src/store/async-adapter.js';
import type { Store } from '../../src/store/contract.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import { runFleetlimit } from '../support/run-cli.js';

const base = { id: 'g', design: 'split', limit: 12, windowMs: 60_000, syncMs: 1000 } as const;

function fieldOf(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    if (e instanceof ConfigError) return e.message;
    throw e;
  }
  throw new Error('no ConfigError');
}

describe("gateways: 'auto' in the options", () => {
  it('is accepted; K starts at initialGateways (default 1)', () => {
    const o = resolveGatewayOptions({ ...base, gateways: 'auto' });
    expect(o.autoGateways).toBe(true);
    expect(o.fleet.gateways).toBe(1);
    const eight = resolveGatewayOptions({ ...base, gateways: 'auto', initialGateways: 8 });
    expect(eight.fleet.gateways).toBe(8);
    expect(eight.initialGateways).toBe(8);
    const fixed = resolveGatewayOptions({ ...base, gateways: 4 });
    expect(fixed.autoGateways).toBe(false);
    expect(fixed.fleet.gateways).toBe(4);
  });

  it('anything else is refused, naming the field', () => {
    expect(fieldOf(() => resolveGatewayOptions({ ...base, gateways: 'Auto' as 'auto' }))).toMatch(
      /^gateways: .*positive integer or 'auto'/,
    );
    expect(fieldOf(() => resolveGatewayOptions({ ...base, gateways: 0 }))).toMatch(/^gateways: /);
    expect(fieldOf(() => resolveGatewayOptions({ ...base, gateways: 'auto', initialGateways: 0 }))).toMatch(
      /^initialGateways: /,
    );
    expect(fieldOf(() => resolveGatewayOptions({ ...base, gateways: 3, initialGateways: 3 }))).toMatch(
      /^initialGateways: is only for gateways: 'auto'/,
    );
  });

  it('needs a store that counts live gateways', () => {
    const memory = new MemoryStore();
    const bare: Store = {
      logAdmit: memory.logAdmit.bind(memory),
      voidLogAdmits: memory.voidLogAdmits.bind(memory),
      sync: memory.sync.bind(memory),
      ask: memory.ask.bind(memory),
      keyCount: 0,
    };
    expect(fieldOf(() => createAsyncGateway({ ...base, gateways: 'auto', store: bare }))).toMatch(
      /^gateways: 'auto' needs a store that counts live gateways/,
    );
    expect(fieldOf(() => new Gateway({ ...base, gateways: 'auto' }, bare))).toMatch(
      /^gateways: 'auto' needs/,
    );
    expect(asAsyncStore(bare).heartbeat).toBeUndefined();
    // with fixed K the store needs none
    expect(() => createAsyncGateway({ ...base, gateways: 2, store: bare })).not.toThrow();
    expect(() => createAsyncGateway({ ...base, gateways: 'auto', store: memory })).not.toThrow();
  });

  it('a config file (fleetlimit validate) takes "auto" and initialGateways', () => {
    const c = loadConfig({ ...base, gateways: 'auto', initialGateways: 4 });
    expect(c.resolved.autoGateways).toBe(true);
    expect(c.resolved.fleet.gateways).toBe(4);
    expect(() => loadConfig({ ...base, gateways: 'all' })).toThrow(
      /gateways: must be a positive integer or 'auto'/,
    );
    expect(validateConfig({ ...base, gateways: 'auto' }).gateways).toBe('auto');
  });

  it('fleetlimit validate says K = auto', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'fl-auto-')), 'gw.json');
    writeFileSync(file, JSON.stringify({ ...base, gateways: 'auto', initialGateways: 4 }));
    const r = await runFleetlimit(['validate', file]);
    expect(r.out).toContain('K = auto');
    expect(r.code ?? 0).toBe(0);
  });
});

describe("gateways: 'auto' on the synchronous Gateway", () => {
  it('K is the count of the last sync; leave() takes a gateway out at once', () => {
    const store = new MemoryStore();
    const opts = { ...base, design: 'assume-others', gateways: 'auto' } as const;
    const gws = [0, 1, 2].map((i) => new Gateway({ ...opts, id: `g${i}` }, store));
    expect(gws[0].gateways).toBe(1);
    let t = 0;
    for (const g of gws) g.sync(t);
    t += 1000;
    for (const g of gws) g.sync(t);
    expect(gws.map((g) => g.gateways)).toEqual([3, 3, 3]);
    gws[2].leave(t);
    t += 1000;
    gws[0].sync(t);
    gws[1].sync(t);
    expect(gws[0].gateways).toBe(2);
    // assume-others weighs its own admits by K: 12 / 2 = 6 own admits fill the window
    let admitted = 0;
    for (let i = 0; i < 10; i++) if (gws[0].allow('k', t + 1)) admitted++;
    expect(admitted).toBe(6);
  });

  it('a gateway that stops syncing drops out after 3Δ', () => {
    const store = new MemoryStore();
    const opts = { ...base, gateways: 'auto' } as const;
    const a = new Gateway({ ...opts, id: 'a' }, store);
    const b = new Gateway({ ...opts, id: 'b' }, store);
    a.sync(0);
    b.sync(0);
    a.sync(3000);
    expect(a.gateways).toBe(2);
    a.sync(3001);
    expect(a.gateways).toBe(1);
  });
});
