import type { DesignId } from '../config.js';

/**
 * Bytes a gateway holds per key it keeps state for, measured with `npm run build && node --expose-gc
 * bench/key-bytes.mjs` (Node 20, V8 heap after full collections; 200,000 keys named like
 * "api-key:00012345"; each key given two admits, a sync and one more admit, so it holds a pending
 * admit and a read-back count): the gateway's map entry, the key's string and the design's state.
 * central-log keeps nothing between requests. The same figures at 50,000 keys differ by ≤ 13 bytes.
 * Measured 2026-12-05 after issue 35, with the default reads: 'every-sync' (a flag per synced key: +8
 * bytes against main measured the same day, shared-counter 885 → 893; with reads: 'on-request' a view
 * also lists its own admits past the horizon, +64 more in this bench); the figures of 2026-12-04
 * (shared-counter 813) had gone stale by up to 9 %, and those of 2026-12-02 (453–885) before them as
 * keys gained state.
 */
export const KEY_BYTES: Readonly<Record<DesignId, number>> = {
  'central-log': 0,
  split: 613,
  'shared-counter': 893,
  'assume-others': 893,
  'track-share': 1205,
  leases: 733,
  'leases-ask': 709,
  adaptive: 1333,
  // adaptive's fields and its own (headroom part, lone-request and early-sync state)
  'adaptive-early': 1477,
};
