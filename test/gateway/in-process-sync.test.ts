// Gateway.sync over the in-memory store takes a fast path (InProcessSync: each key's entry and reply
// in turn, one reply object); any other store gets the contract's sync(). Both must decide alike:
// the same requests through a gateway of each, every decision and every sync's figures compared.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DESIGN_IDS } from '../../src/config.js';
import { Gateway } from '../../src/gateway/gateway.js';
import type { ReadsMode } from '../../src/gateway/options.js';
import type { Store } from '../../src/store/contract.js';
import { syncsInProcess } from '../../src/store/in-process.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import { PassThroughStore } from '../../src/store/pass-through.js';
import { seeded } from '../support/fc-seed.js';

/** The memory store behind the contract alone: a wrapper that has no InProcessSync. */
class ContractOnly extends PassThroughStore<MemoryStore> implements Store {
  get keyCount(): number {
    return this.inner.keyCount;
  }
}

const K = 3;
const step = fc.record({
  dt: fc.integer({ min: 0, max: 60 }),
  key: fc.integer({ min: 0, max: 4 }),
  g: fc.integer({ min: 0, max: K - 1 }),
  cost: fc.constantFrom(1, 1, 1, 2),
  syncs: fc.boolean(),
});

/** Every decision and sync of one run, in order. */
function run(
  design: (typeof DESIGN_IDS)[number],
  reads: ReadsMode,
  store: Store,
  steps: { dt: number; key: number; g: number; cost: number; syncs: boolean }[],
): unknown[] {
  const gws = Array.from(
    { length: K },
    (_, g) =>
      new Gateway(
        {
          id: `g${g}`,
          design,
          limit: 5,
          windowMs: 1000,
          windowKind: 'sliding',
          gateways: K,
          syncMs: 100,
          reads,
        },
        store,
      ),
  );
  const seen: unknown[] = [];
  let t = 0;
  for (const s of steps) {
    t += s.dt;
    // a sync of that gateway first (the keys it holds, some dropped), then the request
    if (s.syncs) seen.push(gws[s.g].sync(t));
    seen.push(gws[s.g].admit(`k${s.key}`, t, s.cost));
  }
  for (const gw of gws) seen.push(gw.sync(t + 2000));
  return seen;
}

describe('Gateway.sync: the in-memory fast path decides as the contract sync()', () => {
  it('the memory store takes it; a wrapper without it does not', () => {
    expect(syncsInProcess(new MemoryStore())).toBe(true);
    expect(syncsInProcess(new ContractOnly(new MemoryStore()))).toBe(false);
  });

  for (const design of DESIGN_IDS)
    for (const reads of ['every-sync', 'on-request'] as const)
      it(`${design}, reads ${reads}: every decision and sync alike`, () => {
        fc.assert(
          fc.property(fc.array(step, { minLength: 1, maxLength: 200 }), (steps) => {
            const fast = run(design, reads, new MemoryStore(), steps);
            const contract = run(design, reads, new ContractOnly(new MemoryStore()), steps);
            expect(fast).toEqual(contract);
          }),
          seeded({ numRuns: 60 }),
        );
      });
});

describe('a MemoryStore subclass that overrides sync()', () => {
  it('sees every sync: the gateway does not go around it', () => {
    const seen: number[] = [];
    class Watching extends MemoryStore {
      override sync(req: Parameters<MemoryStore['sync']>[0], now: number) {
        seen.push(req.entries.length);
        return super.sync(req, now);
      }
    }
    const gw = new Gateway(
      { id: 'a', design: 'shared-counter', limit: 5, windowMs: 1000, gateways: 1, syncMs: 100 },
      new Watching(),
    );
    gw.allow('k', 0);
    gw.sync(100);
    expect(seen).toEqual([1]);
  });
});
