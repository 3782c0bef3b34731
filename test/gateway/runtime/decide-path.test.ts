import { describe, expect, it, vi } from 'vitest';
import type { DesignId } from '../../../src/config.js';
import { createAsyncGateway } from '../../../src/gateway/runtime/index.js';
import { MemoryStore } from '../../../src/store/memory-store.js';

/** admitNow and allowNow share one decision path; allowNow only hands back the boolean. */
function pair(design: DesignId) {
  let t = 1_000_000;
  const make = () =>
    createAsyncGateway({
      id: 'g',
      design,
      limit: 5,
      windowMs: 1_000,
      gateways: 2,
      syncMs: 100,
      store: new MemoryStore(),
      clock: () => t,
      random: () => 0,
      maxKeys: 3,
    });
  return { a: make(), b: make(), step: (ms: number) => (t += ms) };
}

describe('AsyncGateway: admitNow and allowNow', () => {
  for (const design of ['track-share', 'leases', 'split', 'central-log'] as DesignId[]) {
    it(`${design}: the same decisions, counted the same, call by call`, async () => {
      const { a, b, step } = pair(design);
      const keys = ['u1', 'u2', 'u1', 'u3', 'u4', 'u1'];
      for (let i = 0; i < 60; i++) {
        const key = keys[i % keys.length];
        const cost = i % 13 === 0 ? 9 : 1 + (i % 2);
        const d = await a.admitNow(key, cost);
        const ok = await b.allowNow(key, cost);
        expect(ok).toBe(d.allowed);
        if (i % 7 === 0) await Promise.all([a.syncNow(), b.syncNow()]);
        step(37);
      }
      expect(b.stats().decisions).toEqual(a.stats().decisions);
      expect(b.stats().unsyncedAdmits).toBe(a.stats().unsyncedAdmits);
    });
  }

  it('allowNow builds no Decision when the limiter decides locally; admitNow does', () => {
    const { a } = pair('track-share');
    // private: the one place a limiter's verdict becomes a Decision
    const build = vi.spyOn(a as unknown as { fromLimiter: () => unknown }, 'fromLimiter');
    for (let i = 0; i < 10; i++) expect(typeof a.allowNow('k')).toBe('boolean');
    expect(build).not.toHaveBeenCalled();
    a.admitNow('k');
    expect(build).toHaveBeenCalledTimes(1);
  });
});
