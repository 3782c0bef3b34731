import { describe, expect, it } from 'vitest';
import { formatRate, formatSeconds, formatTable } from '../../src/advise/format.js';
import { compareRows, missedTargets, storeOps } from '../../src/advise/rank.js';
import { adviceRow } from '../support/advice-row.js';

const fleet = { gateways: 8, attack: 1000, limit: 100, windowS: 60 };

const row = adviceRow;

describe('advise ranking', () => {
  it('store ops per key = K/Δ syncs for syncing designs + round trips per request × the attack rate', () => {
    expect(storeOps({ design: 'shared-counter', syncS: 0.1 }, fleet, { roundTripsPerRequest: 0 })).toEqual({
      syncsPerSec: 80,
      requestPathPerSec: 0,
    });
    // central-log's syncs carry nothing; every request is a round trip: 1000 × 100 / 60 s
    const c = storeOps({ design: 'central-log', syncS: null }, fleet, { roundTripsPerRequest: 1 });
    expect(c.syncsPerSec).toBe(0);
    expect(c.requestPathPerSec).toBeCloseTo(1666.667, 3);
    expect(storeOps({ design: 'split', syncS: null }, fleet, { roundTripsPerRequest: 0 })).toEqual({
      syncsPerSec: 0,
      requestPathPerSec: 0,
    });
    const ask = storeOps({ design: 'leases-ask', syncS: 2 }, fleet, { roundTripsPerRequest: 0.006 });
    expect(ask.syncsPerSec).toBe(4);
    expect(ask.requestPathPerSec).toBeCloseTo(10, 9);
  });

  it('a target is missed only when exceeded, float noise aside', () => {
    const t = { maxMean: 1, maxRejectedPct: 1, maxWorst: undefined };
    expect(
      missedTargets(t, { floodMultiple: 1.0000000000000002, honestRejectedPct: 1, worstWindow: 9 }),
    ).toEqual([]);
    expect(missedTargets(t, { floodMultiple: 1.001, honestRejectedPct: 1.01, worstWindow: 9 })).toEqual([
      '--max-mean',
      '--max-rejected',
    ]);
    // --max-over bounds the worst window, not the mean
    expect(
      missedTargets({ ...t, maxWorst: 2 }, { floodMultiple: 1, honestRejectedPct: 0, worstWindow: 2.01 }),
    ).toEqual(['--max-over']);
    expect(
      missedTargets(
        { maxWorst: 1.2, maxRejectedPct: 1 },
        { floodMultiple: 1.005, honestRejectedPct: 0, worstWindow: 4.69 },
      ),
    ).toEqual(['--max-over']);
    // --max-round-trips is a percent of honest requests; roundTripsPerRequest a fraction
    const trips = { ...t, maxRoundTripsPct: 1 };
    const m = { floodMultiple: 1, honestRejectedPct: 0, worstWindow: 1 };
    expect(missedTargets(trips, { ...m, roundTripsPerRequest: 0.01 })).toEqual([]);
    expect(missedTargets(trips, { ...m, roundTripsPerRequest: 0.0101 })).toEqual(['--max-round-trips']);
    expect(missedTargets(t, { ...m, roundTripsPerRequest: 1 })).toEqual([]);
  });

  it('fewest store ops first, then lowest worst window, mean, honest rejection, round trips', () => {
    const rows = [
      row({ design: 'central-log', syncS: null, storeOpsPerSec: 1667 }),
      row({ design: 'shared-counter', syncS: 10, storeOpsPerSec: 0.8, floodMultiple: 8, worstWindow: 8 }),
      row({ design: 'adaptive', syncS: 10, storeOpsPerSec: 0.8, floodMultiple: 1, worstWindow: 4 }),
      row({ design: 'leases', syncS: 10, storeOpsPerSec: 0.8, floodMultiple: 1 }),
      row({ design: 'leases-ask', syncS: 1, storeOpsPerSec: 8, honestRejectedPct: 0.2 }),
      row({ design: 'leases', syncS: 1, storeOpsPerSec: 8, honestRejectedPct: 0.1 }),
    ];
    const order = [...rows].sort(compareRows).map((r) => `${r.design}@${r.syncS}`);
    expect(order).toEqual([
      'leases@10',
      'adaptive@10',
      'shared-counter@10',
      'leases@1',
      'leases-ask@1',
      'central-log@null',
    ]);
  });

  it('formats Δ, rates and the table', () => {
    expect(formatSeconds(0.1)).toBe('100 ms');
    expect(formatSeconds(0.3)).toBe('300 ms');
    expect(formatSeconds(10)).toBe('10 s');
    expect(formatSeconds(60)).toBe('1 min');
    expect(formatSeconds(90)).toBe('90 s');
    expect(formatRate(1666.67)).toBe('1,667');
    expect(formatRate(26.666)).toBe('26.7');
    expect(formatRate(0)).toBe('0');
    const t = formatTable([
      row({ syncS: 0.1, worstWindow: 4.69, floodMultiple: 1.005 }),
      row({ design: 'central-log', syncS: null }),
    ]).split('\n');
    expect(t).toHaveLength(3);
    // both flood figures, named: the worst window, then the mean
    expect(t[0]).toMatch(/^# +design +Δ +worst ×L +mean ×L +honest rejected/);
    expect(t[1]).toMatch(/^1 +leases +100 ms +4\.690 +1\.005 +0\.50 % +0\.000 +8 +8 +0$/);
    expect(t[2]).toMatch(/^2 +central-log +— +/);
  });
});
