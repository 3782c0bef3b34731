import type { DesignId } from '../config.js';

/**
 * Bytes a gateway holds per key it keeps state for, measured with `npm run build && node --expose-gc
 * bench/key-bytes.mjs` (Node 20, V8 heap after full collections; 200,000 keys named like
 * "api-key:00012345"; each key given two admits, a sync and one more admit, so it holds a pending
 * admit and a read-back count): the gateway's map entry, the key's string and the design's state.
 * central-log keeps nothing between requests. The same figures at 50,000 keys differ by ≤ 13 bytes.
 * Measured 2026-12-04; the figures of 2026-12-02 (453–885) had gone stale as keys gained state
 * (split 453 → 613, shared-counter 461 → 813, adaptive 885 → 1,253).
 */
export const KEY_BYTES: Readonly<Record<DesignId, number>> = {
  'central-log': 0,
  split: 613,
  'shared-counter': 813,
  'assume-others': 813,
  'track-share': 1123,
  leases: 685,
  'leases-ask': 655,
  adaptive: 1253,
  // adaptive's fields and its own (headroom part, lone-request and early-sync state)
  'adaptive-early': 1341,
};
