import { describe, expect, it } from 'vitest';
import { DESIGN_IDS, type DesignId } from '../src/config.js';
import { createGateway } from '../src/gateway/gateway.js';
import { MemoryStore } from '../src/store/memory-store.js';

const gc = (globalThis as { gc?: () => void }).gc;

function heapMb(): number {
  gc!();
  gc!();
  return process.memoryUsage().heapUsed / 2 ** 20;
}

describe('idle state is reclaimed on the gateway and in the store', () => {
  it('runs with --expose-gc', () => {
    expect(typeof gc).toBe('function');
  });

  for (const design of ['shared-counter', 'central-log', 'leases'] as DesignId[]) {
    it(`${design}: one million keys hit once, then past W and one sync: nothing left`, {
      timeout: 240_000,
    }, () => {
      const base = heapMb();
      const store = new MemoryStore();
      const gw = createGateway({
        id: 'g',
        design,
        limit: 100,
        windowMs: 60_000,
        gateways: 4,
        syncMs: 1000,
        store,
      });
      const N = 1_000_000;
      if (design === 'leases') {
        // leases need a grant before they admit: one sync hands every key one
        for (let i = 0; i < N; i++) gw.admit(`user:${i}`, 0);
        gw.sync(1);
        for (let i = 0; i < N; i++) gw.admit(`user:${i}`, 2);
      } else {
        for (let i = 0; i < N; i++) gw.admit(`user:${i}`, i / 1000);
      }
      const held = Math.max(gw.keyCount, store.keyCount);
      const peak = heapMb();
      gw.sync(61_000);
      expect(held).toBe(N);
      expect(gw.keyCount).toBe(0);
      expect(store.keyCount).toBe(0);
      const after = heapMb();
      console.log(
        `${design}: held ${held} keys, heap ${base.toFixed(0)} MB → ${peak.toFixed(0)} MB at peak → ${after.toFixed(0)} MB after`,
      );
      expect(after - base).toBeLessThan(20);
    });
  }

  it('every design drops an idle key', () => {
    for (const design of DESIGN_IDS) {
      const store = new MemoryStore();
      const gw = createGateway({
        id: 'g',
        design,
        limit: 10,
        windowMs: 1000,
        gateways: 2,
        syncMs: 100,
        store,
      });
      gw.admit('k', 0);
      gw.sync(50);
      gw.sync(5000);
      gw.sync(5100);
      expect([design, gw.keyCount]).toEqual([design, 0]);
    }
  });
});
