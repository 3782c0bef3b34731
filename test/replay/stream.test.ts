import { describe, expect, it } from 'vitest';
import type { Arrival } from '../../src/replay/arrival.js';
import { overlayAttacks, parseAttack } from '../../src/replay/run/attack.js';
import { replay } from '../../src/replay/run/engine.js';
import { arraySource } from './support.js';

async function collect(it: AsyncIterable<Arrival>): Promise<Arrival[]> {
  const out: Arrival[] = [];
  for await (const a of it) out.push(a);
  return out;
}

const T0 = Date.parse('2026-03-01T12:00:00Z');

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
