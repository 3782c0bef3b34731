// The replay bench's settings, in one place: bench/replay-worker.ts times each design with them, and
// the replay probes (bench/probes/replay-*.mjs, replay-parse.ts) replay with them so their figures are
// the bench's. One gateway by default (K gateways: the log split over them by ROUTE, as
// `fleetlimit replay --gateways K --route ROUTE` splits it), 100 per minute, Δ = 1 s, seed 1, the top
// 10 keys; READS is the gateways' reads option (`fleetlimit replay --reads`), left out at its
// default. Plain JS: the probes run a chosen build without tsx.

/**
 * @param {readonly string[]} designs
 * @param {string} [reads]
 * @param {number} [gateways]
 */
export function benchReplaySettings(designs, reads = 'every-sync', gateways = 1) {
  return {
    designs: [...designs],
    gateways,
    limit: 100,
    windowMs: 60_000,
    syncMs: 1000,
    seed: 1,
    top: 10,
    ...(reads === 'every-sync' ? {} : { reads }),
  };
}

/**
 * The readers' options the bench reads its log with: `fleetlimit replay`'s defaults (--spread uniform,
 * --seed 1), so the figures are what the command does with a log of one-second stamps; with K > 1
 * gateways, the one log split over them by `route` (`--route`, default hash).
 * @param {string} format
 * @param {number} [gateways]
 * @param {string} [route]
 */
export function benchReadOptions(format, gateways = 1, route = 'hash') {
  return { format, spread: 'uniform', seed: 1, ...(gateways > 1 ? { gateways, route } : {}) };
}
