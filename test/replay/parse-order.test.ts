// Time order: lines out of order within the reorder window are put back; older ones are counted late
// and placed at the window's edge; ties keep read order; --spread uniform places one-second stamps
// inside their second by a seeded draw.
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import type { Arrival } from '../../src/replay/arrival.js';
import { ReorderWindow } from '../../src/replay/parse/reorder-window.js';
import { formatLine } from '../../src/replay/parse/write-log.js';
import { seeded } from '../support/fc-seed.js';
import { LogDir, readAll } from '../support/replay-logs.js';

const logs = new LogDir();
afterAll(() => logs.remove());

const T0 = Date.UTC(2026, 0, 5, 12, 0, 0);
const line = (t: number, key: string) =>
  formatLine({ t, key, gateway: 0, status: 200 }, { format: 'combined' });

describe('reorder window', () => {
  it('puts lines back in order within the window and counts them', async () => {
    const seconds = [0, 2, 1, 3, 5, 4, 4, 0, 6];
    const file = logs.file(
      'unordered.log',
      seconds.map((s, i) => line(T0 + s * 1000, `k${i}`)),
    );
    const { arrivals, stats } = await readAll([file], { format: 'combined' });
    expect(arrivals.map((a) => a.key)).toEqual(['k0', 'k7', 'k2', 'k1', 'k3', 'k5', 'k6', 'k4', 'k8']);
    expect(arrivals.map((a) => (a.t - T0) / 1000)).toEqual([0, 0, 1, 2, 3, 4, 4, 5, 6]);
    // behind the newest stamp read: 1 (after 2), 4 and 4 (after 5), 0 (after 5)
    expect(stats).toMatchObject({ reordered: 4, late: 0, arrivals: 9 });
  });

  it('counts lines older than the window late and places them at its edge, never dropped', async () => {
    const seconds = [0, 10, 20, 30, 5, 31, 29];
    const file = logs.file(
      'late.log',
      seconds.map((s, i) => line(T0 + s * 1000, `k${i}`)),
    );
    const { arrivals, stats } = await readAll([file], { format: 'combined', reorderWindowMs: 10_000 });
    // k4 (5 s) arrives when the newest is 30 s: the edge is 20 s, where it is placed (after k2, read first)
    expect(arrivals.map((a) => [a.key, (a.t - T0) / 1000])).toEqual([
      ['k0', 0],
      ['k1', 10],
      ['k2', 20],
      ['k4', 20],
      ['k6', 29],
      ['k3', 30],
      ['k5', 31],
    ]);
    expect(stats).toMatchObject({ late: 1, reordered: 1, arrivals: 7 });
  });

  it('keeps ties in read order, and a window of 0 takes nothing back', async () => {
    const file = logs.file('ties.log', [line(T0, 'a'), line(T0, 'b'), line(T0 + 1000, 'c'), line(T0, 'd')]);
    const held = await readAll([file], { format: 'combined' });
    expect(held.arrivals.map((a) => a.key)).toEqual(['a', 'b', 'd', 'c']);
    const none = await readAll([file], { format: 'combined', reorderWindowMs: 0 });
    expect(none.arrivals.map((a) => [a.key, a.t - T0])).toEqual([
      ['a', 0],
      ['b', 0],
      ['c', 1000],
      ['d', 1000],
    ]);
    expect(none.stats.late).toBe(1);
  });

  it('gives every arrival once, in ascending t, each moved only up to its edge (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 50 }), { maxLength: 200 }),
        fc.integer({ min: 0, max: 20 }),
        (ts, windowMs) => {
          const counts = { reordered: 0, late: 0 };
          const w = new ReorderWindow(windowMs, counts);
          const out: Arrival[] = [];
          let newest = Number.NEGATIVE_INFINITY;
          const expected: number[] = [];
          ts.forEach((t, i) => {
            // the model: an arrival behind the edge is raised to it
            expected.push(Math.max(t, newest - windowMs));
            newest = Math.max(newest, t);
            w.push({ t, key: String(i), gateway: 0 }, t, out);
          });
          w.flush(out);
          expect(out.map((a) => a.t)).toEqual([...expected].sort((a, b) => a - b));
          // each arrival kept its own (raised) t, and ties came out in read order
          for (let i = 1; i < out.length; i++) {
            expect(out[i].t).toBeGreaterThanOrEqual(out[i - 1].t);
            if (out[i].t === out[i - 1].t) expect(Number(out[i].key)).toBeGreaterThan(Number(out[i - 1].key));
          }
          for (const a of out) expect(a.t).toBe(expected[Number(a.key)]);
          expect(counts.late).toBe(ts.filter((t, i) => t !== expected[i]).length);
        },
      ),
      seeded(),
    );
  });

  it('holds only the window, not the file', () => {
    const w = new ReorderWindow(1000, { reordered: 0, late: 0 });
    const out: Arrival[] = [];
    let most = 0;
    for (let i = 0; i < 100_000; i++) {
      w.push({ t: i * 10, key: 'k', gateway: 0 }, i * 10, out);
      most = Math.max(most, w.size);
    }
    // the arrivals of the last 1,000 ms, 10 ms apart (the one at the edge is due, so out)
    expect(most).toBe(100);
  });
});

describe('--spread', () => {
  const sameSecond = Array.from({ length: 2000 }, (_, i) => line(T0 + Math.floor(i / 1000) * 1000, `k${i}`));

  it('uniform places each one-second stamp inside its second, seeded', async () => {
    const file = logs.file('spread.log', sameSecond);
    const a = await readAll([file], { format: 'combined', spread: 'uniform', seed: 3 });
    const b = await readAll([file], { format: 'combined', spread: 'uniform', seed: 3 });
    const c = await readAll([file], { format: 'combined', spread: 'uniform', seed: 4 });
    expect(a.arrivals).toEqual(b.arrivals);
    expect(a.arrivals).not.toEqual(c.arrivals);
    for (const x of a.arrivals) {
      const second = Number(x.key.slice(1)) < 1000 ? T0 : T0 + 1000;
      expect(x.t).toBeGreaterThanOrEqual(second);
      expect(x.t).toBeLessThan(second + 1000);
      expect(Number.isInteger(x.t)).toBe(true);
    }
    const ms = a.arrivals.map((x) => x.t % 1000);
    expect(Math.min(...ms)).toBeLessThan(20);
    expect(Math.max(...ms)).toBeGreaterThan(980);
    expect(new Set(ms).size).toBeGreaterThan(500);
    // in ascending t, and the stamps as written were in order: nothing counted reordered
    for (let i = 1; i < a.arrivals.length; i++)
      expect(a.arrivals[i].t).toBeGreaterThanOrEqual(a.arrivals[i - 1].t);
    expect(a.stats).toMatchObject({ reordered: 0, late: 0 });
  });

  it('none keeps the stamps as written; stamps with ms are never moved', async () => {
    const file = logs.file('spread-none.log', sameSecond);
    const none = await readAll([file], { format: 'combined', spread: 'none' });
    expect(new Set(none.arrivals.map((x) => x.t))).toEqual(new Set([T0, T0 + 1000]));
    const envoy = logs.file('spread-envoy.log', [
      formatLine({ t: T0 + 123, key: 'a', gateway: 0, status: 200 }, { format: 'envoy' }),
      formatLine({ t: T0 + 456, key: 'b', gateway: 0, status: 200 }, { format: 'envoy' }),
    ]);
    const kept = await readAll([envoy], { format: 'envoy', spread: 'uniform', seed: 9 });
    expect(kept.arrivals.map((x) => x.t)).toEqual([T0 + 123, T0 + 456]);
  });
});
