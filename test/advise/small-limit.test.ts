import { describe, expect, it } from 'vitest';
import { rankRows } from '../../src/advise/rank.js';
import {
  EXACT_DESIGNS,
  isSmallLimit,
  localFloor,
  smallLimitNote,
  worstWindowTarget,
} from '../../src/advise/small-limit.js';
import { adviceRow } from '../support/advice-row.js';

const row = adviceRow;

describe('small limits (issue 31)', () => {
  it('a login limit, 5 per minute over 3 gateways, is small; 100 over 8 is not', () => {
    expect(isSmallLimit(5, 3)).toBe(true);
    expect(isSmallLimit(14, 3)).toBe(true);
    expect(isSmallLimit(15, 3)).toBe(false);
    expect(isSmallLimit(100, 8)).toBe(false);
    // one gateway sees every admit: nothing is small there
    expect(isSmallLimit(1, 1)).toBe(false);
  });

  it('the worst-window target follows L/K', () => {
    expect(worstWindowTarget(100, 8)).toBe(1.1);
    expect(worstWindowTarget(80, 8)).toBe(1.1);
    expect(worstWindowTarget(79, 8)).toBe(1.2);
    expect(worstWindowTarget(300, 32)).toBe(1.2);
    expect(worstWindowTarget(1000, 32)).toBe(1.1);
    expect(worstWindowTarget(100, 32)).toBe(1.25);
    expect(worstWindowTarget(5, 3)).toBeNull();
  });

  it('the local floor is (n₀ + K)/L, at least 1', () => {
    expect(localFloor(5, 3, 4)).toBeCloseTo(7 / 5);
    expect(localFloor(100, 8, 50)).toBe(1);
  });

  it('the designs that hold L exactly are the central log and the two lease designs', () => {
    expect([...EXACT_DESIGNS].sort()).toEqual(['central-log', 'leases', 'leases-ask']);
  });

  it('advise ranks them first for a small limit, and says why', () => {
    const cheap = row({ design: 'adaptive-early', storeOpsPerSec: 3 });
    const exact = row({ design: 'leases-ask', storeOpsPerSec: 9 });
    expect(rankRows([cheap, exact], true).map((r) => r.design)).toEqual(['leases-ask', 'adaptive-early']);
    expect(rankRows([cheap, exact], false).map((r) => r.design)).toEqual(['adaptive-early', 'leases-ask']);
    const note = smallLimitNote(5, 3);
    expect(note).toContain('n₀ + K');
    for (const d of EXACT_DESIGNS) expect(note).toContain(d);
    expect(smallLimitNote(100, 8)).toBeNull();
  });
});
