import type { DesignId } from '../config.js';
import { AdaptiveKey } from './adaptive.js';
import { CentralLogKey } from './central-log.js';
import type { FleetParams, KeyLimiter } from './key-limiter.js';
import { LeaseKey } from './leases.js';
import { SplitKey } from './split.js';
import { AssumeOthersKey, SharedCounterKey, TrackShareKey } from './synced.js';

export { ALLOW, DENY, type FleetParams, type KeyLimiter, NEED_STORE, type Verdict } from './key-limiter.js';

/** A fresh state machine for one key on one gateway. */
export function createKeyLimiter(design: DesignId, p: FleetParams, now: number): KeyLimiter {
  switch (design) {
    case 'central-log':
      return new CentralLogKey(p);
    case 'split':
      return new SplitKey(p);
    case 'shared-counter':
      return new SharedCounterKey(p);
    case 'assume-others':
      return new AssumeOthersKey(p);
    case 'track-share':
      return new TrackShareKey(p);
    case 'leases':
      return new LeaseKey(p, false, now);
    case 'leases-ask':
      return new LeaseKey(p, true, now);
    case 'adaptive':
      return new AdaptiveKey(p, now);
  }
}

/** Designs that decide every request without touching the store. */
export function decidesLocally(design: DesignId): boolean {
  return design !== 'central-log' && design !== 'leases-ask';
}
