import { describe, expect, it } from 'vitest';
import type { Arrival } from '../../src/replay/arrival.js';
import { overlayAttacks, parseAttack } from '../../src/replay/run/attack.js';
import { replay } from '../../src/replay/run/engine.js';
import { spreadArrivals } from '../../src/replay/run/spread.js';
import { arraySource } from './support.js';

async function collect(it: AsyncIterable<Arrival>): Promise<Arrival[]> {
  const out: Arrival[] = [];
  for await (const a of it) out.push(a);
  return out;
}

const T0 = Date.parse('2026-03-01T12:00:00Z');
/** A second-resolution log: 4 arrivals stamped T0, 1 at T0 + 1 s, 3 at T0 + 1.5 s (a finer stamp). */
const stamped: Arrival[] = [
  ...['a', 'b', 'c', 'd'].map((key) => ({ t: T0, key, gateway: 0 })),
  { t: T0 + 1000, key: 'e', gateway: 0 },
  ...['f', 'g', 'h'].map((key) => ({ t: T0 + 1500, key, gateway: 0 })),
];

describe('--spread', () => {
  it('none keeps the log’s times', async () => {
    const got = await collect(spreadArrivals(arraySource(stamped).arrivals, 'none', 1));
    expect(got).toEqual(stamped);
  });

  it('even places arrivals sharing a whole-second stamp at i/n of that second, in order', async () => {
    const got = await collect(spreadArrivals(arraySource(stamped).arrivals, 'even', 1));
    expect(got.map((a) => a.key)).toEqual(stamped.map((a) => a.key));
    expect(got.slice(0, 4).map((a) => a.t - T0)).toEqual([0, 250, 500, 750]);
    // a whole-second stamp never spreads past the next distinct stamp (T0 + 1.5 s is 500 ms later)
    expect(got[4].t).toBe(T0 + 1000);
    // a finer stamp spreads over its millisecond only
    const fine = got.slice(5).map((a) => a.t - T0 - 1500);
    for (const [i, x] of fine.entries()) expect(x).toBeCloseTo(i / 3, 3);
  });

  it('random draws from the seed: ordered, within the stamp’s span, the same for the same seed', async () => {
    const a = await collect(spreadArrivals(arraySource(stamped).arrivals, 'random', 7));
    const b = await collect(spreadArrivals(arraySource(stamped).arrivals, 'random', 7));
    const c = await collect(spreadArrivals(arraySource(stamped).arrivals, 'random', 8));
    expect(a).toEqual(b);
    expect(a).not.toEqual(c);
    for (let i = 1; i < a.length; i++) expect(a[i].t).toBeGreaterThanOrEqual(a[i - 1].t);
    for (const x of a.slice(0, 4)) expect(x.t - T0).toBeGreaterThanOrEqual(0);
    for (const x of a.slice(0, 4)) expect(x.t - T0).toBeLessThan(1000);
  });
});

describe('--attack', () => {
  it('parses RATEx@KEY@TIME, a relative or ISO time, a key holding @', () => {
    expect(parseAttack('100x@alice@+10m')).toEqual({ times: 100, key: 'alice', at: { afterStart: 600_000 } });
    expect(parseAttack('2.5x@a@b.com@2026-03-01T12:30:00Z')).toEqual({
      times: 2.5,
      key: 'a@b.com',
      at: { absolute: Date.parse('2026-03-01T12:30:00Z') },
    });
    expect(() => parseAttack('100@alice@+10m')).toThrow(/multiple of the limit like 100x/);
    expect(() => parseAttack('100x@alice')).toThrow(/RATEx@KEY@TIME/);
    expect(() => parseAttack('100x@alice@soon')).toThrow(/ISO .* or relative/);
    expect(() => parseAttack('100x@@+1m')).toThrow(/key is empty/);
  });

  // one honest arrival a second on "bob" for 10 minutes, a 100× flood on "bob" from +5 min
  const honest: Arrival[] = Array.from({ length: 600 }, (_, i) => ({
    t: T0 + i * 1000,
    key: 'bob',
    gateway: i % 2,
  }));

  it('overlays 100 × L per W on the key from its time until the log ends, marked flood, in time order', async () => {
    const spec = parseAttack('100x@bob@+5m');
    const got = await collect(
      overlayAttacks(arraySource(honest).arrivals, [spec], {
        limit: 20,
        windowMs: 60_000,
        gateways: 2,
        seed: 3,
      }),
    );
    const flood = got.filter((a) => a.flood === true);
    for (let i = 1; i < got.length; i++) expect(got[i].t).toBeGreaterThanOrEqual(got[i - 1].t);
    expect(Math.min(...flood.map((a) => a.t))).toBeGreaterThanOrEqual(T0 + 300_000);
    expect(Math.max(...flood.map((a) => a.t))).toBeLessThan(T0 + 599_000);
    // 100 × 20 per minute for ~5 minutes: 10,000 expected (Poisson, ± a few %)
    expect(flood.length).toBeGreaterThan(9500);
    expect(flood.length).toBeLessThan(10_500);
    expect(new Set(flood.map((a) => a.gateway))).toEqual(new Set([0, 1]));
    expect(got.filter((a) => a.flood !== true)).toEqual(honest);
  });

  it('the flood’s own rejections are not honest ones; the honest client’s under the flood are', async () => {
    const arrivals = overlayAttacks(arraySource(honest).arrivals, [parseAttack('100x@bob@+5m')], {
      limit: 20,
      windowMs: 60_000,
      gateways: 2,
      seed: 3,
    });
    const r = await replay(
      { arrivals, stats: () => arraySource([]).stats() },
      {
        designs: ['central-log', 'shared-counter'],
        gateways: 2,
        limit: 20,
        windowMs: 60_000,
        syncMs: 1000,
        seed: 1,
        top: 3,
      },
    );
    expect(r.floodArrivals).toBeGreaterThan(9500);
    const [central, shared] = r.designs;
    // the central log admits what it admits; no rejection of its own is "honest"
    expect(central.honestRejected).toBe(0);
    expect(central.worstWindow).toBe(1);
    // rejections of honest requests the central log would have admitted: fewer than the honest requests
    expect(shared.honestRejected).toBeLessThan(600);
    expect(shared.rejected).toBeGreaterThan(9000);
    expect(shared.overAdmitted).toBeGreaterThan(0);
    expect(r.top[1].byOverAdmitted[0]).toMatchObject({ key: 'bob', requests: 600 + r.floodArrivals });
  });
});
