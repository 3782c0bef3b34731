import type { DesignId } from '../config.js';

/**
 * Bytes a gateway holds per key it keeps state for, measured with `npm run build && node --expose-gc
 * bench/key-bytes.mjs` (Node 20, V8 heap after full collections; 200,000 keys named like
 * "api-key:00012345"; each key given two admits, a sync and one more admit, so it holds a pending
 * admit and a read-back count): the gateway's map entry, the key's string and the design's state.
 * central-log keeps nothing between requests. The same figures at 50,000 keys differ by ≤ 4 bytes.
 */
export const KEY_BYTES: Readonly<Record<DesignId, number>> = {
  'central-log': 0,
  split: 453,
  'shared-counter': 461,
  'assume-others': 461,
  'track-share': 757,
  leases: 533,
  'leases-ask': 533,
  adaptive: 885,
  // the same fields as adaptive's (the class adds none)
  'adaptive-early': 885,
};
