import { DESIGN_IDS, type DesignId } from '../config.js';
import { DESIGNS } from '../designs/index.js';

/**
 * Below this many requests per gateway per window a limit is small: the designs that decide locally
 * promise nothing useful about its worst window (docs/worst-window.md, "Small limits").
 */
export const SMALL_LIMIT_PER_GATEWAY = 5;

/** Whether L over K gateways is a small limit (L < 5 K): logins at 5 per minute over 3 gateways are. */
export function isSmallLimit(limit: number, gateways: number): boolean {
  return gateways > 1 && limit < SMALL_LIMIT_PER_GATEWAY * gateways;
}

/**
 * The worst window adaptive-early is held to at a flood's onset, × L, as a function of L/K (issue 31;
 * scripts/worst-window.ts checks it at L = 100, 300 and 1,000, K = 2, 8 and 32, floods 1.5×–1,000×,
 * busy and empty keys, 10 seeds): ≤ 1.1 where L ≥ 10 K, ≤ 1.2 where 5 K ≤ L < 10 K, ≤ 1.25 at
 * L = 100, K = 32; null below 5 K, where only the local floor (n₀ + K)/L holds.
 */
export function worstWindowTarget(limit: number, gateways: number): number | null {
  if (limit >= 10 * gateways) return 1.1;
  if (limit >= 5 * gateways) return 1.2;
  return limit === 100 && gateways === 32 ? 1.25 : null;
}

/**
 * The floor of any design that decides locally at a fast flood's onset, × L: the n₀ admits already in
 * the window plus one flood request per gateway, each of which looks like an honest client's lone
 * request to the gateway it reaches (docs/worst-window.md, "The local bound").
 */
export function localFloor(limit: number, gateways: number, inWindow: number): number {
  return Math.max(limit, inWindow + gateways) / limit;
}

/** The designs whose bound is L itself (Design.bound 'L'): the store decides or grants no more than L. */
export const EXACT_DESIGNS: readonly DesignId[] = DESIGN_IDS.filter((d) => DESIGNS[d].bound === 'L');

/** The note `advise` prints for a small limit (null for any other). */
export function smallLimitNote(limit: number, gateways: number): string | null {
  if (!isSmallLimit(limit, gateways)) return null;
  const worst = localFloor(limit, gateways, limit - 1);
  return (
    `L = ${limit} over K = ${gateways} gateways is a small limit (L < ${SMALL_LIMIT_PER_GATEWAY} K): a design ` +
    `that decides locally admits a flood's first request at each gateway as if it were an honest ` +
    `client's lone one, so its worst window reaches about n₀ + K (${limit - 1} + ${gateways} = ` +
    `${worst.toFixed(2)} × L with one slot free). Designs that hold L exactly: ${EXACT_DESIGNS.join(', ')}; ` +
    `they are ranked first here.`
  );
}
