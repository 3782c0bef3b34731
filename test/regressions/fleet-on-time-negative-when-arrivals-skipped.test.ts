/**
 * A load process that could not drive its schedule skipped arrivals (every connection busy) and still
 * counted those that were late as late sends, so "% on time" = (sent − late) / scheduled went below 0.
 */
import { describe, expect, it } from 'vitest';
import { ArrivalCounts } from '../../src/fleet/arrival-counts.js';

describe('a load process behind its schedule', () => {
  it('counts a skipped arrival as skipped, never as a late send', () => {
    const c = new ArrivalCounts(10);
    let sent = 0;
    // 100 arrivals, all 50 ms late; only the first 20 find a free connection
    for (let i = 0; i < 100; i++) if (c.arrive(50, i < 20)) sent++;
    expect({ scheduled: c.scheduled, skipped: c.skipped, lateSends: c.lateSends, sent }).toEqual({
      scheduled: 100,
      skipped: 80,
      lateSends: 20,
      sent: 20,
    });
    const onTimePct = (100 * (sent - c.lateSends)) / c.scheduled;
    expect(onTimePct).toBe(0);
  });

  it('an arrival sent within lateAfterMs is on time', () => {
    const c = new ArrivalCounts(10);
    expect(c.arrive(10, true)).toBe(true);
    expect(c.arrive(11, true)).toBe(true);
    expect(c.lateSends).toBe(1);
  });
});
