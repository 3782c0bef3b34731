/** The report's most affected keys of one design, from every key's summary (ReplayRun.finish). */
import type { DesignId } from '../../config.js';
import type { KeySummary } from './key-stats.js';
import type { KeyRow, TopKeys } from './result.js';

/**
 * Design `design` (its place `i` in the run's order; L the limit): the `n` keys it rejected most
 * honest requests of, and the `n` it over-admitted most on; a key with none is in neither list.
 */
export function topKeys(
  design: DesignId,
  i: number,
  all: readonly KeySummary[],
  L: number,
  n: number,
): TopKeys {
  const row = (s: KeySummary): KeyRow => ({
    key: s.key,
    requests: s.requests,
    floodRequests: s.floodRequests,
    honestRejected: s.honestRejected[i],
    overAdmitted: s.overAdmitted[i],
    worstWindow: s.worst[i] / L,
  });
  const pick = (f: (s: KeySummary) => number) =>
    all
      .filter((s) => f(s) > 0)
      .sort((a, b) => f(b) - f(a) || (a.key < b.key ? -1 : 1))
      .slice(0, n)
      .map(row);
  return {
    design,
    byHonestRejected: pick((s) => s.honestRejected[i]),
    byOverAdmitted: pick((s) => s.overAdmitted[i]),
  };
}
