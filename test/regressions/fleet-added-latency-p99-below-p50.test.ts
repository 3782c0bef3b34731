import { describe, expect, it } from 'vitest';
import { latencyLines } from '../../src/fleet/table.js';

// `fleetlimit fleet` printed "added by the gateway: p50 4.00 ms, p99 -4.00 ms": the p99 of admitted
// requests minus the p99 of direct ones, which is no percentile and fell below the p50's difference.
describe('regression: fleet prints an added-latency p99 below its p50', () => {
  it('prints every percentile of a measured sample, p99 ≥ p50, and only the median difference', () => {
    const sample = (p50: number, p99: number) => ({ count: 100, p50, p99, max: p99 });
    const lines = latencyLines({
      viaGateway: sample(5, 7),
      admittedViaGateway: sample(5, 6),
      limitedViaGateway: sample(4, 8),
      // the direct requests' tail is longer than the admitted ones': the p99 difference is negative
      direct: sample(1, 10),
      addedByGateway: { p50: 4 },
    });
    const text = lines.join('\n');
    // every "p50 a / p99 b" pair printed is a sample's own, so b ≥ a
    const pairs = [...text.matchAll(/p50 (-?[\d.]+) ms \/ p99 (-?[\d.]+) ms/g)];
    expect(pairs.length).toBe(3);
    for (const [, p50, p99] of pairs) expect(Number(p99)).toBeGreaterThanOrEqual(Number(p50));
    expect(text).toContain('the gateway adds 4.00 ms at the median');
    expect(text).not.toMatch(/-\d/);
  });
});
