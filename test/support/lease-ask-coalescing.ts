import { expect } from 'vitest';
import type { LeaseKey } from '../../src/designs/leases.js';
import type { Decision } from '../../src/gateway/decision.js';
import { createAsyncGateway } from '../../src/gateway/runtime/index.js';
import type { AsyncStore } from '../../src/store/contract.js';

/** leases-ask's one ask in flight per key, on any store: the scenario the unit and the Redis test share. */

/** Counts asks (and the most in flight at once) on the way to `inner`. */
export function counted(inner: AsyncStore): AsyncStore & { asks: number[]; maxInFlight: number } {
  let inFlight = 0;
  const out = {
    asks: [] as number[],
    maxInFlight: 0,
    sync: (req, now) => inner.sync(req, now),
    logAdmit: (req, now) => inner.logAdmit(req, now),
    voidLogAdmits: (g, p, v, now) => inner.voidLogAdmits(g, p, v, now),
    ask: async (req, now) => {
      out.asks.push(req.ask);
      out.maxInFlight = Math.max(out.maxInFlight, ++inFlight);
      try {
        return await inner.ask(req, now);
      } finally {
        inFlight--;
      }
    },
  } satisfies AsyncStore & { asks: number[]; maxInFlight: number };
  return out;
}

export const base = {
  id: 'gw-0',
  design: 'leases-ask' as const,
  limit: 10,
  windowMs: 60_000,
  gateways: 2,
  // α = 1 − e^(−Δ/W) = 0.39: three arrivals in an interval make the next asks 3 slots
  syncMs: 30_000,
  storeTimeoutMs: 2_000,
  staleAfterMs: 60_000,
};

export const allowed = (ds: Decision[]) => ds.map((d) => d.allowed);

/**
 * A gateway whose key has seen arrivals (so an ask asks for more than one slot: ceil(1.5 m) + 1) and
 * holds no slot now: three requests one after another (an ask each), a sync (m = 1.18, a grant of 3),
 * three more requests that spend it.
 */
export async function emptyLeaseKey(store: AsyncStore) {
  const gw = createAsyncGateway({ ...base, store });
  for (let i = 0; i < 3; i++) expect((await gw.admitNow('k')).allowed).toBe(true);
  expect(await gw.syncNow()).toBe(true);
  for (let i = 0; i < 3; i++) expect((await gw.admitNow('k')).allowed).toBe(true);
  expect((gw.limiterFor('k') as LeaseKey).slots(gw.now())).toBe(0);
  return gw;
}

export async function twoConcurrentOnAnEmptyLease(inner: AsyncStore): Promise<void> {
  const store = counted(inner);
  const gw = await emptyLeaseKey(store);
  // 6 of L = 10 admitted; the next ask is for 3 slots
  store.asks.length = 0;
  const first = gw.admitNow('k');
  const second = gw.admitNow('k');
  expect(first).toBeInstanceOf(Promise);
  expect(second).toBeInstanceOf(Promise);
  expect(allowed(await Promise.all([first, second]))).toEqual([true, true]);
  expect(store.asks).toEqual([3]);
  expect(gw.stats().coalescedAsks).toBe(1);
  await gw.stop();
}
