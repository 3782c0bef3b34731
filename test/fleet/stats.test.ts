import { describe, expect, it } from 'vitest';
import { Arrivals } from '../../src/fleet/arrivals.js';
import { summarize, windowFigures } from '../../src/fleet/stats.js';

describe('windowFigures', () => {
  it('uses the simulator definitions: per window after the first, worst span, spans over L', () => {
    // L = 2, W = 10; admits at 0, 1, 2 (3 in one span), then 15, 25
    const f = windowFigures([25, 0, 1, 2, 15, -1, 30], 10, 2, 30);
    expect(f.admitted).toBe(5);
    expect(f.worstWindow).toBe(1.5);
    expect(f.windowsOverLimit).toBe(1);
    // 15 and 25 after the first W, over 2 windows: 1 per window = 0.5 × L
    expect(f.admittedPerWindow).toBe(0.5);
    // the tightest 3 admits span 2 ms: 8 ms short of W
    expect(f.overLimitByMs).toBe(8);
  });

  it('an admit exactly W after another is in the next window', () => {
    expect(windowFigures([0, 10, 20], 10, 1, 30).windowsOverLimit).toBe(0);
  });
});

describe('summarize', () => {
  it('nearest-rank percentiles', () => {
    const s = summarize(Array.from({ length: 100 }, (_, i) => 100 - i));
    expect(s).toEqual({ count: 100, p50: 50, p99: 99, max: 100 });
    expect(summarize([])).toEqual({ count: 0, p50: 0, p99: 0, max: 0 });
  });
});

describe('Arrivals', () => {
  it('Poisson at load × L per W, routed by the weights, in time order', () => {
    const a = new Arrivals('flood', 100, 100, 6000, 'uneven', 4, 1);
    const per = [0, 0, 0, 0];
    let last = 0;
    let n = 0;
    let ordered = true;
    for (;;) {
      const x = a.take();
      if (x.t >= 60_000) break;
      if (x.t < last) ordered = false;
      last = x.t;
      per[x.gateway]++;
      n++;
    }
    expect(ordered).toBe(true);
    // 1,666.7 per s over 60 s = 100,000, sd 316
    expect(Math.abs(n - 100_000)).toBeLessThan(1500);
    // 1/i weights: 12/25, 6/25, 4/25, 3/25
    expect(per[0] / n).toBeCloseTo(12 / 25, 2);
    expect(per[3] / n).toBeCloseTo(3 / 25, 2);
  });

  it('page loads come 10 at a time, 100 ms apart, in time order', () => {
    const a = new Arrivals('pageload', 1, 100, 60_000, 'even', 2, 3);
    const ts: number[] = [];
    for (let i = 0; i < 200; i++) ts.push(a.take().t);
    for (let i = 1; i < ts.length; i++) expect(ts[i]).toBeGreaterThanOrEqual(ts[i - 1]);
    const same = new Arrivals('pageload', 1, 100, 60_000, 'even', 2, 3);
    expect(same.take().t).toBe(ts[0]);
  });
});
