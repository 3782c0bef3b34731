import type { DesignId } from '../config.js';
import { AdaptiveKey } from './adaptive.js';
import { AdaptiveEarlyKey } from './adaptive-early.js';
import { CentralLogKey } from './central-log.js';
import type { FleetParams, KeyLimiter } from './key-limiter.js';
import { LeaseKey } from './leases.js';
import { SplitKey } from './split.js';
import { AssumeOthersKey, SharedCounterKey, TrackShareKey } from './synced.js';

export { ALLOW, DENY, type FleetParams, type KeyLimiter, NEED_STORE, type Verdict } from './key-limiter.js';

/**
 * One design: how to make its per-key state machine, and the facts about it that the simulator, the
 * gateways, the advisor and the report act on. Read these, never the design's name: a new design is
 * its KeyLimiter file and one row of DESIGNS (test/designs/traits.test.ts checks the rows agree).
 */
export interface Design {
  /** A fresh state machine for one key on one gateway. */
  readonly create: (p: FleetParams, now: number) => KeyLimiter;
  /**
   * What its syncs are for, which says how they may be scheduled:
   * - 'never': it has no syncs — its state is in the store (the log) or never leaves the gateway
   *   (fixed shares), so Δ changes none of its decisions and a rejected request learns nothing at one;
   * - 'lazy': a sync pushes own admits and reads the others'; one with nothing to push whose read is
   *   overwritten before the gateway's next arrival changes nothing, so the simulator may skip it;
   * - 'every': a sync may change the store (it renews and hands back grants): each one is run.
   */
  readonly syncs: 'never' | 'lazy' | 'every';
  /**
   * The store call a request may wait on (its NEED_STORE verdict): null, none — every request is
   * decided on the gateway; 'log': logAdmit, on every request, rejected ones too; 'ask': ask, for
   * more granted slots, only when the held ones are spent.
   */
  readonly requestPath: null | 'log' | 'ask';
  /**
   * The store hands each gateway grants (slots it alone may spend until the lease TTL), renewed at
   * syncs: the lease TTL must outlive a sync, a gateway cut off from the store may still spend what
   * it holds (failMode 'local'), and no window ever holds more than L.
   */
  readonly grants: boolean;
  /**
   * A gateway keeps each key's state machine between requests. Without: the store holds the whole
   * state, and each request gets a fresh one.
   */
  readonly holdsKeys: boolean;
  /**
   * What caps the admits in any window W: 'L', hard (the store decides, or grants no more than L);
   * 'share', hard at K·ceil(L/K) (each gateway admits at most its own share ceil(L/K), so a request
   * costing more can never be admitted); 'none', nothing hard — what a flood gets past L grows with Δ
   * and the flood rate (the report fits it).
   */
  readonly bound: 'L' | 'share' | 'none';
  /**
   * Syncs a gateway sends early, off the request path, when a key wants one (KeyLimiter.wantsEarlySync),
   * capped by a token bucket per gateway: `burst` tokens, refilled at `perSync` per Δ. So a gateway
   * sends at most 1/Δ + perSync/Δ syncs per second over time (plus `burst` once). null: none. Such a
   * design may learn from successive reads (adaptive-early's others' rate), so the simulator runs each
   * of its syncs, as for 'every', though its `syncs` stays 'lazy' (a sync changes nothing at the store).
   */
  readonly earlySyncs: null | { readonly burst: number; readonly perSync: number };
  /**
   * A key with nothing to push is read at a sync only after a request decided for it on this gateway
   * since its last read, or while its view is near L (ReadsOnRequest): a quiet key costs the store
   * at most one read per request, a busy one one per Δ, as before (issue 35,
   * docs/decisions/0013-reads-follow-requests.md). false: every held key is read at every sync.
   */
  readonly readsFollowRequests: boolean;
}

/**
 * The facts the synced designs share (shared-counter, assume-others, track-share, adaptive and, with its
 * early syncs, adaptive-early): each decides locally against its last read of the others' admits.
 * A row spreads it after `create` and overrides after it, so every row keeps one key order.
 */
const SYNCED: Omit<Design, 'create'> = {
  syncs: 'lazy',
  requestPath: null,
  grants: false,
  holdsKeys: true,
  bound: 'none',
  earlySyncs: null,
  readsFollowRequests: true,
};

/** The facts the lease designs share: grants renewed at every sync, L hard (leases-ask also asks). */
const LEASED: Omit<Design, 'create'> = {
  syncs: 'every',
  requestPath: null,
  grants: true,
  holdsKeys: true,
  bound: 'L',
  earlySyncs: null,
  readsFollowRequests: false,
};

/** Every design's row. */
export const DESIGNS: Readonly<Record<DesignId, Design>> = {
  'central-log': {
    create: (p) => new CentralLogKey(p),
    syncs: 'never',
    requestPath: 'log',
    grants: false,
    holdsKeys: false,
    bound: 'L',
    earlySyncs: null,
    readsFollowRequests: false,
  },
  split: {
    create: (p) => new SplitKey(p),
    syncs: 'never',
    requestPath: null,
    grants: false,
    holdsKeys: true,
    bound: 'share',
    earlySyncs: null,
    readsFollowRequests: false,
  },
  'shared-counter': { create: (p) => new SharedCounterKey(p), ...SYNCED },
  'assume-others': { create: (p) => new AssumeOthersKey(p), ...SYNCED },
  'track-share': { create: (p) => new TrackShareKey(p), ...SYNCED },
  leases: { create: (p, now) => new LeaseKey(p, false, now), ...LEASED },
  'leases-ask': { create: (p, now) => new LeaseKey(p, true, now), ...LEASED, requestPath: 'ask' },
  adaptive: { create: (p, now) => new AdaptiveKey(p, now), ...SYNCED },
  'adaptive-early': {
    create: (p, now) => new AdaptiveEarlyKey(p, now),
    ...SYNCED,
    earlySyncs: { burst: 4, perSync: 1 },
  },
};

/** Whether a design ever calls the store, at a sync or on a request (split never does). */
export function touchesStore(d: Design): boolean {
  return d.syncs !== 'never' || d.requestPath !== null;
}

/** A fresh state machine for one key on one gateway. */
export function createKeyLimiter(design: DesignId, p: FleetParams, now: number): KeyLimiter {
  return DESIGNS[design].create(p, now);
}

/** Designs that decide every request without touching the store. */
export function decidesLocally(design: DesignId): boolean {
  return DESIGNS[design].requestPath === null;
}
