// `fleetlimit replay --reads on-request` (issue 35 in replay; docs/decisions/0013): the gateways a replay
// builds read a quiet key only after a request, as the simulator's do with the same option.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DESIGN_IDS, type DesignId } from '../../src/config.js';
import { DESIGNS } from '../../src/designs/index.js';
import type { Arrival } from '../../src/replay/arrival.js';
import { ReplayRun, replay } from '../../src/replay/run/engine.js';
import type { ReplaySettings } from '../../src/replay/run/result.js';
import { runManyKeys } from '../../src/sim/many-keys.js';
import { arraySource, randomArrivals } from './support.js';

const settings = (over: Partial<ReplaySettings> = {}): ReplaySettings => ({
  designs: ['central-log'],
  gateways: 4,
  limit: 20,
  windowMs: 10_000,
  syncMs: 1000,
  seed: 1,
  top: 5,
  ...over,
});

/** Each design's decision on each arrival, in `designs` order. */
function decisions(list: readonly Arrival[], s: ReplaySettings): number[][] {
  const run = new ReplayRun(s);
  const out: number[][] = s.designs.map(() => []);
  for (const a of list) {
    run.push(a);
    for (const [i, d] of s.designs.entries()) out[i].push(run.decided[run.order.indexOf(d, 1)]);
  }
  return out;
}

/** Many quiet keys: 200 keys at 40 requests/s over K = 4, each key seen about every 5 s (L = 20 per 10 s). */
const quiet = (seed: number) => randomArrivals(seed, 4000, { keys: 200, gateways: 4, perSec: 40, t0: 0 });

describe('replay --reads on-request', () => {
  it('central-log and split decide as with every-sync; the lazy designs carry fewer keys per sync', async () => {
    const list = quiet(1);
    const designs: DesignId[] = ['central-log', 'split', 'shared-counter'];
    const every = decisions(list, settings({ designs }));
    const onRequest = decisions(list, settings({ designs, reads: 'on-request' }));
    expect(onRequest[0]).toEqual(every[0]);
    expect(onRequest[1]).toEqual(every[1]);

    const a = await replay(arraySource(list), settings({ designs }));
    const b = await replay(arraySource(list), settings({ designs, reads: 'on-request' }));
    expect(b.settings.reads).toBe('on-request');
    expect(a.settings).not.toHaveProperty('reads');
    const row = (r: typeof a, d: DesignId) => r.designs.find((x) => x.design === d)!;
    for (const d of ['central-log', 'split'] as const) expect(row(b, d)).toEqual(row(a, d));
    // shared-counter: every held key read at every sync, against about one read per request
    const sc = [row(a, 'shared-counter'), row(b, 'shared-counter')];
    expect(sc[0].keySyncs).toBeGreaterThan(0);
    expect(sc[1].keySyncs).toBeLessThan(sc[0].keySyncs / 2);
    expect(sc[1].keySyncs).toBeLessThanOrEqual(sc[1].requests + row(b, 'shared-counter').storeCalls);
    // the calls themselves stay one per gateway per Δ (an empty sync is the store's heartbeat)
    expect(sc[1].storeCalls).toBe(sc[0].storeCalls);
  });

  it('the gateways decide as the many-keys simulator’s with the same option, at K = 4', async () => {
    for (const design of ['shared-counter', 'adaptive'] as const) {
      const list = quiet(2);
      list[0].t = 0; // the simulator's syncs start at 0, the replay's at the first arrival
      const s = settings({ designs: [design], reads: 'on-request', seed: 2 });
      const r = await replay(arraySource(list), s);
      const sim = runManyKeys(
        {
          design,
          gateways: 4,
          syncS: 1,
          limit: 20,
          windowS: 10,
          windowKind: 'sliding',
          alignedSyncs: false,
          traffic: 'steady',
          load: 0,
          routing: 'even',
          minutes: 10,
          seed: 2,
          keys: 200,
          floodKeys: 0,
          reads: 'on-request',
        },
        { script: list.map((a) => ({ t: a.t, key: Number(a.key.slice(1)), gateway: a.gateway })) },
      );
      expect({ design, admitted: r.designs[0].admitted }).toEqual({ design, admitted: sim.admitted });
      // and the option changed something: without it the admits differ or the key-syncs do
      const every = await replay(arraySource(list), settings({ designs: [design], seed: 2 }));
      expect(every.designs[0].keySyncs).toBeGreaterThan(r.designs[0].keySyncs);
    }
  });

  // the seed's identity holds with the option: one gateway, every design without grants is the central log
  it('with one gateway, every design without grants decides request for request like the central log', () => {
    const designs = DESIGN_IDS.filter((d) => d !== 'central-log' && !DESIGNS[d].grants);
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1_000_000 }),
        fc.integer({ min: 1, max: 400 }),
        fc.integer({ min: 1, max: 30 }),
        fc.constantFrom(0.5, 2, 10, 50),
        fc.integer({ min: 1, max: 8 }),
        fc.constantFrom(250, 1000, 3000),
        fc.boolean(),
        (seed, n, keys, perSec, L, D, bursts) => {
          // bursts: every 10th arrival comes 2L times at its instant (a quiet key's sudden burst: where
          // a view not read since its last request must still count and release its own admits exactly)
          const list = randomArrivals(seed, n, { keys, gateways: 1, perSec, t0: 5000 }).flatMap((a, i) =>
            bursts && i % 10 === 0 ? Array.from({ length: 2 * L }, () => a) : [a],
          );
          const s = settings({
            designs: ['central-log', ...designs],
            gateways: 1,
            limit: L,
            syncMs: D,
            reads: 'on-request',
          });
          const [central, ...rest] = decisions(list, s);
          for (const [i, got] of rest.entries())
            expect({ design: designs[i], got }).toEqual({ design: designs[i], got: central });
        },
      ),
      { seed: 35, numRuns: 40 },
    );
  });
});
