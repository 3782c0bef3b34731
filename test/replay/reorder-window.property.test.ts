// The reorder window against a plain model of its contract: each arrival raised to the edge if
// behind it (late), counted reordered if its stamp is behind the newest stamp; after each push every
// held arrival with t ≤ newest − window goes out, in (t, read order); flush gives the rest. The
// window's ring, two queues and heap must give the same arrivals, in the same batches, with the same
// counts, over streams like `--spread uniform`'s (draws inside a second, ties, late lines, tiny and
// huge gaps, stamps before 1970, ms fractions) and windows from 0 up past the ring's 2,048 ms.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Arrival } from '../../src/replay/arrival.js';
import { ReorderWindow } from '../../src/replay/parse/reorder-window.js';
import { Random } from '../../src/sim/random.js';
import { seeded } from '../support/fc-seed.js';

interface Line {
  t: number;
  stamp: number;
}

interface Run {
  out: Arrival[];
  /** out's length after each push: which batch each arrival left in. */
  outAfter: number[];
  /** size after each push. */
  held: number[];
  counts: { reordered: number; late: number };
}

/** The contract, plainly: a list kept sorted on (t, read order). */
function model(lines: readonly Line[], windowMs: number): Run {
  const counts = { reordered: 0, late: 0 };
  const held: { t: number; i: number }[] = [];
  const out: Arrival[] = [];
  const outAfter: number[] = [];
  const sizes: number[] = [];
  let newest = Number.NEGATIVE_INFINITY;
  let newestStamp = Number.NEGATIVE_INFINITY;
  const take = (edge: number) => {
    let n = 0;
    while (n < held.length && held[n].t <= edge) n++;
    for (const h of held.splice(0, n)) out.push({ t: h.t, key: String(h.i), gateway: 0, status: 200 });
  };
  lines.forEach(({ t: at, stamp }, i) => {
    let t = at;
    if (t < newest - windowMs) {
      counts.late++;
      t = newest - windowMs;
    } else if (stamp < newestStamp) counts.reordered++;
    newest = Math.max(newest, t);
    newestStamp = Math.max(newestStamp, stamp);
    let j = held.length; // after every arrival at t or before: read order among ties
    while (j > 0 && held[j - 1].t > t) j--;
    held.splice(j, 0, { t, i });
    take(newest - windowMs);
    outAfter.push(out.length);
    sizes.push(held.length);
  });
  take(Number.POSITIVE_INFINITY);
  return { out, outAfter, held: sizes, counts };
}

function windowRun(lines: readonly Line[], windowMs: number): Run {
  const counts = { reordered: 0, late: 0 };
  const w = new ReorderWindow(windowMs, counts);
  const out: Arrival[] = [];
  const outAfter: number[] = [];
  const held: number[] = [];
  lines.forEach(({ t, stamp }, i) => {
    w.pushFields(t, String(i), 0, 200, stamp, out);
    outAfter.push(out.length);
    held.push(w.size);
  });
  w.flush(out);
  return { out, outAfter, held, counts };
}

/** A log's lines: seconds that move on by 0, 1, a few or very many; each line's stamp its second or,
 * now and then, a few seconds behind; t the stamp plus a draw inside the second (ties when the draws
 * are few), now and then with a fraction of a ms. */
const streams = fc
  .record({
    start: fc.constantFrom(-5_000, 0, 1_767_000_000),
    draws: fc.constantFrom(1, 4, 1000),
    steps: fc.array(
      fc.record({
        gap: fc.oneof(
          { weight: 12, arbitrary: fc.constant(0) },
          { weight: 4, arbitrary: fc.integer({ min: 1, max: 3 }) },
          { weight: 1, arbitrary: fc.integer({ min: 4, max: 100_000 }) },
        ),
        behind: fc.oneof({ weight: 10, arbitrary: fc.constant(0) }, fc.integer({ min: 1, max: 70 })),
        draw: fc.double({ min: 0, max: 1, noNaN: true, maxExcluded: true }),
        fraction: fc.oneof({ weight: 20, arbitrary: fc.constant(0) }, fc.constantFrom(0.25, 0.5)),
      }),
      { maxLength: 300 },
    ),
  })
  .map(({ start, draws, steps }) => {
    let second = start;
    return steps.map((s): Line => {
      second += s.gap;
      const stamp = (second - s.behind) * 1000;
      return { t: stamp + Math.floor(s.draw * draws) + s.fraction, stamp };
    });
  });

const windows = fc.oneof(
  fc.constantFrom(0, 1, 999, 1000, 1500.5, 2047, 2048, 2049, 3000, 60_000),
  fc.integer({ min: 0, max: 70_000 }),
);

describe('reorder window against its model', () => {
  it('gives the same arrivals, batches, sizes and counts (property)', () => {
    fc.assert(
      fc.property(streams, windows, (lines, windowMs) => {
        expect(windowRun(lines, windowMs)).toEqual(model(lines, windowMs));
      }),
      seeded({ numRuns: 300 }),
    );
  });

  it('does so over a long spread log: 40,000 lines at 2,000 a second, every 50th 1-3 s behind', () => {
    // long enough to wrap the ring many times and compact the queues
    const random = new Random(5);
    const t0 = Date.UTC(2026, 0, 5, 12, 0, 0);
    const lines: Line[] = [];
    for (let i = 0; i < 40_000; i++) {
      const behind = i % 50 === 0 ? 1000 + Math.floor(random.uniform() * 2000) : 0;
      const stamp = Math.floor((t0 + Math.floor(i / 2) - behind) / 1000) * 1000;
      lines.push({ t: stamp + Math.floor(random.uniform() * 1000), stamp });
    }
    for (const windowMs of [0, 700, 2500, 60_000]) {
      const got = windowRun(lines, windowMs);
      expect(got).toEqual(model(lines, windowMs));
      if (windowMs === 60_000) expect(got.counts.reordered).toBeGreaterThan(100);
    }
  });
});
