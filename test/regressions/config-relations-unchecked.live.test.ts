import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, ConfigErrors } from '../../src/config.js';
import { createGateway } from '../../src/gateway/gateway.js';
import { type AsyncGatewayOptions, createAsyncGateway } from '../../src/gateway/runtime/index.js';
import * as pkg from '../../src/index.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import { TestAsyncStore } from '../support/async-memory-store.js';

/**
 * Issue 17, item 11: configurations that cannot work were accepted. staleAfterMs below syncMs (a
 * healthy store counted as down for part of every cycle), leaseTtlMs 50 with syncMs 1000 (grants
 * lapse long before the sync that renews them: almost nothing admitted), windowMs 1e300 (sync
 * errors), syncMs 0.01 (675 syncs/s). A misspelt option (`syncMS`) was refused by `fleetlimit
 * validate` only, the validator stopped at the first error, and the package did not export it.
 */
const base = {
  id: 'gw-1',
  design: 'leases' as const,
  limit: 100,
  windowMs: 60_000,
  gateways: 4,
  syncMs: 1_000,
};

function errorOf(f: () => unknown): ConfigError {
  try {
    f();
  } catch (e) {
    if (e instanceof ConfigError) return e;
    throw e;
  }
  throw new Error('accepted');
}

const asyncGw = (patch: Record<string, unknown>) =>
  createAsyncGateway({ ...base, store: new TestAsyncStore(), ...patch } as AsyncGatewayOptions);

describe('regression: configuration relations are checked', () => {
  it('refuses what cannot work, naming the fields and the relation', () => {
    const stale = errorOf(() => asyncGw({ staleAfterMs: 500 }));
    expect(stale.field).toBe('staleAfterMs');
    expect(stale.message).toMatch(/syncMs \+ storeTimeoutMs/);
    const ttl = errorOf(() => asyncGw({ leaseTtlMs: 50 }));
    expect(ttl.field).toBe('leaseTtlMs');
    expect(ttl.message).toMatch(/syncMs/);
    // the synchronous gateway too (its store answers at once: a grant must outlive one Δ)
    const ttlSync = errorOf(() => createGateway({ ...base, leaseTtlMs: 50, store: new MemoryStore() }));
    expect(ttlSync.field).toBe('leaseTtlMs');
    expect(errorOf(() => asyncGw({ windowMs: 1e300 })).field).toBe('windowMs');
    expect(errorOf(() => asyncGw({ syncMs: 0.01 })).field).toBe('syncMs');
    // a Node timer longer than 2^31 - 1 ms fires after 1 ms: every call would time out
    expect(errorOf(() => asyncGw({ storeTimeoutMs: 2 ** 31 })).field).toBe('storeTimeoutMs');
  });

  it('keeps accepting the defaults, and a window no longer than one sync cycle', () => {
    expect(asyncGw({}).staleAfterMs).toBe(2_200);
    // W = Δ: a staleness up to W (its most) is all there is room for
    expect(asyncGw({ windowMs: 1_000, design: 'shared-counter' }).staleAfterMs).toBe(1_000);
    expect(asyncGw({ windowMs: 2 ** 31 - 1 }).options.policy.windowMs).toBe(2 ** 31 - 1);
    expect(asyncGw({ syncMs: 1, windowMs: 1_000 }).options.fleet.syncMs).toBe(1);
    // leaseTtlMs is only the lease designs' business
    expect(asyncGw({ design: 'shared-counter', leaseTtlMs: 50 }).options.fleet.leaseTtlMs).toBe(50);
  });

  it('createAsyncGateway refuses unknown option names', () => {
    const e = errorOf(() => asyncGw({ syncMS: 100 }));
    expect(e.field).toBe('syncMS');
    expect(e.message).toMatch(/not an option/);
  });

  it('lists every error at once; the package exports the loader validate uses', () => {
    expect(typeof pkg.loadConfig).toBe('function');
    const e = errorOf(() =>
      pkg.loadConfig({ ...base, syncMS: 5, limit: 0, staleAfterMs: 1, redis: { mode: 'x' }, http: { x: 1 } }),
    );
    expect(e).toBeInstanceOf(ConfigErrors);
    expect((e as ConfigErrors).errors.map((x) => x.field).sort()).toEqual(
      ['http.x', 'limit', 'redis.mode', 'syncMS'].sort(),
    );
    const ok = pkg.loadConfig({ ...base, failMode: 'closed', redis: { prefix: 'a:' } });
    expect(ok.gateway).toMatchObject({ ...base, failMode: 'closed' });
    expect(ok.redis).toEqual({ prefix: 'a:' });
  });

  it('fleetlimit validate prints every error and exits 2', () => {
    const dir = mkdtempSync(join(tmpdir(), 'fleetlimit-validate-'));
    try {
      const file = join(dir, 'c.json');
      writeFileSync(file, JSON.stringify({ ...base, syncMS: 5, windowMs: 1e300, leaseTtlMs: 50 }));
      const r = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'validate', file], {
        encoding: 'utf8',
        timeout: 30_000,
      });
      expect(r.status).toBe(2);
      expect(r.stderr).toMatch(/syncMS: /);
      expect(r.stderr).toMatch(/windowMs: /);
      // leaseTtlMs is judged against syncMs, which is valid; windowMs is not, so syncMs <= windowMs is not judged
      expect(r.stderr).toMatch(/leaseTtlMs: /);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
